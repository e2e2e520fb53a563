/**
 * Whale reaction patterns per event category, from the metrics of past events (pure). Honest beats impressive:
 * when the bootstrap 95 % interval of the mean post-event net flow spans zero the verdict is "no measurable effect".
 */
import type { CategoryPattern, EventCategory, EventMetrics } from "../../../schema/http/playbook"
import { bootstrapMeanCi, cents, mean, median, round } from "./Stats"

export interface PastReaction {
  readonly category: EventCategory
  readonly metrics: EventMetrics
}

export const PATTERNS_METHOD =
  "Per category, over past events whose window has ended: mean and median net flow of the pre half (24 h before) and " +
  "the post half (48 h after) and of their z-scores against matched non-event windows; hit rate = share of events " +
  "with post-event net flow > 0 (whales net buying after); the mean without the event of largest |post net flow|; a " +
  "percentile bootstrap 95 % interval of the mean post net flow (2000 resamples, fixed seed); median recovery hours; " +
  "the tokens with the largest summed |net flow| over the windows. An interval that spans zero reads " +
  "\"no measurable effect\"; fewer than 2 events read \"insufficient data\"."

const side = (ms: ReadonlyArray<EventMetrics>, half: "pre" | "post") => {
  const nets = ms.map((m) => m[half].figures.net_flow_usd)
  const zs = ms.map((m) => m[half].z.net_flow_usd).filter((z): z is number => z !== null)
  const r = (x: number | null, f: (n: number) => number) => (x === null ? null : f(x))
  return {
    mean_net_flow_usd: r(mean(nets), cents),
    median_net_flow_usd: r(median(nets), cents),
    mean_z: r(mean(zs), round),
    median_z: r(median(zs), round)
  }
}

export const categoryPattern = (category: EventCategory, ms: ReadonlyArray<EventMetrics>, topN = 5): CategoryPattern => {
  const post = ms.map((m) => m.post.figures.net_flow_usd)
  const n = ms.length
  let withoutLargest: number | null = null
  if (n >= 2) {
    let largest = 0
    for (let i = 1; i < n; i++) if (Math.abs(post[i]!) > Math.abs(post[largest]!)) largest = i
    withoutLargest = cents(mean(post.filter((_, i) => i !== largest))!)
  }
  const ci = bootstrapMeanCi(post)
  const ci95 = ci === null ? null : ([cents(ci[0]), cents(ci[1])] as [number, number])
  const verdict: CategoryPattern["verdict"] =
    ci95 === null ? "insufficient data" : ci95[0] <= 0 && ci95[1] >= 0 ? "no measurable effect" : ci95[0] > 0 ? "net buying after" : "net selling after"
  const tokens = new Map<string, { net: number; events: number }>()
  for (const m of ms)
    for (const t of m.whole.top_tokens) {
      const e = tokens.get(t.symbol) ?? { net: 0, events: 0 }
      e.net += t.net_flow_usd
      e.events += 1
      tokens.set(t.symbol, e)
    }
  const top_tokens = [...tokens.entries()]
    .map(([symbol, e]) => ({ symbol, net_flow_usd: cents(e.net), events: e.events }))
    .sort((a, b) => Math.abs(b.net_flow_usd) - Math.abs(a.net_flow_usd) || a.symbol.localeCompare(b.symbol))
    .slice(0, topN)
  const rec = ms.map((m) => m.recovery_hours).filter((h): h is number => h !== null)
  return {
    category,
    n,
    pre: side(ms, "pre"),
    post: side(ms, "post"),
    hit_rate: n === 0 ? null : round(post.filter((x) => x > 0).length / n),
    mean_post_net_without_largest: withoutLargest,
    ci95,
    median_recovery_hours: median(rec),
    top_tokens,
    verdict
  }
}

/** One pattern per category that has past events, in the documented category order. */
export const patterns = (reactions: ReadonlyArray<PastReaction>, order: ReadonlyArray<EventCategory>): Array<CategoryPattern> =>
  order
    .map((c) => categoryPattern(c, reactions.filter((r) => r.category === c).map((r) => r.metrics)))
    .filter((p) => p.n > 0)
