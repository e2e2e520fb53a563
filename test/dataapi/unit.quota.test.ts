/**
 * The daily quota under a controlled clock (Effect's TestClock): two Quota instances (two processes) sharing one
 * counter store count one account together, refuse past 25,000, and start afresh at 00:00 UTC with the reset time
 * and Retry-After following the clock. Runs on the in-process Kv, and on Redis when REDIS_URL is set. Also the
 * Redis-down path with a store that reports itself disconnected.
 */
import { randomBytes } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Context, Effect, Layer, Option, TestClock } from "effect"
import { AppConfig } from "../../server/platform/Config"
import { FRESH_MS, Quota, quotaKey, syncMargin } from "../../server/gateways/dataapi/Quota"
import { Kv, type KvShape } from "../../server/platform/infra/Kv"
import { RedisClient } from "../../server/platform/infra/Redis"
import { Metrics } from "../../server/platform/ops/Metrics"
import { dropRedisPrefix, realRedisUrl } from "../support/env"

const CONFIG = ConfigProvider.fromMap(new Map([
  ["SESSION_SECRET", "s".repeat(32)], ["INTERNAL_SECRET", "i".repeat(32)], ["INBOUND_EMAIL_SECRET", "e".repeat(32)],
  ["DATA_DIR", "/tmp/whale-quota-unit"], ["API_QUOTA_RETRY_MS", "1000"]
]))
const base = Layer.mergeAll(AppConfig.Default, Metrics.Default).pipe(Layer.provide(Layer.setConfigProvider(CONFIG)))

/** Two independent Quota instances on the same Kv. */
const twoInstances = Effect.gen(function* () {
  const one = yield* Layer.build(Layer.fresh(Quota.Default))
  const two = yield* Layer.build(Layer.fresh(Quota.Default))
  return [Context.get(one, Quota), Context.get(two, Quota)] as const
})

const at = (iso: string) => TestClock.setTime(Date.parse(iso))

const midnightScenario = (kvLayer: Layer.Layer<Kv>) =>
  Effect.gen(function* () {
    const [p1, p2] = yield* twoInstances
    const kv = yield* Kv
    const user = Math.floor(Math.random() * 1e9)
    const first = yield* p1.hit(user, 1)
    expect(first).toMatchObject({ allowed: true, count: 1, remaining: 24_999, day: "2026-06-01", degraded: false, retryAfterSeconds: 2 })
    expect(first.resetAtMs).toBe(Date.parse("2026-06-02T00:00:00Z"))

    yield* kv.set(quotaKey(user, "2026-06-01"), "24998", 3_700)
    // Other processes' counts reach this one's view within FRESH_MS (here they jumped by 24,997 at one instant).
    yield* TestClock.adjust(`${FRESH_MS + 30} millis`)
    expect(yield* p2.hit(user, 2)).toMatchObject({ allowed: true, count: 24_999, remaining: 1 })
    expect(yield* p1.hit(user, 1)).toMatchObject({ allowed: true, count: 25_000, remaining: 0 })
    expect(yield* p2.hit(user, 2)).toMatchObject({ allowed: false, count: 25_001, remaining: 0, retryAfterSeconds: 2 })

    yield* TestClock.adjust("1 second")
    expect(yield* p1.hit(user, 1)).toMatchObject({ allowed: false, retryAfterSeconds: 1 })

    // 00:00:00.500 UTC: a new day, a new counter.
    yield* TestClock.adjust("1 second")
    const fresh = yield* p2.hit(user, 2)
    expect(fresh).toMatchObject({ allowed: true, count: 1, remaining: 24_999, day: "2026-06-02", retryAfterSeconds: 86_400 })
    expect(fresh.resetAtMs).toBe(Date.parse("2026-06-03T00:00:00Z"))
    expect(yield* p1.hit(user, 1)).toMatchObject({ allowed: true, count: 2 })
    // Each key's own count beside the account's.
    expect(yield* p1.keyCounts([1, 2])).toEqual([1, 1])
  }).pipe(
    Effect.scoped,
    Effect.provide(Layer.merge(base, kvLayer)),
    // The clock is set before the stores are built: their timers start from it (setting it later would run a
    // minute-spaced sweep once per minute of the jump).
    (scenario) => Effect.zipRight(at("2026-06-01T23:59:58.500Z"), scenario)
  )

