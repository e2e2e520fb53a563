/** The analytics domain's settings (its config slice): read-model caching and the index-closer's schedule. */
import { Config, Effect } from "effect"

export class AnalyticsConfig extends Effect.Service<AnalyticsConfig>()("app/analytics/AnalyticsConfig", {
  effect: Config.all({
    /** How long computed read models are reused by the keyed API, MCP and the console (stale-while-revalidate). */
    cacheSeconds: Config.integer("ANALYTICS_CACHE_SECONDS").pipe(Config.withDefault(10)),
    /** How old a read model may be and still be served while one refresh runs (at least the cache time). */
    maxStaleSeconds: Config.integer("ANALYTICS_MAX_STALE_SECONDS").pipe(Config.withDefault(60)),
    /** The index-closer stores a day's close this long after the UTC day ends (late blocks land first). */
    indexCloseDelaySeconds: Config.integer("INDEX_CLOSE_DELAY_SECONDS").pipe(Config.withDefault(120)),
    /** How often the index-closer looks for days without a stored close (and backfills them). */
    indexCheckSeconds: Config.integer("INDEX_CHECK_SECONDS").pipe(Config.withDefault(600))
  })
}) {}
