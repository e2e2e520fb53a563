/**
 * A small key-value store with expiry, atomic windowed counters and leases — one contract, two implementations:
 *  - `Kv.redis`  : on the `RedisClient` connection; exact across processes.
 *  - `Kv.memory` : in process, for the embedded default (no REDIS_URL).
 *
 * Keys are named without the prefix; implementations store `prefix + "kv:" + key` and leases `prefix + "lease:" +
 * name`, so the two never collide with each other or with bus streams. Effects have no error channel: a Redis fault
 * is a defect, as is a non-positive ttl (a programming error).
 */
import { Context, Layer } from "effect"
import type { RedisClient } from "./Redis"
import { makeKvMemory } from "./KvMemory"
import { makeKvRedis } from "./KvRedis"
import type { KvShape } from "./KvShape"

export type { KvShape } from "./KvShape"

export class Kv extends Context.Tag("app/Kv")<Kv, KvShape>() {
  /** On the process's `RedisClient`. */
  static readonly redis: Layer.Layer<Kv, never, RedisClient> = Layer.effect(Kv, makeKvRedis)
  /** A fresh in-process store for the scope of the layer (expired keys are swept periodically). */
  static readonly memory: Layer.Layer<Kv> = Layer.scoped(Kv, makeKvMemory)
}
