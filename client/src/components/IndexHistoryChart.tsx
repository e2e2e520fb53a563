/** The sentiment index's daily closes for the last 30 days, today's live value last; the axis in whole points. */
import { AreaSeries, LineSeries } from "lightweight-charts"
import type { Component } from "solid-js"
import type { WhaleIndex } from "../../../schema/http/analytics"
import { Chart, chartColors } from "./Chart"

export const IndexHistoryChart: Component<{ index: WhaleIndex; height?: number }> = (props) => (
  <Chart
    label="Whale Sentiment Index, last 30 days"
    height={props.height ?? 240}
    options={{ rightPriceScale: { autoScale: false, scaleMargins: { top: 0.05, bottom: 0.05 } }, timeScale: { timeVisible: false } }}
    setup={(chart) => {
      const c = chartColors()
      const area = chart.addSeries(AreaSeries, {
        lineColor: c.accent, topColor: `${c.accent}55`, bottomColor: `${c.accent}05`, lineWidth: 2,
        // Whole points on the axis; no last-value label (on a phone it covered the axis labels: the page shows the value).
        priceFormat: { type: "price", precision: 0, minMove: 1 }, lastValueVisible: false, priceLineVisible: false,
        autoscaleInfoProvider: () => ({ priceRange: { minValue: 0, maxValue: 100 } })
      })
      const neutral = chart.addSeries(LineSeries, { color: c.text, lineWidth: 1, lineStyle: 2, lastValueVisible: false, priceLineVisible: false, crosshairMarkerVisible: false })
      return () => {
        const points = [...props.index.history, { date: props.index.date, score: props.index.score }]
          .filter((p, i, all) => all.findIndex((q) => q.date === p.date) === i)
          .sort((a, b) => a.date.localeCompare(b.date))
          .map((p) => ({ time: p.date, value: Math.round(p.score * 10) / 10 }))
        area.setData(points)
        neutral.setData(points.map((p) => ({ time: p.time, value: 50 })))
      }
    }}
  />
)
