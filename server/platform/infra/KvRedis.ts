/**
 * `Kv` on Redis (see `Kv.ts` for the contract). Counters are one Lua script per call, `INCR` + `EXPIRE … NX` for each
 * key (Redis ≥ 7.0): atomic, so exact across processes, and one command on the wire (a MULTI costs node-redis several
 * times more per call, which shows on hot paths such as the data API's quota). Lease renew/release are compare-and-act Lua scripts, sent by SHA with a fallback to the
 * source when the server's script cache does not have them (after a restart or `SCRIPT FLUSH`).
 */
import { createHash } from "node:crypto"
import { Effect, Option } from "effect"
import type { KvShape } from "./KvShape"
import { type NodeRedis, RedisClient } from "./Redis"

interface Script {
  readonly source: string
  readonly sha: string
}
const script = (source: string): Script => ({ source, sha: createHash("sha1").update(source).digest("hex") })

/** KEYS… counters, ARGV[1] ttl seconds[, ARGV[2] increment] → their new values (the expiry set only where there is none). */
const INCR_WINDOW = script(
  `local by = tonumber(ARGV[2] or '1') local out = {} for i, k in ipairs(KEYS) do out[i] = redis.call('INCRBY', k, by) redis.call('EXPIRE', k, ARGV[1], 'NX') end return out`
)
/** KEYS[1] lease, ARGV[1] holder, ARGV[2] ttl ms → 1 when extended. */
const RENEW = script(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`)
/** KEYS[1] lease, ARGV[1] holder → 1 when deleted. */
const RELEASE = script(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`)

const evalScript = <A = number>(client: NodeRedis, s: Script, keys: ReadonlyArray<string>, args: ReadonlyArray<string>): Promise<A> => {
  const tail = [String(keys.length), ...keys, ...args]
  return client.sendCommand<A>(["EVALSHA", s.sha, ...tail]).catch((error: unknown) => {
    if (error instanceof Error && error.message.startsWith("NOSCRIPT")) return client.sendCommand<A>(["EVAL", s.source, ...tail])
    throw error
  })
}

const positiveInteger = (what: string, n: number) => {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`Kv: ${what} must be a positive integer, got ${n}`)
  return String(n)
}

export const makeKvRedis = Effect.gen(function* () {
  const redis = yield* RedisClient
  const kvKey = (key: string) => redis.key(`kv:${key}`)
  const leaseKey = (name: string) => redis.key(`lease:${name}`)
  const send = <A>(op: string, args: ReadonlyArray<string>) => redis.run(op, (c) => c.sendCommand<A>(args))

  // Plain (no span): this is the data API's per-request quota count.
  const incrWindowAll = (keys: ReadonlyArray<string>, ttlSeconds: number): Effect.Effect<ReadonlyArray<number>> =>
    Effect.suspend(() => {
      const ttl = positiveInteger("ttlSeconds", ttlSeconds)
      if (keys.length === 0) return Effect.succeed([])
      return redis.run("EVALSHA incr window", (c) => evalScript<ReadonlyArray<number>>(c, INCR_WINDOW, keys.map(kvKey), [ttl]))
    })

  const unsafeIncrWindowAll = (keys: ReadonlyArray<string>, ttlSeconds: number, _now: number, by = 1): Promise<ReadonlyArray<number>> => {
    try {
      const args = by === 1 ? [positiveInteger("ttlSeconds", ttlSeconds)] : [positiveInteger("ttlSeconds", ttlSeconds), positiveInteger("by", by)]
      return keys.length === 0 ? Promise.resolve([]) : evalScript<ReadonlyArray<number>>(redis.client, INCR_WINDOW, keys.map(kvKey), args)
    } catch (e) {
      return Promise.reject(e)
    }
  }

  const incrWindow = (key: string, ttlSeconds: number) => Effect.map(incrWindowAll([key], ttlSeconds), (values) => values[0]!)

  const get = Effect.fn("KvRedis.get")(function* (key: string) {
    return Option.fromNullable(yield* send<string | null>("GET", ["GET", kvKey(key)]))
  })

  const set = Effect.fn("KvRedis.set")(function* (key: string, value: string, ttlSeconds?: number) {
    const expiry = ttlSeconds === undefined ? [] : ["EX", positiveInteger("ttlSeconds", ttlSeconds)]
    yield* send("SET", ["SET", kvKey(key), value, ...expiry])
  })

  const del = Effect.fn("KvRedis.del")(function* (key: string) {
    yield* send("DEL", ["DEL", kvKey(key)])
  })

  const ttl = Effect.fn("KvRedis.ttl")(function* (key: string) {
    return yield* send<number>("TTL", ["TTL", kvKey(key)])
  })

  const acquireLease = Effect.fn("KvRedis.acquireLease")(function* (name: string, holder: string, ttlMs: number) {
    const px = positiveInteger("ttlMs", ttlMs)
    const taken = yield* send<string | null>("SET NX PX", ["SET", leaseKey(name), holder, "NX", "PX", px])
    if (taken === "OK") return true
    // Held already: ours (re-entrant, extend it) or someone else's.
    return (yield* redis.run("EVALSHA renew", (c) => evalScript(c, RENEW, [leaseKey(name)], [holder, px]))) === 1
  })

  const renewLease = Effect.fn("KvRedis.renewLease")(function* (name: string, holder: string, ttlMs: number) {
    const px = positiveInteger("ttlMs", ttlMs)
    return (yield* redis.run("EVALSHA renew", (c) => evalScript(c, RENEW, [leaseKey(name)], [holder, px]))) === 1
  })

  const leaseRemainingMs = Effect.fn("KvRedis.leaseRemainingMs")(function* (name: string) {
    return Math.max(0, yield* send<number>("PTTL", ["PTTL", leaseKey(name)]))
  })

  const releaseLease = Effect.fn("KvRedis.releaseLease")(function* (name: string, holder: string) {
    return (yield* redis.run("EVALSHA release", (c) => evalScript(c, RELEASE, [leaseKey(name)], [holder]))) === 1
  })

  const connected = () => redis.client.isReady
  return { kind: "redis", incrWindow, incrWindowAll, unsafeIncrWindowAll, get, set, del, ttl, acquireLease, renewLease, leaseRemainingMs, releaseLease, ping: redis.ping, connected } satisfies KvShape
})
