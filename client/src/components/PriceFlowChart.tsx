/**
 * A token's whale-trade prices (line, right scale) over its net whale flow per time bucket (histogram, bottom
 * quarter, its USD scale on the left): inflows (buys, exchange withdrawals) up in green, outflows down in red. The price
 * axis reads in dollars with separators and as many digits as the price needs.
 */
import { HistogramSeries, LineSeries, type UTCTimestamp } from "lightweight-charts"
import type { Component } from "solid-js"
import { chartFormat, isInflow } from "../lib/format"
import { Chart, chartColors } from "./Chart"

export interface ChartTrade {
  readonly ts: string
  readonly category: string
  readonly usd: number | null
  readonly price_usd: number | null
}

const bucketSeconds = (spanSeconds: number) => (spanSeconds <= 6 * 3600 ? 300 : spanSeconds <= 3 * 86_400 ? 3600 : 4 * 3600)

export const PriceFlowChart: Component<{ trades: ReadonlyArray<ChartTrade>; symbol: string }> = (props) => (
  <Chart
    label={`${props.symbol} price of whale trades and net whale flow`}
    height={320}
    setup={(chart) => {
      const c = chartColors()
      // Price above, net flow in a pane of its own below: each axis spans only its own series (a flow axis shared
      // with the price's height read ±$20M beside bars of a few hundred thousand), and no tag covers another axis.
      const priceLine = chart.addSeries(LineSeries, { color: c.accent, lineWidth: 2, priceFormat: chartFormat.price }, 0)
      const flow = chart.addSeries(HistogramSeries, { priceFormat: chartFormat.flow, lastValueVisible: false, priceLineVisible: false }, 1)
      chart.panes()[0]?.setStretchFactor(2.2)
      chart.panes()[1]?.setStretchFactor(1)
      priceLine.priceScale().applyOptions({ scaleMargins: { top: 0.12, bottom: 0.08 } })
      flow.priceScale().applyOptions({ scaleMargins: { top: 0.1, bottom: 0.05 } })
      return () => {
        const sorted = [...props.trades].filter((t) => Number.isFinite(Date.parse(t.ts))).sort((a, b) => Date.parse(a.ts) - Date.parse(b.ts))
        const prices = new Map<number, number>()
        for (const t of sorted) if (t.price_usd !== null) prices.set(Math.floor(Date.parse(t.ts) / 1000), t.price_usd)
        priceLine.setData([...prices].map(([time, value]) => ({ time: time as UTCTimestamp, value })))
        const first = sorted[0] ? Date.parse(sorted[0].ts) / 1000 : 0
        const last = sorted.at(-1) ? Date.parse(sorted.at(-1)!.ts) / 1000 : 0
        const size = bucketSeconds(last - first)
        const buckets = new Map<number, number>()
        for (const t of sorted) {
          const at = Math.floor(Date.parse(t.ts) / 1000 / size) * size
          buckets.set(at, (buckets.get(at) ?? 0) + (isInflow(t.category) ? 1 : -1) * (t.usd ?? 0))
        }
        flow.setData([...buckets].map(([time, value]) => ({ time: time as UTCTimestamp, value, color: value >= 0 ? `${c.pos}cc` : `${c.neg}cc` })))
      }
    }}
  />
)
