/** The keyed data API's settings (its config slice): the daily quota and how it is counted in Redis. */
import { Config, Effect } from "effect"

export class DataApiConfig extends Effect.Service<DataApiConfig>()("app/dataapi/DataApiConfig", {
  effect: Config.all({
    /** Requests per account per UTC day, all of its keys together (spec §8: 25,000 for the whale tier). */
    dailyLimit: Config.integer("API_DAILY_LIMIT").pipe(Config.withDefault(25_000)),
    /** A quota count a connected Redis has not answered within this long falls back to the process-local counter. */
    quotaRedisTimeoutMs: Config.integer("API_QUOTA_REDIS_TIMEOUT_MS").pipe(Config.withDefault(2_000)),
    /** While Redis is failing, it is tried again after this long (requests count locally meanwhile). */
    quotaRetryMs: Config.integer("API_QUOTA_RETRY_MS").pipe(Config.withDefault(1_000))
  })
}) {}
