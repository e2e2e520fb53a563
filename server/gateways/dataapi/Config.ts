/** The keyed data API's settings (its config slice): the daily quota and how it is counted in Redis. */
import { Config, Effect } from "effect"

export class DataApiConfig extends Effect.Service<DataApiConfig>()("app/dataapi/DataApiConfig", {
  effect: Config.all({
    /** Requests per account per UTC day, all of its keys together (spec §8: 25,000 for the whale tier). */
    dailyLimit: Config.integer("API_DAILY_LIMIT").pipe(Config.withDefault(25_000)),
    /** A quota count a connected Redis has not answered within this long falls back to the process-local counter. */
    quotaRedisTimeoutMs: Config.integer("API_QUOTA_REDIS_TIMEOUT_MS").pipe(Config.withDefault(2_000)),
    /** While Redis is failing, it is tried again after this long (requests count locally meanwhile). */
    quotaRetryMs: Config.integer("API_QUOTA_RETRY_MS").pipe(Config.withDefault(1_000)),
    /** The keyed WebSocket feed (/api/v1/stream): a heartbeat frame to every connection this often. */
    streamHeartbeatMs: Config.integer("STREAM_HEARTBEAT_MS").pipe(Config.withDefault(15_000)),
    /** A connection without a key (header or first message) this long after opening is closed (4401). */
    streamAuthTimeoutMs: Config.integer("STREAM_AUTH_TIMEOUT_MS").pipe(Config.withDefault(10_000)),
    /** Frames of one connection waiting for their quota count at most; past it the reader is too slow (4008). */
    streamMaxQueue: Config.integer("STREAM_MAX_QUEUE").pipe(Config.withDefault(5_000)),
    /** Open feeds per account (all of its keys) per server process; one more is closed with 4430 after its key is checked. */
    streamMaxConnectionsPerAccount: Config.integer("STREAM_MAX_CONNECTIONS_PER_ACCOUNT").pipe(Config.withDefault(10))
  })
}) {}
