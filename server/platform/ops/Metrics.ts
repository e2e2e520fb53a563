/**
 * A small Prometheus registry: counters, gauges and histograms with labels, rendered as text exposition format.
 * Gauges may be collected lazily (actor stats, bus and pool figures are read when /metrics is scraped).
 */
import { Effect } from "effect"

type Labels = Readonly<Record<string, string | number>>

const keyCache = new Map<string, string>()

/** Label sets repeat (route × method × status): their rendered form is cached by a cheap join of the values. */
const labelKey = (labels: Labels) => {
  let probe = ""
  for (const k in labels) probe += k + "\u0000" + labels[k] + "\u0001"
  const hit = keyCache.get(probe)
  if (hit !== undefined) return hit
  const rendered = renderLabels(labels)
  if (keyCache.size < 50_000) keyCache.set(probe, rendered)
  return rendered
}

const renderLabels = (labels: Labels) => {
  const keys = Object.keys(labels)
  if (keys.length === 0) return ""
  return "{" + keys.sort().map((k) => `${k}="${String(labels[k]).replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`).join(",") + "}"
}

export interface Sample { readonly labels: Labels; readonly value: number }

/** One labelled sample of a counter or gauge, kept by hot paths so a count is one addition. */
export interface Cell { value: number }

class Family {
  readonly values = new Map<string, Cell>()
  constructor(readonly name: string, readonly help: string, readonly type: "counter" | "gauge") {}
  /** The sample of these labels (created at 0). */
  cell(labels: Labels = {}): Cell {
    const k = labelKey(labels)
    let c = this.values.get(k)
    if (c === undefined) {
      c = { value: 0 }
      this.values.set(k, c)
    }
    return c
  }
  inc(labels: Labels = {}, by = 1) {
    this.cell(labels).value += by
  }
  set(labels: Labels, value: number) {
    this.cell(labels).value = value
  }
  render(out: Array<string>) {
    out.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} ${this.type}`)
    for (const [k, c] of this.values) out.push(`${this.name}${k} ${c.value}`)
  }
}

/** One labelled series of a histogram. */
export interface Series { readonly labels: Labels; readonly counts: Array<number>; sum: number; count: number }

export const DEFAULT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const

class Histogram {
  private readonly series = new Map<string, Series>()
  constructor(readonly name: string, readonly help: string, readonly buckets: ReadonlyArray<number> = DEFAULT_BUCKETS) {}
  /** The series of these labels (created empty), for `record`. */
  seriesOf(labels: Labels): Series {
    const k = labelKey(labels)
    let s = this.series.get(k)
    if (!s) {
      s = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 }
      this.series.set(k, s)
    }
    return s
  }
  /** Adds one observation to a series of this histogram. */
  record(s: Series, value: number) {
    for (let i = 0; i < this.buckets.length; i++) if (value <= this.buckets[i]!) s.counts[i]!++
    s.sum += value
    s.count++
  }
  observe(labels: Labels, value: number) {
    this.record(this.seriesOf(labels), value)
  }
  render(out: Array<string>) {
    out.push(`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`)
    for (const s of this.series.values()) {
      this.buckets.forEach((b, i) => out.push(`${this.name}_bucket${labelKey({ ...s.labels, le: b })} ${s.counts[i]}`))
      out.push(`${this.name}_bucket${labelKey({ ...s.labels, le: "+Inf" })} ${s.count}`)
      out.push(`${this.name}_sum${labelKey(s.labels)} ${s.sum}`, `${this.name}_count${labelKey(s.labels)} ${s.count}`)
    }
  }
}

/** A gauge family whose samples are computed at scrape time. */
export interface Collector {
  readonly name: string
  readonly help: string
  readonly type: "gauge" | "counter"
  readonly collect: Effect.Effect<ReadonlyArray<Sample>>
}

export class Metrics extends Effect.Service<Metrics>()("app/Metrics", {
  sync: () => {
    const families = new Map<string, Family | Histogram>()
    const collectors: Array<Collector> = []
    const family = <F extends Family | Histogram>(name: string, make: () => F): F => {
      const existing = families.get(name)
      if (existing) return existing as F
      const f = make()
      families.set(name, f)
      return f
    }
    return {
      counter: (name: string, help: string) => family(name, () => new Family(name, help, "counter")),
      gauge: (name: string, help: string) => family(name, () => new Family(name, help, "gauge")),
      histogram: (name: string, help: string, buckets?: ReadonlyArray<number>) => family(name, () => new Histogram(name, help, buckets)),
      /** Register a family computed at scrape time. */
      collect: (collector: Collector) => {
        collectors.push(collector)
      },
      render: Effect.gen(function* () {
        const out: Array<string> = []
        for (const f of families.values()) f.render(out)
        for (const c of collectors) {
          const samples = yield* c.collect.pipe(Effect.catchAllCause(() => Effect.succeed([] as ReadonlyArray<Sample>)))
          out.push(`# HELP ${c.name} ${c.help}`, `# TYPE ${c.name} ${c.type}`)
          for (const s of samples) out.push(`${c.name}${labelKey(s.labels)} ${s.value}`)
        }
        return out.join("\n") + "\n"
      })
    } as const
  }
}) {}
