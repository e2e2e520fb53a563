/** The bus layer for this process: Redis Streams with REDIS_URL, the in-process bus without. Kv goes the same way. */
import { Effect, Layer, Redacted } from "effect"
import { AppConfig } from "../Config"
import { BusMemory } from "./BusMemory"
import { BusRedis } from "./BusRedis"
import { Kv } from "./Kv"
import { RedisClient } from "./Redis"

export const BusAndKvLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const config = yield* AppConfig
    if (!config.redisUrl) {
      yield* Effect.logInfo("no REDIS_URL: in-process stream bus (single process only)")
      return Layer.merge(BusMemory.layer, Kv.memory)
    }
    const redis = RedisClient.layer({ url: Redacted.value(config.redisUrl), prefix: config.redisPrefix }).pipe(Layer.orDie)
    return Layer.merge(BusRedis.layer(), Kv.redis).pipe(Layer.provide(redis))
  })
)
