/**
 * /picks (public): tokens flagged when several tracked whales became net DEX buyers within a window, graded on the
 * 7-day close. The headline with n and 95 % intervals, the distributions (highest reading, 7-day close, median return
 * per day 1–7), recent picks with their status (PENDING, GRADED, UNPRICED; live PENDING picks for pro tier and above),
 * one pick's exit timing, and the top runners.
 */
import { For, onCleanup, onMount, Show, type Component } from "solid-js"
import { type PickRow, PicksEndpoints, type Summary } from "../../../../schema/http/picks"
import { Card } from "../../components/Card"
import { WalletLink } from "../../components/WalletLink"
import { ago, price } from "../../lib/format"
import { Link } from "../../router"
import { useStore } from "../../store"
import { ExitTimingChart, HorizonBars, ret, ReturnHistogram } from "./Charts"
import { createPicksStore } from "./store"
import "./picks.css"

type Rate = Summary["close"]["positive"]
type Median = Summary["close"]["median"]

const pctOf = (x: number | null) => (x === null ? "—" : `${Math.round(x * 100)} %`)
const day = (iso: string) => iso.slice(0, 10)
const when = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`
const hours = (h: number) => (h < 48 ? `${Math.round(h)} h` : `${(h / 24).toFixed(1)} d`)

/** A rate as a headline: the value, its interval and n — or why there is none. */
const RateFigure: Component<{ label: string; rate: Rate; minN: number }> = (props) => (
  <div class="pk-fig">
    <dt>{props.label}</dt>
    <Show when={props.rate.value !== null} fallback={<dd><span class="muted">n/a</span><small class="muted">n = {props.rate.n}, below {props.minN}</small></dd>}>
      <dd>{pctOf(props.rate.value)}<small class="muted">95 % {pctOf(props.rate.low)}–{pctOf(props.rate.high)} · n = {props.rate.n}</small></dd>
    </Show>
  </div>
)

const MedianFigure: Component<{ label: string; median: Median; minN: number }> = (props) => (
  <div class="pk-fig">
    <dt>{props.label}</dt>
    <Show when={props.median.value !== null} fallback={<dd><span class="muted">n/a</span><small class="muted">n = {props.median.n}, below {props.minN}</small></dd>}>
      <dd class={props.median.value! >= 0 ? "pos" : "neg"}>{ret(props.median.value, 1)}<small class="muted">95 % {ret(props.median.low, 1)} … {ret(props.median.high, 1)} · n = {props.median.n}</small></dd>
    </Show>
  </div>
)

const Status: Component<{ status: PickRow["status"] }> = (props) => (
  <span class={`pill pk-status pk-${props.status.toLowerCase()}`}>{props.status === "GRADED" ? "graded" : props.status}</span>
)

export const PicksPage: Component = () => {
  const [shell] = useStore()
  const picks = createPicksStore()
  const s = picks.state
  onMount(() => {
    void picks.load()
    const timer = setInterval(() => void picks.load(), 60_000)
    onCleanup(() => clearInterval(timer))
  })
  const choices = () => {
    const seen = new Set<number>()
    return [...(s.chartable ?? []), ...(s.recent?.picks ?? []).filter((p) => p.exits > 0)].filter((p) => (seen.has(p.id) ? false : (seen.add(p.id), true)))
  }

  return (
    <div class="pk">
      <header class="pk-head">
        <h1>Whale picks</h1>
        <Show when={s.summary}>
          {(sum) => (
            <p class="muted">
              A token becomes a pick when {sum().rule.min_whales} or more tracked whales are net DEX buyers of it within {sum().rule.window_hours} h
              (stablecoins and ETH derivatives excluded). Each pick is graded on its close {sum().rule.horizon_days} × 24 h after the flag; rates
              need n ≥ {sum().rule.min_n}.
            </p>
          )}
        </Show>
      </header>
      <Show when={s.error}><p class="notice notice-warn" role="alert">{s.error}</p></Show>
      <Show when={s.summary?.demo}><p class="notice" role="note"><strong>Demo data.</strong> These picks come from the built-in demo chain, not real market activity.</p></Show>

      <Show when={s.summary} fallback={<div class="stats stats-empty">Loading picks…</div>}>
        {(sum) => (
          <>
            <dl class="stats pk-counts">
              <div><dt>Picks</dt><dd>{sum().counts.total.toLocaleString("en-US")}</dd></div>
              <div><dt>Graded</dt><dd>{sum().counts.graded.toLocaleString("en-US")}</dd></div>
              <div><dt>Pending</dt><dd>{sum().counts.pending.toLocaleString("en-US")}</dd></div>
              <div><dt>Unpriced</dt><dd>{sum().counts.unpriced.toLocaleString("en-US")}</dd></div>
              <div><dt>Tokens</dt><dd>{sum().counts.tokens.toLocaleString("en-US")}</dd></div>
              <div><dt>Since</dt><dd>{sum().counts.first_flagged_at ? day(sum().counts.first_flagged_at!) : "—"}</dd></div>
            </dl>
            <Card title="Outcomes of graded picks" class="pk-headline" aside={<span class="muted small">95 % intervals (Wilson for rates, order statistics for medians)</span>}>
              <dl class="pk-figs">
                <RateFigure label="Closed up after 7 days" rate={sum().close.positive} minN={sum().rule.min_n} />
                <MedianFigure label="Median 7-day close" median={sum().close.median} minN={sum().rule.min_n} />
                <MedianFigure label="Median highest reading" median={sum().peak_vs_close.median_peak} minN={sum().rule.min_n} />
                <RateFigure label="Reached +25 % within 7 days" rate={sum().runners.gte_25} minN={sum().rule.min_n} />
                <RateFigure label="Reached +100 %" rate={sum().runners.gte_100} minN={sum().rule.min_n} />
                <RateFigure label="A flagging whale exited before the close" rate={sum().follow_through.exited_before_close} minN={sum().rule.min_n} />
              </dl>
            </Card>
          </>
        )}
      </Show>

      <div class="grid">
        <Card title="Highest reading in 7 days">
          <Show when={s.distributions} fallback={<p class="empty">Loading…</p>}>{(d) => <ReturnHistogram bins={d().peak} label="Highest reading in 7 days" />}</Show>
        </Card>
        <Card title="7-day close">
          <Show when={s.distributions} fallback={<p class="empty">Loading…</p>}>{(d) => <ReturnHistogram bins={d().close} label="7-day close" />}</Show>
        </Card>
        <Card title="Median return by day after the flag" class="span-2" aside={<span class="muted small">close at flag + d × 24 h versus entry</span>}>
          <Show when={s.distributions} fallback={<p class="empty">Loading…</p>}>{(d) => <HorizonBars horizon={d().horizon} />}</Show>
        </Card>

        <Card title="Recent picks" class="span-2" aside={<Show when={s.recent}>{(r) => (
          <span class="muted small">{r().delay_hours > 0 ? `pending picks shown ${r().delay_hours} h after the flag · pro tier sees them live` : "live, pending picks included"}</span>
        )}</Show>}>
          <Show when={(s.recent?.withheld ?? 0) > 0}>
            <p class="notice small" role="note">{s.recent!.withheld} pick{s.recent!.withheld === 1 ? "" : "s"} flagged in the last {s.recent!.delay_hours} h {s.recent!.withheld === 1 ? "is" : "are"} withheld. <Link href="/billing">Pro tier</Link> shows pending picks as they are flagged.</p>
          </Show>
          <div class="table-wrap pk-scroll">
            <table class="table pk-table">
              <thead><tr><th>Token</th><th>Status</th><th class="num">Highest</th><th class="num">7-day close</th><th>Flagged</th><th class="num">Whales</th><th class="num">Conviction</th><th class="num">Entry</th><th class="num">Exits</th></tr></thead>
              <tbody>
                <For each={s.recent?.picks ?? []} fallback={<tr><td colSpan={9} class="empty">{s.recent ? "No pick yet." : "Loading…"}</td></tr>}>
                  {(p) => (
                    <tr classList={{ "pk-selected": s.selected.id === p.id }}>
                      <td><Link href={`/tokens/${p.token}`} class="strong">{p.symbol}</Link></td>
                      <td><Status status={p.status} /></td>
                      <td class={`num ${(p.peak_return ?? 0) > 0 ? "pos" : ""}`}>{ret(p.peak_return)}</td>
                      <td class={`num ${p.close_return === null ? "muted" : p.close_return >= 0 ? "pos" : "neg"}`}>{p.status === "PENDING" ? "pending" : ret(p.close_return)}</td>
                      <td title={when(p.flagged_at)}>{ago(p.flagged_at, shell.now)}</td>
                      <td class="num">{p.whales}</td>
                      <td class="num">{Math.round(p.conviction)}</td>
                      <td class="num">{price(p.entry_price)}</td>
                      <td class="num">
                        <Show when={p.exits > 0} fallback={<span class="muted">0</span>}>
                          <button class="link" aria-label={`Exit timing of ${p.symbol} pick ${p.id}`} onClick={() => void picks.select(p.id)}>{p.exits}</button>
                        </Show>
                      </td>
                    </tr>
                  )}
                </For>
              </tbody>
            </table>
          </div>
        </Card>

        <Card title="Exit timing" class="span-2" aside={
          <label class="select small">Pick
            <select aria-label="Pick to chart" value={s.selected.id ?? ""} onChange={(e) => void picks.select(Number(e.currentTarget.value))}>
              <Show when={s.selected.id === null}><option value="">—</option></Show>
              <For each={choices()}>{(p) => <option value={p.id}>{p.symbol} · {day(p.flagged_at)} · {p.exits} exits</option>}</For>
            </select>
          </label>
        }>
          <Show when={s.selected.timing} fallback={<p class="empty">{s.selected.loading ? "Loading…" : "No pick has dated whale exits yet."}</p>}>
            {(t) => (
              <>
                <p class="small pk-timing-head">
                  <strong>{t().pick.symbol}</strong> flagged {when(t().pick.flagged_at)} by {t().pick.whales} whales at {price(t().pick.entry_price)} ·{" "}
                  <Status status={t().pick.status} /> · highest {ret(t().pick.peak_return)} · close {t().pick.status === "GRADED" ? ret(t().pick.close_return) : "—"}
                </p>
                <ExitTimingChart timing={t()} />
                <p class="legend small">
                  <span class="key pk-key-sell" /> DEX sell <span class="key pk-key-deposit" /> exchange deposit <span class="key pk-key-close" /> 7-day close <span class="key pk-key-entry" /> entry
                </p>
                <div class="table-wrap">
                  <table class="table">
                    <thead><tr><th>Whale</th><th class="num">After</th><th class="num">Move vs entry</th><th>Route</th><th>When</th></tr></thead>
                    <tbody>
                      <For each={t().exits}>
                        {(x) => (
                          <tr>
                            <td class="mono"><WalletLink address={x.wallet} label={x.wallet} /></td>
                            <td class="num">day {x.day_offset} · {hours(x.hours)}</td>
                            <td class={`num ${x.move === null ? "muted" : x.move >= 0 ? "pos" : "neg"}`}>{x.move === null ? "unpriced" : ret(x.move, 1)}</td>
                            <td>{x.route === "dex_sell" ? "DEX sell" : "exchange deposit"}</td>
                            <td>{when(x.at)}</td>
                          </tr>
                        )}
                      </For>
                    </tbody>
                  </table>
                </div>
              </>
            )}
          </Show>
        </Card>

        <Card title="Top runners" class="span-2" aside={<span class="muted small">highest readings between +10 % and +300 %</span>}>
          <div class="table-wrap">
            <table class="table pk-table">
              <thead><tr><th>Token</th><th class="num">Highest</th><th class="num">7-day close</th><th class="num">Max adverse</th><th>Flagged</th><th class="num">Whales</th><th class="num">Conviction</th><th>Whales exited</th></tr></thead>
              <tbody>
                <For each={s.runners ?? []} fallback={<tr><td colSpan={8} class="empty">{s.runners ? "No runner yet." : "Loading…"}</td></tr>}>
                  {(p) => (
                    <tr>
                      <td><Link href={`/tokens/${p.token}`} class="strong">{p.symbol}</Link></td>
                      <td class="num pos">{ret(p.peak_return)}</td>
                      <td class={`num ${(p.close_return ?? 0) >= 0 ? "pos" : "neg"}`}>{ret(p.close_return)}</td>
                      <td class="num neg">{ret(p.max_adverse)}</td>
                      <td>{day(p.flagged_at)}</td>
                      <td class="num">{p.whales}</td>
                      <td class="num">{Math.round(p.conviction)}</td>
                      <td>{p.exited_before_close === true ? "before the close" : p.exits > 0 ? "after the close" : "—"}</td>
                    </tr>
                  )}
                </For>
              </tbody>
            </table>
          </div>
        </Card>
      </div>
      <p class="muted small">
        Observational on-chain data about tracked whale wallets, not financial advice. Every pick and grade is in a hash-chained ledger
        (<a href={PicksEndpoints.ledger.path}>{PicksEndpoints.ledger.path}</a>); all graded picks: <a href={PicksEndpoints.picks.path}>{PicksEndpoints.picks.path}</a>.
      </p>
    </div>
  )
}

/** The page as the console's route table loads it (CONSOLE_PAGES in schema/http/console.ts). */
export default PicksPage
