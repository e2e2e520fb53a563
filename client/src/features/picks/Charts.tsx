/**
 * The picks page's charts: a return histogram (bars per bin, counts on top), the median return at each day 1–7
 * (signed bars around zero), and one pick's exit timing (each flagging whale's dated exit at its time and move
 * versus entry, by route, over the entry line and the 7-day close) on the console's lightweight-charts `Chart`.
 */
import { LineSeries, type UTCTimestamp } from "lightweight-charts"
import { For, Show, type Component } from "solid-js"
import type { Distributions, ExitTiming } from "../../../../schema/http/picks"
import { Chart, chartColors } from "../../components/Chart"
import { chartFormat } from "../../lib/format"

type Bin = Distributions["peak"][number]
type Horizon = Distributions["horizon"][number]

/** `+25 %`, `−10 %`, `0 %`; `—` when unknown. */
export const ret = (x: number | null | undefined, digits = 0): string => {
  if (x === null || x === undefined || !Number.isFinite(x)) return "—"
  const v = x * 100
  const s = Math.abs(v).toFixed(digits)
  return `${v > 0 && s !== (0).toFixed(digits) ? "+" : v < 0 && s !== (0).toFixed(digits) ? "−" : ""}${s} %`
}
const edge = (x: number) => (x === 0 ? "0" : `${x > 0 ? "+" : "−"}${Math.round(Math.abs(x) * 100)}`)
const binLabel = (b: Bin) => (b.to === null ? `≥ ${edge(b.from)} %` : `${edge(b.from)} … ${edge(b.to)} %`)

/** A histogram of returns; `tone` colours bins below zero red and the rest green. */
export const ReturnHistogram: Component<{ bins: ReadonlyArray<Bin>; label: string }> = (props) => {
  const max = () => Math.max(1, ...props.bins.map((b) => b.count))
  const total = () => props.bins.reduce((a, b) => a + b.count, 0)
  return (
    <Show when={total() > 0} fallback={<p class="empty">No graded pick yet.</p>}>
      <div class="pk-hist" role="img" aria-label={`${props.label}: ${props.bins.filter((b) => b.count > 0).map((b) => `${binLabel(b)} ${b.count}`).join(", ")}`}>
        <For each={props.bins}>
          {(b) => (
            <div class="pk-hist-col" title={`${binLabel(b)}: ${b.count} pick${b.count === 1 ? "" : "s"}`}>
              <span class="pk-hist-n">{b.count > 0 ? b.count : ""}</span>
              <span class={`pk-hist-bar ${b.from < 0 ? "pk-neg" : "pk-pos"}`} style={{ height: `${(b.count / max()) * 100}%` }} />
              <span class="pk-hist-x">{edge(b.from)}</span>
            </div>
          )}
        </For>
      </div>
      <p class="muted small pk-axis">Return versus entry, % (each bar from its label up to the next); {total()} graded picks.</p>
    </Show>
  )
}

/** Median return at flag + d × 24 h for d = 1..7, with its interval in the tooltip. */
export const HorizonBars: Component<{ horizon: ReadonlyArray<Horizon> }> = (props) => {
  const max = () => Math.max(0.01, ...props.horizon.map((h) => Math.abs(h.median.value ?? 0)))
  return (
    <div class="pk-horizon" role="img" aria-label={`Median return by day: ${props.horizon.map((h) => `day ${h.day} ${ret(h.median.value, 1)}`).join(", ")}`}>
      <For each={props.horizon}>
        {(h) => (
          <div class="pk-horizon-col" title={h.median.value === null ? `day ${h.day}: n = ${h.median.n}, too few to say` : `day ${h.day}: median ${ret(h.median.value, 1)} (95 % ${ret(h.median.low, 1)} … ${ret(h.median.high, 1)}), n = ${h.median.n}`}>
            <span class={`pk-horizon-v ${h.median.value === null ? "muted" : h.median.value >= 0 ? "pos" : "neg"}`}>{h.median.value === null ? "n/a" : ret(h.median.value, 1)}</span>
            <div class="pk-horizon-track">
              <span class="pk-horizon-up"><span class="pk-pos" style={{ height: `${(Math.max(0, h.median.value ?? 0) / max()) * 100}%` }} /></span>
              <span class="pk-horizon-down"><span class="pk-neg" style={{ height: `${(Math.max(0, -(h.median.value ?? 0)) / max()) * 100}%` }} /></span>
            </div>
            <span class="pk-hist-x">d{h.day}</span>
          </div>
        )}
      </For>
    </div>
  )
}

const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000)

/** Points at strictly increasing times (the chart needs them): a second later for exits of the same second. */
const ascending = (points: ReadonlyArray<{ t: number; value: number }>) => {
  let last = -Infinity
  return [...points].sort((a, b) => a.t - b.t).map((p) => {
    const time = Math.max(p.t, last + 1)
    last = time
    return { time: time as UTCTimestamp, value: p.value }
  })
}

/** One pick's dated exits: move versus entry (%) at the time of each exit, DEX sells and exchange deposits apart. */
export const ExitTimingChart: Component<{ timing: ExitTiming }> = (props) => (
  <Chart
    label={`${props.timing.pick.symbol}: whale exits after the flag, move versus entry`}
    height={240}
    options={{ timeScale: { timeVisible: true } }}
    setup={(chart) => {
      const c = chartColors()
      const format = chartFormat.pct
      const entry = chart.addSeries(LineSeries, { color: c.text, lineWidth: 1, lineStyle: 2, priceFormat: format, lastValueVisible: false, priceLineVisible: false, crosshairMarkerVisible: false })
      const close = chart.addSeries(LineSeries, { color: c.accent, lineWidth: 2, lineStyle: 1, priceFormat: format, lastValueVisible: false, priceLineVisible: false, crosshairMarkerVisible: false })
      const points = { lineVisible: false, pointMarkersVisible: true, pointMarkersRadius: 4, priceFormat: format, lastValueVisible: false, priceLineVisible: false }
      const sells = chart.addSeries(LineSeries, { ...points, color: c.neg })
      const deposits = chart.addSeries(LineSeries, { ...points, color: "#f59e0b" })
      return () => {
        const t = props.timing
        const from = seconds(t.pick.flagged_at)
        const last = Math.max(from + 7 * 86_400, ...t.exits.map((e) => seconds(e.at)))
        entry.setData([{ time: from as UTCTimestamp, value: 0 }, { time: last as UTCTimestamp, value: 0 }])
        close.setData(t.pick.close_return === null ? [] : [
          { time: from as UTCTimestamp, value: t.pick.close_return * 100 }, { time: (from + 7 * 86_400) as UTCTimestamp, value: t.pick.close_return * 100 }
        ])
        const priced = t.exits.filter((e) => e.move !== null)
        sells.setData(ascending(priced.filter((e) => e.route === "dex_sell").map((e) => ({ t: seconds(e.at), value: e.move! * 100 }))))
        deposits.setData(ascending(priced.filter((e) => e.route === "exchange_deposit").map((e) => ({ t: seconds(e.at), value: e.move! * 100 }))))
      }
    }}
  />
)
