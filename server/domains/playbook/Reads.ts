/**
 * The read-only views of spec §4.9 beyond the event itself: flow buckets, the live event, patterns, impact,
 * positioning, confluence, search, compare, recovery, signals and fastest movers.
 */
import { Effect } from "effect"
import {
  CATEGORIES, type Figures, type FlowBucket, LiveSnapshot, type RecoveryResult, type SearchQuery
} from "../../../schema/http/playbook"
import { CONSOLE_STREAMS } from "../../../schema/ws"
import type { z } from "zod"
import { Bus } from "../../platform/infra/Bus"
import { Chain } from "../chain/Chain"
import { grossFlow, netFlow, RECOVERY_RULE, recovery } from "./Compare"
import { Engine } from "./Engine"
import { FlowRepo, type RawBucket } from "./FlowRepo"
import { activityRatio, confluence as clusters, gauge, positioningDirection } from "./Outlook"
import { PATTERNS_METHOD, patterns as toPatterns } from "./Patterns"
import { Playbook } from "./Playbook"
import { buckets as bucketSpans, clip, DAY_MS, HOUR_MS, iso, type Span } from "./Spans"
import { cents } from "./Stats"
import { eventView, recordView, summaryView } from "./Views"

const fillBuckets = (s: Span, minutes: number, raw: ReadonlyArray<RawBucket>): Array<FlowBucket> => {
  const byIndex = new Map(raw.map((b) => [b.b, b]))
  return bucketSpans(s, minutes).map((span, i) => {
    const b = byIndex.get(i)
    return {
      start: iso(span.from),
      dex_buy_usd: cents(b?.dex_buy_usd ?? 0),
      dex_sell_usd: cents(b?.dex_sell_usd ?? 0),
      exchange_deposit_usd: cents(b?.exchange_deposit_usd ?? 0),
      exchange_withdraw_usd: cents(b?.exchange_withdraw_usd ?? 0),
      net_flow_usd: cents(b ? netFlow(b) : 0),
      records: b?.records ?? 0
    }
  })
}

