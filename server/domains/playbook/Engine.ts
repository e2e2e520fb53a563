/**
 * Computes an event's metrics from the roll-ups (FlowRepo): its window, pre and post halves, each against the
 * 7-day baseline (ratio) and the matched non-event windows (z-score), the top tokens and the recovery point. All
 * the spans' figures come from one statement. A running window is measured up to `now`, and so are its baseline
 * and matched windows (the same elapsed length).
 */
import { Effect } from "effect"
import { type EventCategory, type EventMetrics, type Figures, HIGH_SEVERITY, type SpanMetrics } from "../../../schema/http/playbook"
import { figures as toFigures, meanFigures, ratios, recovery, ZERO, zScores } from "./Compare"
import { FlowRepo } from "./FlowRepo"
import { PlaybookRepo } from "./Repo"
import {
  baselineSlots, clip, eventWindow, HOUR_MS, iso, matchedWeeks, shift, type Span, spanLength, WEEK_MS, windowSize, type WindowOverrides
} from "./Spans"
import { cents } from "./Stats"

export interface Measured {
  readonly id: number
  readonly ts: number
  readonly category: EventCategory
}

const TOP_TOKENS = 5
const MATCHED_WEEKS = 8

export class Engine extends Effect.Service<Engine>()("app/playbook/Engine", {
  effect: Effect.gen(function* () {
    const flows = yield* FlowRepo
    const repo = yield* PlaybookRepo

    /** Metrics of an event as of `now`, or null before its window opens. */
    const compute = Effect.fn("Playbook.metrics")(function* (e: Measured, now: number, overrides: WindowOverrides) {
      const w = eventWindow(e.ts, windowSize(e.category, overrides))
      const whole = clip(w.whole, now)
      if (whole === null) return null
      const parts: ReadonlyArray<Span | null> = [whole, clip(w.pre, now), clip(w.post, now)]
      const [dataSince, others] = yield* Effect.all([
        flows.dataSince,
        repo.highSeverityTimestamps(new Date(w.whole.from - MATCHED_WEEKS * WEEK_MS), new Date(w.whole.to), e.id, HIGH_SEVERITY)
      ])
      const matched = matchedWeeks(w.whole, others, dataSince, MATCHED_WEEKS)
      // One list of spans: [whole, pre, post], then per part its baseline slots and its matched windows.
      const spans: Array<Span> = []
      const layout = parts.map((p) => {
        if (p === null) return null
        const at = spans.push(p) - 1
        const slots = baselineSlots(w.whole.from, spanLength(p), dataSince)
        const b0 = spans.length
        for (const slot of slots) spans.push(slot)
        const m0 = spans.length
        for (const k of matched.weeks) spans.push(shift(p, -k * WEEK_MS))
        return { at, b: [b0, m0] as const, m: [m0, spans.length] as const }
      })
      const postSpan = parts[2]!
      const [raw, tops, hourly] = yield* Effect.all(
        [
          flows.figures(spans),
          Effect.all(parts.map((p) => (p === null ? Effect.succeed([]) : flows.topTokens(p, TOP_TOKENS)))),
          postSpan === null ? Effect.succeed([]) : flows.buckets(postSpan, 60)
        ],
        { concurrency: 3 }
      )
      const fig = raw.map(toFigures)
      const span = (i: number): SpanMetrics => {
        const l = layout[i]
        const p = parts[i]
        if (l === null || l === undefined || p === null || p === undefined) {
          const at = i === 2 ? w.post.from : w.pre.from
          return { from: iso(at), to: iso(at), figures: ZERO, baseline: null, ratio: ratios(ZERO, null), z: zScores(ZERO, []), top_tokens: [] }
        }
        const value = fig[l.at]!
        const baseline = meanFigures(fig.slice(l.b[0], l.b[1]))
        return {
          from: iso(p.from),
          to: iso(p.to),
          figures: value,
          baseline,
          ratio: ratios(value, baseline),
          z: zScores(value, fig.slice(l.m[0], l.m[1])),
          top_tokens: tops[i]!.map((t) => ({
            token: t.token, symbol: t.symbol, net_flow_usd: cents(t.net), dex_buy_usd: cents(t.dex_buy_usd), dex_sell_usd: cents(t.dex_sell_usd)
          }))
        }
      }
      const pre = span(1)
      let recoveryHours: number | null = null
      if (postSpan !== null) {
        const nets = new Array<number>(Math.ceil(spanLength(postSpan) / HOUR_MS)).fill(0)
        for (const b of hourly) nets[b.b] = b.dex_buy_usd - b.dex_sell_usd + b.exchange_withdraw_usd - b.exchange_deposit_usd
        recoveryHours = recovery(pre.figures.net_flow_usd, nets).hour
      }
      const metrics: EventMetrics = {
        event_id: e.id,
        window: {
          from: iso(w.whole.from), to: iso(w.whole.to), pre_hours: w.size.preHours, post_hours: w.size.postHours,
          complete: now >= w.whole.to, as_of: iso(Math.min(now, w.whole.to))
        },
        whole: span(0),
        pre,
        post: span(2),
        baseline_slots: layout[0] ? layout[0].b[1] - layout[0].b[0] : 0,
        matched_windows: { used: matched.weeks.length, excluded: matched.excluded.length, weeks: MATCHED_WEEKS },
        recovery_hours: recoveryHours,
        computed_at: iso(now)
      }
      return metrics
    })

    /** Whole-window figures of spans (the positioning gauge's recent activity), optionally narrowed to tokens. */
    const activity = (spans: ReadonlyArray<Span>, tokens: ReadonlyArray<string> | null) =>
      flows.figures(spans, tokens).pipe(Effect.map((rows) => rows.map(toFigures) as ReadonlyArray<Figures>))

    return { compute, activity } as const
  })
}) {}