describe("quota at UTC midnight", () => {
  it.effect("on the in-process store", () => midnightScenario(Kv.memory))

  it.effect.skipIf(!realRedisUrl)("on Redis", () => {
    const prefix = `test:${randomBytes(4).toString("hex")}:`
    const redis = RedisClient.layer({ url: realRedisUrl ?? "", prefix }).pipe(Layer.orDie)
    return midnightScenario(Kv.redis.pipe(Layer.provide(redis))).pipe(
      Effect.ensuring(Effect.promise(() => dropRedisPrefix(realRedisUrl!, prefix)))
    )
  })
})

/** A store that is disconnected and fails loudly on anything a disconnected quota must not call. */
const disconnected = (counts: Map<string, number>, up: { value: boolean }): KvShape => {
  const loud = (name: string) => () => Effect.die(new Error(`Kv.${name} was not expected`))
  return {
    kind: "redis",
    incrWindow: loud("incrWindow"),
    incrWindowAll: loud("incrWindowAll"),
    unsafeIncrWindowAll: async (keys, _ttl, _now, by = 1) => {
      if (!up.value) throw new Error("unsafeIncrWindowAll called while disconnected")
      return keys.map((key) => {
        const n = (counts.get(key) ?? 0) + by
        counts.set(key, n)
        return n
      })
    },
    get: (key) => Effect.succeed(Option.fromNullable(counts.get(key)).pipe(Option.map(String))),
    set: loud("set"), del: loud("del"), ttl: loud("ttl"),
    acquireLease: loud("acquireLease"), renewLease: loud("renewLease"), leaseRemainingMs: loud("leaseRemainingMs"), releaseLease: loud("releaseLease"),
    bookSlot: loud("bookSlot"), holdUntil: loud("holdUntil"), passGates: loud("passGates"),
    ping: Effect.sync(() => up.value),
    connected: () => up.value
  }
}

