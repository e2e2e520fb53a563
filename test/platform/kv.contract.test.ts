/**
 * The `Kv` contract (server/platform/infra/Kv.ts), run against both implementations: `Kv.memory` always, `Kv.redis` when
 * REDIS_URL is set (a fresh key prefix for this file, its keys deleted at the end). In CI a missing REDIS_URL fails.
 */
import { describe, expect, it, layer, type Vitest } from "@effect/vitest"
import { Cause, Context, Effect, Exit, Layer, Option } from "effect"
import { Kv } from "../../server/platform/infra/Kv"
import { RedisClient } from "../../server/platform/infra/Redis"

const redisUrl = process.env.REDIS_URL
const prefix = `test:${Math.random().toString(36).slice(2, 10)}:`

let counter = 0
const fresh = (name: string) => `${name}.${++counter}`
const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1)

const kvContract = (it: Vitest.MethodsNonLive<Kv, true>) => {
  it.effect("incrWindow is exact under 200 concurrent increments", () =>
    Effect.gen(function* () {
      const kv = yield* Kv
      const key = fresh("quota")
      const values = yield* Effect.all(oneTo(200).map(() => kv.incrWindow(key, 60)), { concurrency: "unbounded" })
      expect([...values].sort((a, b) => a - b)).toEqual(oneTo(200))
      expect(yield* kv.get(key)).toEqual(Option.some("200"))
      const ttl = yield* kv.ttl(key)
      expect(ttl).toBeGreaterThanOrEqual(59)
      expect(ttl).toBeLessThanOrEqual(60)
    }))

  it.effect("incrWindow sets the expiry once, when the window opens; the next hit after it opens a new window", () =>
    Effect.gen(function* () {
      const kv = yield* Kv
      const key = fresh("window")
      expect(yield* kv.incrWindow(key, 1)).toBe(1)
      expect(yield* kv.incrWindow(key, 100)).toBe(2) // a later, longer ttl does not extend the window
      expect(yield* kv.ttl(key)).toBeLessThanOrEqual(1)
      yield* Effect.sleep("1100 millis")
      expect(yield* kv.get(key)).toEqual(Option.none())
      expect(yield* kv.ttl(key)).toBe(-2)
      expect(yield* kv.incrWindow(key, 100)).toBe(1)
      expect(yield* kv.ttl(key)).toBeGreaterThanOrEqual(99)

      // A counter that somehow has no expiry gets one on its next increment (EXPIRE NX).
      const bare = fresh("bare")
      yield* kv.set(bare, "5")
      expect(yield* kv.ttl(bare)).toBe(-1)
      expect(yield* kv.incrWindow(bare, 30)).toBe(6)
      expect(yield* kv.ttl(bare)).toBeGreaterThanOrEqual(29)
    }))

  it.effect("incrWindowAll increments several counters at once, each with its own window", () =>
    Effect.gen(function* () {
      const kv = yield* Kv
      const [a, b] = [fresh("all-a"), fresh("all-b")]
      expect(yield* kv.incrWindowAll([a, b], 60)).toEqual([1, 1])
      yield* kv.set(b, "41", 5)
      const values = yield* Effect.all(oneTo(100).map(() => kv.incrWindowAll([a, b], 60)), { concurrency: "unbounded" })
      expect(values.map(([x]) => x).sort((p, q) => p! - q!)).toEqual(oneTo(100).map((n) => n + 1))
      expect(yield* kv.get(b)).toEqual(Option.some("141"))
      expect(yield* kv.ttl(b)).toBeLessThanOrEqual(5) // an existing window is kept
      expect(yield* kv.ttl(a)).toBeGreaterThanOrEqual(59)
      expect(yield* kv.incrWindowAll([], 60)).toEqual([])
    }))

  it.effect("unsafeIncrWindowAll (outside Effect) counts on the same counters, exact under concurrency", () =>
    Effect.gen(function* () {
      const kv = yield* Kv
      const [a, b] = [fresh("unsafe-a"), fresh("unsafe-b")]
      expect(yield* kv.incrWindowAll([a], 60)).toEqual([1])
      const now = Date.now()
      const values = yield* Effect.promise(() => Promise.all(oneTo(50).map(() => kv.unsafeIncrWindowAll([a, b], 60, now))))
      expect(values.map(([x]) => x).sort((p, q) => p! - q!)).toEqual(oneTo(50).map((n) => n + 1))
      expect(values.map(([, y]) => y).sort((p, q) => p! - q!)).toEqual(oneTo(50))
      expect(yield* kv.get(a)).toEqual(Option.some("51"))
      expect(yield* kv.ttl(b)).toBeGreaterThanOrEqual(59)
      expect(yield* Effect.promise(() => kv.unsafeIncrWindowAll([], 60, now))).toEqual([])
      // By more than one: the quota's one round trip for the requests of one event-loop turn.
      expect(yield* Effect.promise(() => kv.unsafeIncrWindowAll([a, b], 60, now, 7))).toEqual([58, 57])
      expect(yield* Effect.promise(() => kv.unsafeIncrWindowAll([a], 60, now, 0).then(() => "resolved", () => "rejected"))).toBe("rejected")
    }))

  it.effect("get, set (with and without ttl), del and ttl", () =>
    Effect.gen(function* () {
      const kv = yield* Kv
      const key = fresh("plain")
      expect(yield* kv.get(key)).toEqual(Option.none())
      expect(yield* kv.ttl(key)).toBe(-2)
      yield* kv.set(key, "v1", 60)
      expect(yield* kv.get(key)).toEqual(Option.some("v1"))
      expect(yield* kv.ttl(key)).toBeGreaterThanOrEqual(59)
      yield* kv.set(key, "v2") // no ttl: clears the expiry, as SET does
      expect(yield* kv.get(key)).toEqual(Option.some("v2"))
      expect(yield* kv.ttl(key)).toBe(-1)
      yield* kv.del(key)
      expect(yield* kv.get(key)).toEqual(Option.none())
      expect(yield* kv.ttl(key)).toBe(-2)
      yield* kv.del(key) // deleting a missing key is fine
    }))

  it.effect("a lease is exclusive: of 20 concurrent holders exactly one gets it", () =>
    Effect.gen(function* () {
      const kv = yield* Kv
      const name = fresh("singleton")
      const won = yield* Effect.all(oneTo(20).map((n) => kv.acquireLease(name, `holder-${n}`, 5_000)), { concurrency: "unbounded" })
      expect(won.filter(Boolean)).toHaveLength(1)
      const winner = `holder-${won.indexOf(true) + 1}`
      expect(yield* kv.acquireLease(name, "latecomer", 5_000)).toBe(false)
      expect(yield* kv.acquireLease(name, winner, 5_000)).toBe(true) // re-entrant for its holder
    }))

  it.effect("renew extends only the holder's lease; an unrenewed lease expires", () =>
    Effect.gen(function* () {
      const kv = yield* Kv
      const kept = fresh("kept")
      const lapsed = fresh("lapsed")
      // Generous margins: the two calls between acquire and renew must fit in the first lease even on a loaded machine.
      expect(yield* kv.acquireLease(kept, "a", 400)).toBe(true)
      expect(yield* kv.renewLease(kept, "b", 10_000)).toBe(false)
      expect(yield* kv.renewLease(kept, "a", 10_000)).toBe(true)
      expect(yield* kv.acquireLease(lapsed, "a", 150)).toBe(true)
      yield* Effect.sleep("700 millis")
      expect(yield* kv.acquireLease(kept, "b", 1_000)).toBe(false) // still a's: renewed
      expect(yield* kv.renewLease(lapsed, "a", 1_000)).toBe(false) // lost: expired
      expect(yield* kv.acquireLease(lapsed, "b", 1_000)).toBe(true)
    }))

  it.effect("tells how long a lease has left, whoever holds it (0 when free)", () =>
    Effect.gen(function* () {
      const kv = yield* Kv
      const name = fresh("remaining")
      expect(yield* kv.leaseRemainingMs(name)).toBe(0)
      expect(yield* kv.acquireLease(name, "a", 10_000)).toBe(true)
      const left = yield* kv.leaseRemainingMs(name)
      expect(left).toBeGreaterThan(5_000)
      expect(left).toBeLessThanOrEqual(10_000)
      expect(yield* kv.releaseLease(name, "a")).toBe(true)
      expect(yield* kv.leaseRemainingMs(name)).toBe(0)
    }))

  it.effect("release by a non-holder is a no-op; by the holder frees the lease", () =>
    Effect.gen(function* () {
      const kv = yield* Kv
      const name = fresh("release")
      expect(yield* kv.acquireLease(name, "a", 5_000)).toBe(true)
      expect(yield* kv.releaseLease(name, "b")).toBe(false)
      expect(yield* kv.acquireLease(name, "c", 5_000)).toBe(false)
      expect(yield* kv.releaseLease(name, "a")).toBe(true)
      expect(yield* kv.acquireLease(name, "c", 5_000)).toBe(true)
      expect(yield* kv.releaseLease(name, "a")).toBe(false)
    }))

  it.effect("leases and plain keys do not share names; ping answers", () =>
    Effect.gen(function* () {
      const kv = yield* Kv
      const name = fresh("shared-name")
      yield* kv.acquireLease(name, "a", 5_000)
      expect(yield* kv.get(name)).toEqual(Option.none())
      expect(yield* kv.ping).toBe(true)
    }))

  it.effect("bookSlot paces a key: 20 concurrent bookings get 20 distinct slots a gap apart", () =>
    Effect.gen(function* () {
      const kv = yield* Kv
      const key = fresh("chat")
      const started = Date.now()
      const waits = yield* Effect.all(oneTo(20).map(() => kv.bookSlot([key], [1000])), { concurrency: "unbounded" })
      const elapsed = Date.now() - started
      // Each booking is answered relative to its own clock reading: the slots are 0, 1000, …, 19000 ms after the first.
      const slots = [...waits].sort((a, b) => a - b)
      slots.forEach((w, i) => {
        expect(w).toBeLessThanOrEqual(i * 1000)
        expect(w).toBeGreaterThanOrEqual(i * 1000 - elapsed - 5)
      })
      // Two keys at once: the later of the two is free first; each moves by its own gap.
      const other = fresh("global")
      expect(yield* kv.bookSlot([other], [50])).toBe(0)
      const both = yield* kv.bookSlot([key, other], [1000, 50])
      expect(both).toBeGreaterThan(19000 - elapsed - 50)
      expect(yield* kv.bookSlot([fresh("idle")], [1000])).toBe(0)
    }))

  it.effect("holdUntil keeps a key busy until then, and never brings it forward", () =>
    Effect.gen(function* () {
      const kv = yield* Kv
      const key = fresh("held")
      const until = Date.now() + 5000
      yield* kv.holdUntil([key], until)
      const wait = yield* kv.bookSlot([key], [1000])
      expect(wait).toBeGreaterThan(4800)
      expect(wait).toBeLessThanOrEqual(5000)
      yield* kv.holdUntil([key], Date.now() + 10) // earlier than booked: no change
      expect(yield* kv.bookSlot([key], [1000])).toBeGreaterThan(5800)
    }))

  it.effect("passGates passes a gate once per cooldown, in order, and counts what it held", () =>
    Effect.gen(function* () {
      const kv = yield* Kv
      const [a, b] = [fresh("gate-a"), fresh("gate-b")]
      const gate = (key: string, at: number, knownLast: number | null = null) => ({ key, id: `r${at}`, at, cooldownMs: 60_000, knownLast })
      const T = Date.now()
      expect(yield* kv.passGates([gate(a, T), gate(a, T + 30_000), gate(b, T + 59_999), gate(a, T + 59_999)])).toEqual([0, -1, 0, -1])
      expect(yield* kv.passGates([gate(a, T + 60_000), gate(a, T + 60_001)])).toEqual([2, -1])
      // The match that passed asks again (a redelivery): it passes again, and nothing moves.
      expect(yield* kv.passGates([gate(a, T + 60_000), gate(a, T + 60_002)])).toEqual([0, -1])
      // A pass known from elsewhere (the database) holds a gate the store has never seen.
      const c = fresh("gate-c")
      expect(yield* kv.passGates([gate(c, T, T - 1000)])).toEqual([-1])
      expect(yield* kv.passGates([gate(c, T + 59_000, T - 1000)])).toEqual([1])
      // Further matches at the same time are held with the first in one step, whatever its answer.
      const e = fresh("gate-e")
      expect(yield* kv.passGates([{ ...gate(e, T), extra: 3 }])).toEqual([0])
      expect(yield* kv.passGates([{ ...gate(e, T + 1000), extra: 2 }])).toEqual([-1])
      expect(yield* kv.passGates([gate(e, T + 60_000)])).toEqual([6])
      // A gate written in the earlier form "<last pass> <id>" (before held counts moved into the gate) still holds.
      const f = fresh("gate-f")
      yield* kv.set(f, `${T} r${T}`, 120)
      expect(yield* kv.passGates([gate(f, T)])).toEqual([0])
      expect(yield* kv.passGates([gate(f, T + 1000)])).toEqual([-1])
      expect(yield* kv.passGates([gate(f, T + 60_000)])).toEqual([1])
      // A zero cooldown always passes.
      const d = fresh("gate-d")
      expect(yield* kv.passGates([{ key: d, id: "x", at: T, cooldownMs: 0, knownLast: null }, { key: d, id: "y", at: T, cooldownMs: 0, knownLast: null }])).toEqual([0, 0])
    }))

  it.effect("passGates is exact under concurrency: of 50 concurrent matches inside one cooldown one passes", () =>
    Effect.gen(function* () {
      const kv = yield* Kv
      const key = fresh("gate-race")
      const T = Date.now()
      const answers = yield* Effect.all(oneTo(50).map((n) => kv.passGates([{ key, id: `r${n}`, at: T + n, cooldownMs: 60_000, knownLast: null }])), { concurrency: "unbounded" })
      expect(answers.flat().filter((x) => x >= 0)).toHaveLength(1)
      expect(yield* kv.passGates([{ key, id: "late", at: T + 120_000, cooldownMs: 60_000, knownLast: null }])).toEqual([49])
    }))

  it.effect("a non-positive ttl is a defect", () =>
    Effect.gen(function* () {
      const kv = yield* Kv
      const exits: ReadonlyArray<Exit.Exit<unknown>> = [
        yield* Effect.exit(kv.incrWindow(fresh("bad"), 0)),
        yield* Effect.exit(kv.set(fresh("bad"), "x", -1)),
        yield* Effect.exit(kv.acquireLease(fresh("bad"), "a", 0))
      ]
      for (const exit of exits) expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
    }))
}

