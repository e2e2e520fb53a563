/**
 * The public, unauthenticated API (spec §4.13): no key, no quota. Each body lives PUBLIC_CACHE_SECONDS per process
 * (`memo`: a body younger than that is answered synchronously; in its last fifth a request starts one recomputation
 * in the background; an expired one is recomputed once while every caller meanwhile awaits it) and is kept serialised. Bodies are `{data, meta}`; `meta`
 * carries the licence (CC-BY-4.0), the attribution and where the numbers come from (`demo` flags the demo chain).
 */
import { Effect } from "effect"
import type { PublicMeta } from "../../../schema/http/analytics"
import { Analytics, topTokensOf } from "../../domains/analytics/Analytics"
import { positioningFor } from "../../domains/analytics/PositioningModel"
import { excludesOf, type Scope } from "../../domains/analytics/Whales"
import { isoWithOffset } from "../../domains/analytics/Windows"
import { AppConfig } from "../../platform/Config"
import { memo } from "../../platform/infra/Memo"
import { Metrics } from "../../platform/ops/Metrics"
import { badgeSvg } from "./Badge"
import { PublicApiConfig } from "./Config"

export const PUBLIC_VIEWS = ["stats", "whale-index", "top-tokens", "whale-accumulation", "badge"] as const
export type PublicView = (typeof PUBLIC_VIEWS)[number]

export const LICENSE_URL = "https://creativecommons.org/licenses/by/4.0/"
/** Public top-tokens size (spec §8). */
export const PUBLIC_TOP_TOKENS = 10

export class PublicApi extends Effect.Service<PublicApi>()("app/PublicApi", {
  dependencies: [Analytics.Default, PublicApiConfig.Default],
  effect: Effect.gen(function* () {
    const analytics = yield* Analytics
    const config = yield* AppConfig
    const metrics = yield* Metrics
    const computations = metrics.counter("analytics_computations_total", "Read-model computations by view (cache misses and refreshes)")
    const { publicCacheSeconds: cacheSeconds } = yield* PublicApiConfig
    const attribution = `Whale Intelligence (${config.publicBaseUrl}), licensed CC-BY-4.0: credit "Whale Intelligence" with a link`

    const data = (view: Exclude<PublicView, "badge">, scope: Scope): Effect.Effect<unknown> => {
      switch (view) {
        case "stats":
          return analytics.stats(scope)
        case "whale-index":
          return analytics.whaleIndex(scope)
        case "top-tokens":
          return analytics.tokenWindow("24H", scope).pipe(Effect.map((rows) => topTokensOf("24H", rows, PUBLIC_TOP_TOKENS, scope)))
        case "whale-accumulation":
          return analytics.positioning(scope).pipe(Effect.map((p) => positioningFor(p, "anon")))
      }
    }

    /** A view per scope (`include=bots` → `all`, a cache entry of its own): key `view` or `view:all`. */
    const compute = (key: string) =>
      Effect.gen(function* () {
        const [view, scope = "whales"] = key.split(":") as [PublicView, Scope?]
        computations.inc({ view, cache: "public" })
        const { source, demo } = yield* analytics.source()
        if (view === "badge") return Buffer.from(badgeSvg(yield* analytics.whaleIndex(), demo))
        const meta: PublicMeta = {
          source, demo, generated_at: isoWithOffset(Date.now()), cache_seconds: cacheSeconds, license: "CC-BY-4.0", attribution,
          excludes: excludesOf(scope)
        }
        return Buffer.from(JSON.stringify({ data: yield* data(view, scope), meta }))
      })
    const keyOf = (view: PublicView, scope: Scope) => (scope === "all" && view !== "badge" ? `${view}:all` : view)

    // Refreshed ahead of expiry (in the last fifth of its life): a client asking steadily never waits for a recompute,
    // and a pipelining one is never given a deferred reply (uWS closes the connection on those).
    const cache = yield* memo({
      ttl: `${cacheSeconds} seconds`, refreshAfter: `${cacheSeconds * 800} millis`, capacity: 2 * PUBLIC_VIEWS.length, compute
    })
    return {
      /** The serialised body of a view (JSON, or the SVG of the badge), whales only unless `scope` is `all`. */
      body: (view: PublicView, scope: Scope = "whales") => cache.get(keyOf(view, scope)),
      /** The body when it can be served now without waiting (see `memo.peek`). */
      peek: (view: PublicView, scope: Scope = "whales") => cache.peek(keyOf(view, scope)),
      cacheSeconds
    } as const
  })
}) {}
