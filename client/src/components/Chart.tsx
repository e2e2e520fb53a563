/**
 * A lightweight-charts chart bound to a Solid component: created on mount in the console's colours, sized to its
 * container, redrawn by `draw` whenever what it reads changes, removed on cleanup.
 */
import { createChart, ColorType, type DeepPartial, type ChartOptions, type IChartApi } from "lightweight-charts"
import { createEffect, onCleanup, onMount, type Component } from "solid-js"

const cssVar = (name: string, fallback: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback

export const chartColors = () => ({
  text: cssVar("--muted", "#8b98a9"),
  grid: cssVar("--grid", "#1f2a37"),
  pos: cssVar("--pos", "#22c55e"),
  neg: cssVar("--neg", "#ef4444"),
  accent: cssVar("--accent", "#38bdf8")
})

export interface ChartProps {
  /** Builds the series once; returns the function that (re)fills them — it runs in a reactive effect. */
  readonly setup: (chart: IChartApi) => () => void
  readonly height?: number
  readonly label: string
  readonly options?: DeepPartial<ChartOptions>
}

export const Chart: Component<ChartProps> = (props) => {
  let el!: HTMLDivElement
  onMount(() => {
    const c = chartColors()
    const chart = createChart(el, {
      autoSize: true,
      layout: { background: { type: ColorType.Solid, color: "transparent" }, textColor: c.text, fontFamily: "inherit", attributionLogo: false },
      grid: { vertLines: { color: c.grid }, horzLines: { color: c.grid } },
      rightPriceScale: { borderColor: c.grid },
      timeScale: { borderColor: c.grid, timeVisible: true },
      crosshair: { mode: 0 },
      ...props.options
    })
    const draw = props.setup(chart)
    createEffect(() => {
      draw()
      chart.timeScale().fitContent()
    })
    onCleanup(() => chart.remove())
  })
  return <div ref={el} class="chart" style={{ height: `${props.height ?? 240}px` }} role="img" aria-label={props.label} />
}
