/** Net flow per bucket as a histogram (inflow green, outflow red), optionally with a cumulative line. */
import { HistogramSeries, LineSeries, type UTCTimestamp } from "lightweight-charts"
import type { Component } from "solid-js"
import type { FlowBucket } from "../../../../schema/http/playbook"
import { Chart, chartColors } from "../../components/Chart"
import { chartFormat } from "../../lib/format"

export const FlowChart: Component<{ buckets: ReadonlyArray<FlowBucket>; label: string; height?: number; cumulative?: boolean }> = (props) => (
  <Chart
    label={props.label}
    height={props.height ?? 220}
    setup={(chart) => {
      const c = chartColors()
      const bars = chart.addSeries(HistogramSeries, { priceFormat: chartFormat.flow, priceLineVisible: false, lastValueVisible: false })
      const line = props.cumulative ? chart.addSeries(LineSeries, { color: c.accent, lineWidth: 2, priceFormat: chartFormat.flow, priceLineVisible: false }) : null
      return () => {
        const seen = new Set<number>()
        const points = props.buckets
          .map((b) => ({ time: Math.floor(Date.parse(b.start) / 1000) as UTCTimestamp, value: b.net_flow_usd }))
          .filter((p) => (seen.has(p.time) ? false : (seen.add(p.time), true)))
        bars.setData(points.map((p) => ({ ...p, color: p.value >= 0 ? c.pos : c.neg })))
        if (line) {
          let sum = 0
          line.setData(points.map((p) => ({ time: p.time, value: (sum += p.value) })))
        }
      }
    }}
  />
)