export class PlaybookReads extends Effect.Service<PlaybookReads>()("app/playbook/Reads", {
  effect: Effect.gen(function* () {
    const pb = yield* Playbook
    const flows = yield* FlowRepo
    const chain = yield* Chain
    const engine = yield* Engine
    const bus = yield* Bus

    /** Buy/sell/net per bucket over the window (up to now). */
    const flow = Effect.fn("Playbook.flow")(function* (id: number, minutes: number) {
      const r = yield* pb.found(id)
      const w = pb.windowOf(r)
      const s = clip(w.whole, yield* pb.now)
      const buckets = s === null ? [] : fillBuckets(s, minutes, yield* flows.buckets(s, minutes))
      return { event_id: id, bucket_minutes: minutes, from: iso(w.whole.from), to: iso(s?.to ?? w.whole.from), buckets }
    })

    /** The newest snapshot the playbook-live actor published for this event, if any. */
    const liveSnapshot = (eventId: number) =>
      bus.tail(CONSOLE_STREAMS.playbook, 1).pipe(
        Effect.map((entries) => {
          const p = entries[0] ? LiveSnapshot.safeParse(entries[0].payload) : null
          return p?.success && p.data.event_id === eventId ? p.data : null
        })
      )

    const live = Effect.fn("Playbook.live")(function* () {
      const r = yield* pb.live
      if (r === null) return null
      const [metrics, snapshot] = yield* Effect.all([pb.metricsOf(r), liveSnapshot(r.id)])
      return { event: eventView(r), metrics, live: snapshot }
    })

    const patterns = Effect.fn("Playbook.patterns")(function* () {
      const past = yield* pb.pastMetrics()
      const reactions = past.flatMap((p) => (p.metrics ? [{ category: p.row.category, metrics: p.metrics }] : []))
      return { categories: toPatterns(reactions, CATEGORIES), method: PATTERNS_METHOD, as_of: iso(yield* pb.now) }
    })

    const impact = Effect.fn("Playbook.impact")(function* (limit: number) {
      const rows = (yield* pb.all).filter((r) => r.status === "COMPLETED" && r.final_metrics !== null)
      const events = rows
        .map((r) => ({
          event: summaryView(r),
          net_flow_usd: r.final_metrics!.whole.figures.net_flow_usd,
          pre_net_flow_usd: r.final_metrics!.pre.figures.net_flow_usd,
          post_net_flow_usd: r.final_metrics!.post.figures.net_flow_usd
        }))
        .sort((a, b) => Math.abs(b.net_flow_usd) - Math.abs(a.net_flow_usd) || b.event.id - a.event.id)
        .slice(0, limit)
      return { events }
    })

    /** The positioning gauge as of `at` (computed once per slot and events version: see Playbook.slotKey). */
    const positioningAt = Effect.fn("Playbook.positioning")(function* (daysAhead: number, at: number) {
      const upcoming = (yield* pb.all).filter((r) => r.status === "SCHEDULED" && r.ts.getTime() > at && r.ts.getTime() <= at + daysAhead * DAY_MS)
      const spans: ReadonlyArray<Span> = [
        { from: at - 24 * HOUR_MS, to: at },
        { from: at - 72 * HOUR_MS, to: at },
        { from: at - 7 * DAY_MS, to: at }
      ]
      const byScope = new Map<string, ReadonlyArray<Figures>>()
      const events = yield* Effect.forEach(upcoming, (r) =>
        Effect.gen(function* () {
          const scope = [...r.tokens].sort()
          const key = scope.join(",")
          if (!byScope.has(key)) {
            const addrs: ReadonlyArray<string> | null = scope.length === 0 ? null : yield* chain.tokenAddressesBySymbol(scope)
            byScope.set(key, yield* engine.activity(spans, addrs))
          }
          const [d1, d3, d7] = byScope.get(key)!
          const g7 = grossFlow(d7!)
          const w24 = { gross_usd: cents(grossFlow(d1!)), net_flow_usd: d1!.net_flow_usd, ratio: activityRatio(grossFlow(d1!), g7, 24) }
          const w72 = { gross_usd: cents(grossFlow(d3!)), net_flow_usd: d3!.net_flow_usd, ratio: activityRatio(grossFlow(d3!), g7, 72) }
          return {
            event: summaryView(r),
            hours_until: Math.round(((r.ts.getTime() - at) / HOUR_MS) * 100) / 100,
            scope,
            last_24h: w24,
            last_72h: w72,
            direction: positioningDirection(d3!.net_flow_usd, grossFlow(d3!)),
            gauge: gauge(w24.ratio, w72.ratio, grossFlow(d3!) > 0)
          }
        })
      )
      return { as_of: iso(at), days_ahead: daysAhead, events: events.sort((a, b) => a.hours_until - b.hours_until) }
    })
    const positioningSlots = yield* pb.cached((key: string) => {
      const [days, at] = key.split("|").map(Number)
      return positioningAt(days!, at!)
    })
    const positioning = (daysAhead: number) =>
      pb.now.pipe(Effect.flatMap(pb.slotKey), Effect.flatMap((k) => positioningSlots.get(`${daysAhead}|${k}`)))

    const confluence = Effect.fn("Playbook.confluence")(function* (windowDays: number) {
      const at = yield* pb.now
      const rows = yield* pb.all
      const all = clusters(rows.map((r) => ({ id: r.id, ts: r.ts.getTime(), severity: r.severity, row: r })), windowDays).map((c) => ({
        from: iso(c.from),
        to: iso(c.to),
        span_days: Math.round(((c.to - c.from) / DAY_MS) * 100) / 100,
        max_severity: Math.max(...c.events.map((e) => e.severity)),
        events: c.events.map((e) => summaryView(e.row))
      }))
      return {
        window_days: windowDays,
        upcoming: all.filter((c) => Date.parse(c.to) >= at),
        past: all.filter((c) => Date.parse(c.to) < at).reverse()
      }
    })

    const search = Effect.fn("Playbook.search")(function* (q: z.output<typeof SearchQuery>) {
      const needMetrics = q.flow !== undefined || q.sort === "impact"
      const net = new Map<number, number>()
      if (needMetrics) for (const p of yield* pb.pastMetrics()) if (p.metrics) net.set(p.row.id, p.metrics.whole.figures.net_flow_usd)
      else for (const r of yield* pb.all) if (r.final_metrics) net.set(r.id, r.final_metrics.whole.figures.net_flow_usd)
      const text = q.q?.toLowerCase()
      const rows = (yield* pb.all).filter(
        (r) =>
          (text === undefined || text === "" || r.title.toLowerCase().includes(text) || r.description.toLowerCase().includes(text)) &&
          (q.category === undefined || r.category === q.category) &&
          (q.token === undefined || r.tokens.some((t) => t.toUpperCase() === q.token)) &&
          (q.flow === undefined || (q.flow === "inflow" ? (net.get(r.id) ?? 0) > 0 : (net.get(r.id) ?? 0) < 0))
      )
      const sorted = rows.sort((a, b) =>
        q.sort === "severity"
          ? b.severity - a.severity || b.ts.getTime() - a.ts.getTime()
          : q.sort === "impact"
            ? Math.abs(net.get(b.id) ?? 0) - Math.abs(net.get(a.id) ?? 0) || b.ts.getTime() - a.ts.getTime()
            : b.ts.getTime() - a.ts.getTime() || b.id - a.id
      )
      return { events: sorted.slice(0, q.limit).map((r) => ({ ...summaryView(r), net_flow_usd: net.get(r.id) ?? null })) }
    })

    const compare = Effect.fn("Playbook.compare")(function* (a: number, b: number) {
      const [da, db] = yield* Effect.all([pb.detail(a), pb.detail(b)])
      const ma = da.metrics
      const mb = db.metrics
      const differences =
        ma && mb
          ? {
              whole: Object.fromEntries(
                Object.entries(mb.whole.figures).map(([k, v]) => [k, cents(v - ma.whole.figures[k as keyof typeof ma.whole.figures])])
              ) as typeof ma.whole.figures,
              pre_net_flow_usd: cents(mb.pre.figures.net_flow_usd - ma.pre.figures.net_flow_usd),
              post_net_flow_usd: cents(mb.post.figures.net_flow_usd - ma.post.figures.net_flow_usd),
              recovery_hours: ma.recovery_hours === null || mb.recovery_hours === null ? null : mb.recovery_hours - ma.recovery_hours
            }
          : null
      return { a: da, b: db, differences }
    })

    const recoveryOf = Effect.fn("Playbook.recovery")(function* (id: number) {
      const r = yield* pb.found(id)
      const w = pb.windowOf(r)
      const at = yield* pb.now
      const pre = clip(w.pre, at)
      const post = clip(w.post, at)
      const [preFig] = pre === null ? [null] : yield* flows.figures([pre])
      const preNet = preFig ? cents(netFlow(preFig)) : 0
      const hourly = post === null ? [] : fillBuckets(post, 60, yield* flows.buckets(post, 60))
      const rec = recovery(preNet, hourly.map((h) => h.net_flow_usd))
      const result: RecoveryResult = {
        event_id: id,
        pre_net_flow_usd: preNet,
        pre_direction: rec.direction,
        reversal: rec.reversal,
        recovery_hour: rec.hour,
        recovered_at: rec.hour === null ? null : iso(Math.min(w.ts + rec.hour * HOUR_MS, post?.to ?? w.ts)),
        hours: hourly.map((h, i) => ({ hour: i + 1, start: h.start, net_flow_usd: h.net_flow_usd, cumulative_net_flow_usd: rec.cumulative[i]! })),
        rule: RECOVERY_RULE
      }
      return result
    })

    const SIGNAL_HOURS = 6
    const signals = Effect.fn("Playbook.signals")(function* (id: number) {
      const r = yield* pb.found(id)
      const ts = r.ts.getTime()
      const span = clip({ from: ts - SIGNAL_HOURS * HOUR_MS, to: ts }, yield* pb.now)
      if (span === null) return { event_id: id, from: iso(ts - SIGNAL_HOURS * HOUR_MS), to: iso(ts - SIGNAL_HOURS * HOUR_MS), buckets: [], biggest_trades: [], active_wallets: [] }
      const [raw, biggest, wallets] = yield* Effect.all([flows.buckets(span, 30), chain.biggestRecordsIn(span, 10), flows.activeWallets(span, 10)])
      return {
        event_id: id,
        from: iso(span.from),
        to: iso(span.to),
        buckets: fillBuckets(span, 30, raw),
        biggest_trades: biggest.map((x) => recordView(x, ts)),
        active_wallets: wallets.map((x) => ({
          wallet: x.wallet, label: x.label, records: x.records, dex_buy_usd: cents(x.dex_buy_usd), dex_sell_usd: cents(x.dex_sell_usd), net_flow_usd: cents(x.net)
        }))
      }
    })

    const fastest = Effect.fn("Playbook.fastest")(function* (id: number, limit: number) {
      const r = yield* pb.found(id)
      const span = clip(pb.windowOf(r).post, yield* pb.now)
      const rows = span === null ? [] : yield* chain.firstRecordsIn(span, limit)
      return { event_id: id, trades: rows.map((x) => recordView(x, r.ts.getTime())) }
    })

    return {
      flow, live, patterns, impact, positioning, confluence, search, compare, recovery: recoveryOf, signals, fastest,
      positioningComputations: () => positioningSlots.computations()
    } as const
  })
}) {}