describe("Kv contract", () => {
  layer(Kv.memory, { excludeTestServices: true })("memory", (it) => kvContract(it))

  if (process.env.CI && !process.env.WHALE_TEST_EMBEDDED && !redisUrl) {
    it("redis: REDIS_URL must be set in CI", () => {
      throw new Error("CI is set but REDIS_URL is not: the Redis Kv would go untested. Set REDIS_URL=redis://127.0.0.1:6379.")
    })
  }

  describe.skipIf(!redisUrl)(redisUrl ? "redis" : "redis (skipped: REDIS_URL not set)", () => {
    const client = RedisClient.layer({ url: redisUrl ?? "redis://unset", prefix })
    /** Deletes every key under this file's prefix when the suite ends. */
    const cleanup = Layer.scopedDiscard(
      Effect.gen(function* () {
        const redis = yield* RedisClient
        yield* Effect.addFinalizer(() =>
          redis.run("cleanup", async (c) => {
            for await (const keys of c.scanIterator({ MATCH: `${prefix}*`, COUNT: 1_000 })) if (keys.length > 0) await c.del(keys)
          })
        )
      })
    )
    const live = Layer.mergeAll(Kv.redis, cleanup).pipe(Layer.provide(client), Layer.orDie)

    layer(live, { excludeTestServices: true })((it) => {
      kvContract(it)

      it.effect("counters and leases are exact across separate connections (as across processes)", () =>
        Effect.scoped(
          Effect.gen(function* () {
            const kv = yield* Kv
            const other = Context.get(yield* Layer.build(Kv.redis.pipe(Layer.provide(client), Layer.orDie)), Kv)
            const key = fresh("shared-quota")
            const values = yield* Effect.all(
              oneTo(200).map((n) => (n % 2 === 0 ? kv : other).incrWindow(key, 60)),
              { concurrency: "unbounded" }
            )
            expect([...values].sort((a, b) => a - b)).toEqual(oneTo(200))
            const name = fresh("shared-lease")
            const won = yield* Effect.all(
              oneTo(20).map((n) => (n % 2 === 0 ? kv : other).acquireLease(name, `holder-${n}`, 5_000)),
              { concurrency: "unbounded" }
            )
            expect(won.filter(Boolean)).toHaveLength(1)
          })
        ))
    })
  })
})
