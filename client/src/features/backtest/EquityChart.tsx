/** A backtest's equity at the end of each UTC day beside the same capital held in ETH, in dollars. */
import { LineSeries, type UTCTimestamp } from "lightweight-charts"
import type { Component } from "solid-js"
import type { BacktestResponse } from "../../../../schema/http/backtest"
import { Chart, chartColors } from "../../components/Chart"
import { chartFormat } from "../../lib/format"

export const EquityChart: Component<{ equity: BacktestResponse["equity"] }> = (props) => (
  <Chart
    label="Equity curve of the backtest against holding ETH"
    height={280}
    options={{ timeScale: { timeVisible: false } }}
    setup={(chart) => {
      const c = chartColors()
      const format = chartFormat.usd
      const eth = chart.addSeries(LineSeries, { color: c.text, lineWidth: 2, lineStyle: 2, priceFormat: format, priceLineVisible: false, title: "ETH" })
      const equity = chart.addSeries(LineSeries, { color: c.accent, lineWidth: 2, priceFormat: format, priceLineVisible: false, title: "Picks" })
      return () => {
        const seen = new Set<number>()
        const points = props.equity
          .map((p) => ({ time: Math.floor(Date.parse(p.t) / 1000) as UTCTimestamp, equity: p.equity, eth: p.eth }))
          .filter((p) => (seen.has(p.time) ? false : (seen.add(p.time), true)))
          .sort((a, b) => a.time - b.time)
        equity.setData(points.map((p) => ({ time: p.time, value: p.equity })))
        eth.setData(points.flatMap((p) => (p.eth === null ? [] : [{ time: p.time, value: p.eth }])))
      }
    }}
  />
)