describe("quota round trips", () => {
  it.effect("requests of one key in the same event-loop turn share one INCRBY and take consecutive counts", () => {
    const counts = new Map<string, number>()
    const calls: Array<number> = []
    const up = { value: true }
    const store = disconnected(counts, up)
    const counting: KvShape = { ...store, unsafeIncrWindowAll: (keys, ttl, now, by) => (calls.push(by ?? 1), store.unsafeIncrWindowAll(keys, ttl, now, by)) }
    return Effect.gen(function* () {
      const quota = yield* Quota
      counts.set(quotaKey(7, "2026-06-01"), 24_995)
      const states = yield* Effect.all(Array.from({ length: 8 }, () => quota.hit(7, 3)), { concurrency: "unbounded" })
      expect(calls).toEqual([8])
      expect(states.map((q) => q.count)).toEqual([24_996, 24_997, 24_998, 24_999, 25_000, 25_001, 25_002, 25_003])
      expect(states.map((q) => q.keyCount)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
      expect(states.map((q) => q.allowed)).toEqual([true, true, true, true, true, false, false, false])
      // Another key of the same account in the next turn: its own round trip, the account's count goes on.
      expect(yield* quota.hit(7, 4)).toMatchObject({ count: 25_004, keyCount: 1, allowed: false })
      expect(calls).toEqual([8, 1])
    }).pipe(
      Effect.provide(Quota.Default),
      Effect.provide(Layer.merge(base, Layer.succeed(Kv, counting))),
      (scenario) => Effect.zipRight(at("2026-06-01T12:00:00Z"), scenario)
    )
  })
})

describe("quota off the critical path", () => {
  it.effect("answers at once while its view is fresh and far from the limit, waits near it or when stale, and counts every request in Redis", () => {
    const counts = new Map<string, number>()
    const calls: Array<number> = []
    const store = disconnected(counts, { value: true })
    const counting: KvShape = { ...store, unsafeIncrWindowAll: (keys, ttl, now, by) => (calls.push(by ?? 1), store.unsafeIncrWindowAll(keys, ttl, now, by)) }
    const key = quotaKey(11, "2026-06-01")
    const turn = Effect.promise(() => new Promise<void>((r) => setImmediate(() => setImmediate(r))))
    return Effect.gen(function* () {
      const quota = yield* Quota
      const now = Date.parse("2026-06-01T12:00:00Z")
      /** Three requests in one turn: the counts of those answered before `count` returned (at once). */
      const threeAtOnce = (t: number) => {
        const answered: Array<number> = []
        for (let i = 0; i < 3; i++) {
          let sync = true
          quota.count(11, 5, t, (q) => sync && answered.push(q.count))
          sync = false
        }
        return answered
      }
      counts.set(key, 100)
      // Not seen yet: the first waits for Redis.
      expect(yield* quota.hit(11, 5)).toMatchObject({ count: 101, keyCount: 1 })
      expect(threeAtOnce(now + 5)).toEqual([102, 103, 104])
      yield* turn
      expect(counts.get(key)).toBe(104)
      expect(calls).toEqual([1, 3])
      // A view older than FRESH_MS: the requests wait for Redis again (none answered at once).
      expect(threeAtOnce(now + 5 + FRESH_MS + 1)).toEqual([])
      yield* turn
      expect(counts.get(key)).toBe(107)
      // The last 5 % of the limit always wait: the boundary is Redis's.
      const limit = quota.limit
      counts.set(key, limit - syncMargin(limit) - 2)
      yield* TestClock.adjust("100 millis")
      expect(yield* quota.hit(11, 5)).toMatchObject({ count: limit - syncMargin(limit) - 1 })
      expect(threeAtOnce(now + 101)).toEqual([limit - syncMargin(limit)])
      yield* turn
      expect(counts.get(key)).toBe(limit - syncMargin(limit) + 2)
    }).pipe(
      Effect.provide(Quota.Default),
      Effect.provide(Layer.merge(base, Layer.succeed(Kv, counting))),
      (scenario) => Effect.zipRight(at("2026-06-01T12:00:00Z"), scenario)
    )
  })
})

describe("quota while Redis is down", () => {
  it.effect("fails open from the last count Redis gave, still refusing past the limit, and returns to Redis", () => {
    const counts = new Map<string, number>()
    const up = { value: true }
    return Effect.gen(function* () {
      const quota = yield* Quota
      counts.set(quotaKey(9, "2026-06-01"), 24_998)
      expect(yield* quota.hit(9, 1)).toMatchObject({ count: 24_999, degraded: false })
      up.value = false
      expect(yield* quota.hit(9, 1)).toMatchObject({ allowed: true, count: 25_000, degraded: true })
      expect(yield* quota.hit(9, 1)).toMatchObject({ allowed: false, count: 25_001, degraded: true })
      up.value = true
      // Not retried before API_QUOTA_RETRY_MS.
      expect(yield* quota.hit(9, 1)).toMatchObject({ degraded: true })
      yield* TestClock.adjust("1 second")
      expect(yield* quota.hit(9, 1)).toMatchObject({ count: 25_000, allowed: true, degraded: false })
    }).pipe(
      Effect.provide(Quota.Default),
      Effect.provide(Layer.merge(base, Layer.succeed(Kv, disconnected(counts, up)))),
      (scenario) => Effect.zipRight(at("2026-06-01T12:00:00Z"), scenario)
    )
  })
})
