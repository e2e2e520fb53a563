/**
 * The read models as served by the keyed data API, MCP and the console: computed by `Analytics`, kept for
 * ANALYTICS_CACHE_SECONDS in process (`memo`: synchronous fresh hits; stale-while-revalidate up to
 * ANALYTICS_MAX_STALE_SECONDS, so keyed requests never wait for a recomputation once warm; one computation per key at
 * a time), each with its JSON text so envelopes are built without serialising again.
 */
import { Effect } from "effect"
import type { Positioning, Stats, Timeframe, TopTokens, WhaleIndex } from "../../../schema/http/analytics"
import type { FlowsData } from "../../../schema/http/dataapi"
import type { Tier } from "../../../schema/tiers"
import { memo } from "../../platform/infra/Memo"
import { Metrics } from "../../platform/ops/Metrics"
import { Analytics, flowsOf, topTokensOf } from "./Analytics"
import { AnalyticsConfig } from "./Config"
import { positioningFor } from "./PositioningModel"

export interface Cached<A> {
  readonly value: A
  /** `JSON.stringify(value)`. */
  readonly json: string
  /** `json` as UTF-8, so hot paths write it without encoding it again. */
  readonly bytes: Buffer
}

export const cached = <A>(value: A): Cached<A> => {
  const json = JSON.stringify(value)
  return { value, json, bytes: Buffer.from(json) }
}

export class ReadModels extends Effect.Service<ReadModels>()("app/ReadModels", {
  dependencies: [Analytics.Default, AnalyticsConfig.Default],
  effect: Effect.gen(function* () {
    const analytics = yield* Analytics
    const config = yield* AnalyticsConfig
    const metrics = yield* Metrics
    const computations = metrics.counter("analytics_computations_total", "Read-model computations by view (cache misses and refreshes)")
    const ttl = `${config.cacheSeconds} seconds` as const
    const maxStale = `${Math.max(config.cacheSeconds, config.maxStaleSeconds)} seconds` as const
    const counted = <A, E, R>(view: string, effect: Effect.Effect<A, E, R>) =>
      Effect.suspend(() => {
        computations.inc({ view, cache: "read-models" })
        return effect
      })

    const stats = yield* memo({ ttl, maxStale, capacity: 1, compute: (_: "stats") => counted("stats", analytics.stats().pipe(Effect.map(cached))) })
    const index = yield* memo({ ttl, maxStale, capacity: 1, compute: (_: "index") => counted("index", analytics.whaleIndex().pipe(Effect.map(cached))) })
    const source = yield* memo({ ttl, maxStale, capacity: 1, compute: (_: "source") => counted("source", analytics.source()) })
    const windows = yield* memo({ ttl, maxStale, capacity: 3, compute: (tf: Timeframe) => counted(`window_${tf}`, analytics.tokenWindow(tf)) })
    const full = yield* memo({ ttl, maxStale, capacity: 1, compute: (_: "full") => counted("positioning", analytics.positioning()) })
    const positioningViews = yield* memo({
      ttl, maxStale, capacity: 8, compute: (tier: Tier) => full.get("full").pipe(Effect.map((p) => cached(positioningFor(p, tier))))
    })
    const tops = yield* memo({
      ttl, maxStale, capacity: 512,
      compute: (key: string) => {
        const [tf, limit] = key.split(":") as [Timeframe, string]
        return windows.get(tf).pipe(Effect.map((rows) => cached(topTokensOf(tf, rows, Number(limit)))))
      }
    })
    const flows = yield* memo({
      ttl, maxStale, capacity: 512,
      compute: (key: string) => {
        const [tf, limit, token] = key.split("\u0000") as [Timeframe, string, string]
        return Effect.gen(function* () {
          const filter = token === "" ? undefined : new Set(yield* analytics.resolveTokens(token))
          return cached(flowsOf(tf, yield* windows.get(tf), Number(limit), filter))
        })
      }
    })

    const topsKey = (tf: Timeframe, limit: number) => `${tf}:${limit}`
    const flowsKey = (tf: Timeframe, limit: number, token?: string) => `${tf}\u0000${limit}\u0000${token ?? ""}`

    /** Drops every cached view (a reorg retracted records they were computed from): the next read recomputes. */
    const invalidateAll = Effect.all([stats, index, source, windows, full, positioningViews, tops, flows].map((m) => m.invalidateAll), { discard: true })

    return {
      invalidateAll,
      /** The same models without Effect, for request hot paths: what may be served now, else undefined (see `memo.peek`). */
      peek: {
        stats: () => stats.peek("stats"),
        whaleIndex: () => index.peek("index"),
        source: () => source.peek("source"),
        topTokens: (tf: Timeframe, limit: number) => tops.peek(topsKey(tf, limit)),
        flows: (tf: Timeframe, limit: number, token?: string) => flows.peek(flowsKey(tf, limit, token)),
        positioning: (tier: Tier) => positioningViews.peek(tier)
      },
      stats: (): Effect.Effect<Cached<Stats>> => stats.get("stats"),
      whaleIndex: (): Effect.Effect<Cached<WhaleIndex>> => index.get("index"),
      /** `{ source, demo }` of the last 7 days of records. */
      source: () => source.get("source"),
      topTokens: (tf: Timeframe, limit: number): Effect.Effect<Cached<TopTokens>> => tops.get(topsKey(tf, limit)),
      flows: (tf: Timeframe, limit: number, token?: string): Effect.Effect<Cached<FlowsData>> => flows.get(flowsKey(tf, limit, token)),
      /** Positioning as the tier may see it (spec §4.5). */
      positioning: (tier: Tier): Effect.Effect<Cached<Positioning>> => positioningViews.get(tier)
    } as const
  })
}) {}
