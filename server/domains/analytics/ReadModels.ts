/**
 * The read models as served by the keyed data API, MCP and the console: computed by `Analytics`, kept for
 * ANALYTICS_CACHE_SECONDS in process (`memo`: synchronous fresh hits; stale-while-revalidate up to
 * ANALYTICS_MAX_STALE_SECONDS, so keyed requests never wait for a recomputation once warm; one computation per key at
 * a time), each with its JSON text so envelopes are built without serialising again.
 *
 * Each model is kept per scope (`whales`, the default, or `all` for `include=bots`; Whales.ts), so the figures with
 * bots are a second cache entry, never a recomputation of the whales' one.
 */
import { Effect } from "effect"
import type { Positioning, Stats, Timeframe, TopTokens, WhaleIndex } from "../../../schema/http/analytics"
import type { FlowsData } from "../../../schema/http/dataapi"
import type { Tier } from "../../../schema/tiers"
import { memo } from "../../platform/infra/Memo"
import { Metrics } from "../../platform/ops/Metrics"
import { spanned } from "../../platform/ops/Spans"
import { Analytics, flowsOf, topTokensOf } from "./Analytics"
import { AnalyticsConfig } from "./Config"
import { positioningFor } from "./PositioningModel"
import type { Scope } from "./Whales"

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
      }).pipe(Effect.withSpan("ReadModels.compute", { attributes: { view } }))

    const stats = yield* memo({ ttl, maxStale, capacity: 2, compute: (scope: Scope) => counted("stats", analytics.stats(scope).pipe(Effect.map(cached))) })
    const index = yield* memo({ ttl, maxStale, capacity: 2, compute: (scope: Scope) => counted("index", analytics.whaleIndex(scope).pipe(Effect.map(cached))) })
    const source = yield* memo({ ttl, maxStale, capacity: 1, compute: (_: "source") => counted("source", analytics.source()) })
    const windows = yield* memo({
      ttl, maxStale, capacity: 6,
      compute: (key: string) => {
        const [tf, scope] = key.split(":") as [Timeframe, Scope]
        return counted(`window_${tf}`, analytics.tokenWindow(tf, scope))
      }
    })
    const full = yield* memo({ ttl, maxStale, capacity: 2, compute: (scope: Scope) => counted("positioning", analytics.positioning(scope)) })
    const positioningViews = yield* memo({
      ttl, maxStale, capacity: 16,
      compute: (key: string) => {
        const [tier, scope] = key.split(":") as [Tier, Scope]
        return full.get(scope).pipe(Effect.map((p) => cached(positioningFor(p, tier))))
      }
    })
    const tops = yield* memo({
      ttl, maxStale, capacity: 512,
      compute: (key: string) => {
        const [tf, limit, scope] = key.split(":") as [Timeframe, string, Scope]
        return windows.get(`${tf}:${scope}`).pipe(Effect.map((rows) => cached(topTokensOf(tf, rows, Number(limit), scope))))
      }
    })
    const flows = yield* memo({
      ttl, maxStale, capacity: 512,
      compute: (key: string) => {
        const [tf, limit, token, scope] = key.split("\u0000") as [Timeframe, string, string, Scope]
        return Effect.gen(function* () {
          const filter = token === "" ? undefined : new Set(yield* analytics.resolveTokens(token))
          return cached(flowsOf(tf, yield* windows.get(`${tf}:${scope}`), Number(limit), filter, scope))
        })
      }
    })

    const topsKey = (tf: Timeframe, limit: number, scope: Scope) => `${tf}:${limit}:${scope}`
    const flowsKey = (tf: Timeframe, limit: number, token: string | undefined, scope: Scope) => `${tf}\u0000${limit}\u0000${token ?? ""}\u0000${scope}`

    /** Drops every cached view (a reorg retracted records they were computed from): the next read recomputes. */
    const invalidateAll = Effect.all([stats, index, source, windows, full, positioningViews, tops, flows].map((m) => m.invalidateAll), { discard: true })

    // Each Effect method a span (`ReadModels.stats`, …); `peek` stays synchronous, for the request hot paths.
    return spanned("ReadModels", {
      invalidateAll,
      /** The same models without Effect, for request hot paths: what may be served now, else undefined (see `memo.peek`). */
      peek: {
        stats: (scope: Scope = "whales") => stats.peek(scope),
        whaleIndex: (scope: Scope = "whales") => index.peek(scope),
        source: () => source.peek("source"),
        topTokens: (tf: Timeframe, limit: number, scope: Scope = "whales") => tops.peek(topsKey(tf, limit, scope)),
        flows: (tf: Timeframe, limit: number, token?: string, scope: Scope = "whales") => flows.peek(flowsKey(tf, limit, token, scope)),
        positioning: (tier: Tier, scope: Scope = "whales") => positioningViews.peek(`${tier}:${scope}`)
      },
      stats: (scope: Scope = "whales"): Effect.Effect<Cached<Stats>> => stats.get(scope),
      whaleIndex: (scope: Scope = "whales"): Effect.Effect<Cached<WhaleIndex>> => index.get(scope),
      /** `{ source, demo }` of the last 7 days of records. */
      source: () => source.get("source"),
      topTokens: (tf: Timeframe, limit: number, scope: Scope = "whales"): Effect.Effect<Cached<TopTokens>> => tops.get(topsKey(tf, limit, scope)),
      flows: (tf: Timeframe, limit: number, token?: string, scope: Scope = "whales"): Effect.Effect<Cached<FlowsData>> =>
        flows.get(flowsKey(tf, limit, token, scope)),
      /** Positioning as the tier may see it (spec §4.5). */
      positioning: (tier: Tier, scope: Scope = "whales"): Effect.Effect<Cached<Positioning>> => positioningViews.get(`${tier}:${scope}`)
    } as const)
  })
}) {}
