/**
 * The `Bus` contract (server/platform/infra/Bus.ts), run against both implementations: `BusMemory` always, `BusRedis` when
 * REDIS_URL is set (a fresh key prefix for this file, its keys deleted at the end). In CI a missing REDIS_URL fails.
 * Real time with small waits: blocking reads and idle times are what is under test.
 */
import { describe, expect, it, layer, type Vitest } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Layer } from "effect"
import { Bus, deadLetterStream, type StreamEntry } from "../../server/platform/infra/Bus"
import { BusMemory } from "../../server/platform/infra/BusMemory"
import { BusRedis } from "../../server/platform/infra/BusRedis"
import { RedisClient } from "../../server/platform/infra/Redis"

const redisUrl = process.env.REDIS_URL
const prefix = `test:${Math.random().toString(36).slice(2, 10)}:`

let counter = 0
/** A stream name of its own for each test, so tests sharing a layer do not see each other's entries. */
const fresh = (name: string) => `${name}.${++counter}`
const ids = (entries: ReadonlyArray<{ readonly id: string }>) => entries.map((e) => e.id)
const idKey = (id: string) => id.split("-").map(Number) as [number, number]
const increasing = (list: ReadonlyArray<string>) =>
  list.every((id, i) => {
    if (i === 0) return true
    const [ms, seq] = idKey(id)
    const [pms, pseq] = idKey(list[i - 1]!)
    return ms > pms || (ms === pms && seq > pseq)
  })

const busContract = (it: Vitest.MethodsNonLive<Bus, true>) => {
  const read = (stream: string, consumer: string, count = 100, blockMs = 0, group = "g") =>
    Effect.flatMap(Bus, (bus) => bus.read({ stream, group, consumer, count, blockMs }))
  const readPending = (stream: string, consumer: string, count = 100, group = "g") =>
    Effect.flatMap(Bus, (bus) => bus.readPending({ stream, group, consumer, count }))

  it.effect("reads entries in publish order, `count` at a time, each delivered once (deliveries 1)", () =>
    Effect.gen(function* () {
      const bus = yield* Bus
      const s = fresh("order")
      yield* bus.ensureGroup(s, "g", "0")
      yield* bus.ensureGroup(s, "g", "0") // idempotent
      const first = yield* bus.publish(s, { n: 0 })
      const rest = yield* bus.publishMany(s, [1, 2, 3, 4].map((n) => ({ n })))
      const published = [first, ...rest]
      expect(published.every((id) => /^\d+-\d+$/.test(id))).toBe(true)
      expect(increasing(published)).toBe(true)

      const a = yield* read(s, "c", 2)
      const b = yield* read(s, "c", 10)
      expect(ids(a)).toEqual(published.slice(0, 2))
      expect(ids(b)).toEqual(published.slice(2))
      expect([...a, ...b].map((e) => e.payload)).toEqual([0, 1, 2, 3, 4].map((n) => ({ n })))
      expect([...a, ...b].map((e) => e.deliveries)).toEqual([1, 1, 1, 1, 1])
      expect(yield* read(s, "c")).toEqual([])
    }))

  it.effect("publishMany keeps thousands of payloads whole and in order, whatever their text holds", () =>
    Effect.gen(function* () {
      const bus = yield* Bus
      const s = fresh("many")
      const texts = ["line\nbreak", "crlf\r\n", "tab\tquote\"back\\slash", "unicode … → ≥ 🐋", "sep\u2028\u2029", "", "{\"n\":1}\n{\"n\":2}"]
      const payloads = Array.from({ length: 2_345 }, (_, n) => ({ n, text: texts[n % texts.length]!, nested: { list: [n, null, true] } }))
      const published = yield* bus.publishMany(s, payloads)
      expect(published).toHaveLength(payloads.length)
      expect(increasing(published)).toBe(true)
      const back = yield* bus.rangeAfter(s, "0", 10_000)
      expect(ids(back)).toEqual(published)
      expect(back.map((e) => e.payload)).toEqual(payloads)
    }))

  it.effect("publishMany keeps order and ids across the parts of a publish too large for one call (by count and by size)", () =>
    Effect.gen(function* () {
      const bus = yield* Bus
      const s = fresh("parts")
      // Past 5,000 entries, and past 4 MB of text in a few large entries: several script calls on Redis.
      const small = Array.from({ length: 5_100 }, (_, n) => ({ n }))
      const large = Array.from({ length: 11 }, (_, n) => ({ n, blob: String.fromCharCode(97 + n).repeat(500_000) }))
      const published = [...yield* bus.publishMany(s, small), ...yield* bus.publishMany(s, large)]
      expect(published).toHaveLength(small.length + large.length)
      expect(increasing(published)).toBe(true)
      const back = yield* bus.rangeAfter(s, "0", 10_000)
      expect(ids(back)).toEqual(published)
      expect(back.map((e) => e.payload)).toEqual([...small, ...large])
    }))

  it.effect("a group made at `$` sees only later entries; every group gets every entry", () =>
    Effect.gen(function* () {
      const bus = yield* Bus
      const s = fresh("groups")
      const early = yield* bus.publish(s, { n: 1 })
      yield* bus.ensureGroup(s, "fromStart", "0")
      yield* bus.ensureGroup(s, "fromNow", "$")
      const late = yield* bus.publish(s, { n: 2 })
      expect(ids(yield* read(s, "c", 10, 0, "fromStart"))).toEqual([early, late])
      expect(ids(yield* read(s, "c", 10, 0, "fromNow"))).toEqual([late])
    }))

  it.effect("one group gives each entry to exactly one of two consumers", () =>
    Effect.gen(function* () {
      const bus = yield* Bus
      const s = fresh("share")
      yield* bus.ensureGroup(s, "g", "0")
      const published = yield* bus.publishMany(s, Array.from({ length: 20 }, (_, n) => ({ n })))
      const got: Record<"a" | "b", Array<StreamEntry>> = { a: [], b: [] }
      for (let round = 0; round < 10; round++) for (const c of ["a", "b"] as const) got[c].push(...(yield* read(s, c, 1)))
      expect(ids(got.a)).toEqual(published.filter((_, i) => i % 2 === 0))
      expect(ids(got.b)).toEqual(published.filter((_, i) => i % 2 === 1))
      expect(yield* read(s, "a")).toEqual([])
      expect(yield* read(s, "b")).toEqual([])

      // Concurrent consumers draining a second batch: disjoint, complete, each in order.
      const more = yield* bus.publishMany(s, Array.from({ length: 30 }, (_, n) => ({ n })))
      const drain = (consumer: string) =>
        Effect.gen(function* () {
          const mine: Array<string> = []
          while (true) {
            const batch = yield* read(s, consumer, 2)
            if (batch.length === 0) return mine
            mine.push(...ids(batch))
            yield* Effect.yieldNow()
          }
        })
      const [x, y] = yield* Effect.all([drain("x"), drain("y")], { concurrency: 2 })
      expect(increasing(x) && increasing(y)).toBe(true)
      expect(new Set([...x, ...y]).size).toBe(x.length + y.length)
      expect([...x, ...y].sort()).toEqual([...more].sort())
      expect((yield* bus.groupInfo(s, "g")).pending).toBe(50)
    }))

  it.effect("readPending re-delivers only the caller's unacked entries, oldest first, counting each delivery", () =>
    Effect.gen(function* () {
      const bus = yield* Bus
      const s = fresh("pending")
      yield* bus.ensureGroup(s, "g", "0")
      const published = yield* bus.publishMany(s, [{ n: 1 }, { n: 2 }, { n: 3 }])
      expect(ids(yield* read(s, "a"))).toEqual(published)
      yield* bus.ack(s, "g", [published[0]!])

      const again = yield* readPending(s, "a")
      expect(ids(again)).toEqual(published.slice(1))
      expect(again.map((e) => e.deliveries)).toEqual([2, 2])
      expect(again.map((e) => e.payload)).toEqual([{ n: 2 }, { n: 3 }])
      expect((yield* readPending(s, "a")).map((e) => e.deliveries)).toEqual([3, 3])
      const one = yield* readPending(s, "a", 1)
      expect(one.map((e) => [e.id, e.deliveries])).toEqual([[published[1], 4]])
      expect(yield* readPending(s, "b")).toEqual([])
      expect(yield* read(s, "a")).toEqual([]) // pending entries are not "new"

      yield* bus.ack(s, "g", published.slice(1))
      expect(yield* readPending(s, "a")).toEqual([])
      expect((yield* bus.groupInfo(s, "g")).pending).toBe(0)
    }))

  it.effect("claimStale takes a dead consumer's entries once idle for minIdleMs, not before", () =>
    Effect.gen(function* () {
      const bus = yield* Bus
      const s = fresh("claim")
      const claim = (consumer: string, count = 10) => bus.claimStale({ stream: s, group: "g", consumer, count, minIdleMs: 150 })
      yield* bus.ensureGroup(s, "g", "0")
      const published = yield* bus.publishMany(s, [{ n: 1 }, { n: 2 }])
      expect(ids(yield* read(s, "dead"))).toEqual(published)

      expect(yield* claim("live")).toEqual([]) // not idle long enough yet
      yield* Effect.sleep("200 millis")
      const firstClaim = yield* claim("live", 1)
      expect(firstClaim.map((e) => [e.id, e.deliveries])).toEqual([[published[0], 2]])
      expect(firstClaim[0]!.payload).toEqual({ n: 1 })
      const secondClaim = yield* claim("live", 10)
      expect(secondClaim.map((e) => [e.id, e.deliveries])).toEqual([[published[1], 2]])

      expect(yield* claim("third")).toEqual([]) // just claimed: no longer idle
      expect(yield* readPending(s, "dead")).toEqual([])
      expect((yield* readPending(s, "live")).map((e) => [e.id, e.deliveries])).toEqual(published.map((id) => [id, 3]))
    }))

  it.effect("deadLetter copies the entry to dlq:<stream> with the reason and acks it", () =>
    Effect.gen(function* () {
      const bus = yield* Bus
      const s = fresh("dead")
      yield* bus.ensureGroup(s, "g", "0")
      const before = yield* bus.stats
      yield* bus.publish(s, { order: 7 })
      yield* read(s, "c")
      const [entry] = yield* readPending(s, "c")
      yield* bus.deadLetter(s, "g", entry!, "schema: missing field")

      expect(yield* readPending(s, "c")).toEqual([])
      expect(yield* bus.groupInfo(s, "g")).toMatchObject({ pending: 0, deadLetters: 1 })
      const letters = yield* bus.tail(deadLetterStream(s), 10)
      expect(letters.map((l) => l.payload)).toEqual([
        { id: entry!.id, stream: s, group: "g", reason: "schema: missing field", deliveries: 2, payload: { order: 7 } }
      ])
      expect((yield* bus.stats).deadLettered - before.deadLettered).toBe(1)
    }))

  it.effect("groupInfo counts length, lag, pending and dead letters exactly", () =>
    Effect.gen(function* () {
      const bus = yield* Bus
      const s = fresh("info")
      const info = (group = "g") => bus.groupInfo(s, group)
      yield* bus.ensureGroup(s, "g", "$") // creates the stream
      expect(yield* info()).toEqual({ length: 0, lag: 0, pending: 0, deadLetters: 0 })
      const published = yield* bus.publishMany(s, [1, 2, 3, 4, 5].map((n) => ({ n })))
      expect(yield* info()).toEqual({ length: 5, lag: 5, pending: 0, deadLetters: 0 })
      yield* read(s, "a", 2)
      expect(yield* info()).toEqual({ length: 5, lag: 3, pending: 2, deadLetters: 0 })
      yield* bus.ack(s, "g", [published[0]!])
      expect(yield* info()).toEqual({ length: 5, lag: 3, pending: 1, deadLetters: 0 })
      const [forB] = yield* read(s, "b", 1)
      expect(yield* info()).toEqual({ length: 5, lag: 2, pending: 2, deadLetters: 0 })
      yield* bus.deadLetter(s, "g", forB!, "poison")
      expect(yield* info()).toEqual({ length: 5, lag: 2, pending: 1, deadLetters: 1 })
      yield* bus.publish(s, { n: 6 })
      expect(yield* info()).toEqual({ length: 6, lag: 3, pending: 1, deadLetters: 1 })

      yield* bus.ensureGroup(s, "late0", "0")
      yield* bus.ensureGroup(s, "lateNow", "$")
      expect(yield* info("late0")).toEqual({ length: 6, lag: 6, pending: 0, deadLetters: 1 })
      expect(yield* info("lateNow")).toEqual({ length: 6, lag: 0, pending: 0, deadLetters: 1 })
      expect(yield* info("missing")).toEqual({ length: 6, lag: null, pending: 0, deadLetters: 1 })
      expect(yield* bus.groupInfo(fresh("nothing"), "g")).toEqual({ length: 0, lag: null, pending: 0, deadLetters: 0 })
    }))

  it.effect("a blocking read wakes on publish, and returns [] after blockMs when nothing comes", () =>
    Effect.gen(function* () {
      const bus = yield* Bus
      const s = fresh("block")
      yield* bus.ensureGroup(s, "g", "$")

      const started = Date.now()
      const waiting = yield* Effect.fork(read(s, "c", 10, 3_000))
      yield* Effect.sleep("50 millis")
      const id = yield* bus.publish(s, { wake: true })
      const woken = yield* Fiber.join(waiting)
      const wokeAfter = Date.now() - started
      expect(ids(woken)).toEqual([id])
      expect(wokeAfter).toBeGreaterThanOrEqual(45)
      expect(wokeAfter).toBeLessThan(1_000)

      const idleStart = Date.now()
      expect(yield* read(s, "c", 10, 80)).toEqual([])
      const idleFor = Date.now() - idleStart
      expect(idleFor).toBeGreaterThanOrEqual(75)
      expect(idleFor).toBeLessThan(1_000)
    }))

  it.effect("an interrupted blocking read loses nothing: later entries reach the consumer (new or pending)", () =>
    Effect.gen(function* () {
      const bus = yield* Bus
      const s = fresh("interrupt")
      yield* bus.ensureGroup(s, "g", "$")
      const waiting = yield* Effect.fork(read(s, "c", 10, 5_000))
      yield* Effect.sleep("30 millis")
      yield* Fiber.interrupt(waiting)
      const id = yield* bus.publish(s, { after: "interrupt" })
      const fresh_ = yield* read(s, "c", 10, 500)
      const pending = yield* readPending(s, "c")
      expect([...ids(fresh_), ...ids(pending)]).toContain(id)
    }))

  it.effect("rangeAfter returns entries strictly after an id; tail the newest, oldest first", () =>
    Effect.gen(function* () {
      const bus = yield* Bus
      const s = fresh("range")
      const published = yield* bus.publishMany(s, [0, 1, 2, 3, 4].map((n) => ({ n })))
      expect(ids(yield* bus.rangeAfter(s, published[1]!, 2))).toEqual(published.slice(2, 4))
      expect(ids(yield* bus.rangeAfter(s, "0", 100))).toEqual(published)
      expect((yield* bus.rangeAfter(s, "0", 100)).map((e) => e.payload)).toEqual([0, 1, 2, 3, 4].map((n) => ({ n })))
      expect(yield* bus.rangeAfter(s, published[4]!, 10)).toEqual([])
      expect(ids(yield* bus.tail(s, 3))).toEqual(published.slice(2))
      expect(ids(yield* bus.tail(s, 50))).toEqual(published)
      expect(yield* bus.tail(fresh("empty"), 5)).toEqual([])
      expect(yield* bus.rangeAfter(fresh("empty"), "0", 5)).toEqual([])
    }))

  it.effect("publishing with maxLen trims the oldest entries to about maxLen; lag follows Redis's counting", () =>
    Effect.gen(function* () {
      const bus = yield* Bus
      const s = fresh("trim")
      yield* bus.ensureGroup(s, "early", "0")
      const firstTen = yield* bus.publishMany(s, Array.from({ length: 10 }, (_, n) => ({ n })), 50)
      expect(ids(yield* read(s, "c", 10, 0, "early"))).toEqual(firstTen)
      const published = [...firstTen, ...(yield* bus.publishMany(s, Array.from({ length: 290 }, (_, n) => ({ n: n + 10 })), 50))]
      const one = yield* bus.publish(s, { n: 300 }, 50)
      const { length } = yield* bus.groupInfo(s, "early")
      // Redis's `MAXLEN ~` trims whole nodes (100 entries by default): between 50 and 150 remain. Memory trims exactly.
      expect(length).toBeGreaterThanOrEqual(50)
      expect(length).toBeLessThanOrEqual(150)
      const kept = yield* bus.rangeAfter(s, "0", 1_000)
      expect(ids(kept)).toEqual([...published, one].slice(-length))
      expect(ids(yield* bus.tail(s, 1))).toEqual([one])

      // Entries added minus entries read, trimmed ones included (Redis 7's counting).
      expect((yield* bus.groupInfo(s, "early")).lag).toBe(301 - 10)
      // A group made at `0` after trimming can only count what is left.
      yield* bus.ensureGroup(s, "afterTrim", "0")
      expect((yield* bus.groupInfo(s, "afterTrim")).lag).toBe(length)
    }))

  it.effect("pending entries trimmed away before being handled are dropped, not re-delivered", () =>
    Effect.gen(function* () {
      const bus = yield* Bus
      const s = fresh("trimmedPending")
      yield* bus.ensureGroup(s, "g", "0")
      yield* bus.publishMany(s, [{ n: 1 }, { n: 2 }, { n: 3 }])
      expect(yield* read(s, "c")).toHaveLength(3)
      yield* bus.publishMany(s, Array.from({ length: 300 }, (_, n) => ({ n })), 50)
      expect((yield* bus.groupInfo(s, "g")).pending).toBe(3)
      expect(yield* readPending(s, "c")).toEqual([])
      expect((yield* bus.groupInfo(s, "g")).pending).toBe(0)
    }))

  it.effect("payloads travel as JSON: readers get copies, dates become strings", () =>
    Effect.gen(function* () {
      const bus = yield* Bus
      const s = fresh("json")
      const payload = { nested: { list: [1, "two", null] }, at: new Date(0), gone: undefined }
      yield* bus.publish(s, payload)
      payload.nested.list.push(4)
      const [entry] = yield* bus.tail(s, 1)
      expect(entry!.payload).toEqual({ nested: { list: [1, "two", null] }, at: "1970-01-01T00:00:00.000Z" })
      expect("gone" in entry!.payload).toBe(false)
    }))

  it.effect("reading a group that was never created is a defect (NOGROUP)", () =>
    Effect.gen(function* () {
      const bus = yield* Bus
      const s = fresh("nogroup")
      yield* bus.publish(s, { n: 1 })
      const exits = [
        yield* Effect.exit(read(s, "c", 10, 0, "never")),
        yield* Effect.exit(readPending(s, "c", 10, "never")),
        yield* Effect.exit(bus.claimStale({ stream: s, group: "never", consumer: "c", count: 10, minIdleMs: 0 }))
      ]
      for (const exit of exits) {
        expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
        if (Exit.isFailure(exit)) expect(Cause.pretty(exit.cause)).toMatch(/NOGROUP/)
      }
    }))

  it.effect("ping answers and stats count what was published and acked", () =>
    Effect.gen(function* () {
      const bus = yield* Bus
      const s = fresh("stats")
      yield* bus.ensureGroup(s, "g", "0")
      const before = yield* bus.stats
      yield* bus.publishMany(s, [{ n: 1 }, { n: 2 }, { n: 3 }])
      const got = yield* read(s, "c")
      yield* bus.ack(s, "g", ids(got).slice(0, 2))
      yield* bus.ack(s, "g", ids(got).slice(0, 2)) // acking twice counts once
      const after = yield* bus.stats
      expect(after.kind).toBe(bus.kind)
      expect(after.published - before.published).toBe(3)
      expect(after.acked - before.acked).toBe(2)
      expect(yield* bus.ping).toBe(true)
    }))
}

describe("Bus contract", () => {
  layer(BusMemory.layer, { excludeTestServices: true })("memory", (it) => busContract(it))

  if (process.env.CI && !process.env.WHALE_TEST_EMBEDDED && !redisUrl) {
    it("redis: REDIS_URL must be set in CI", () => {
      throw new Error("CI is set but REDIS_URL is not: the Redis bus would go untested. Set REDIS_URL=redis://127.0.0.1:6379.")
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
    const live = Layer.mergeAll(BusRedis.layer(), cleanup, Layer.effect(RedisClient, RedisClient)).pipe(Layer.provide(client), Layer.orDie)

    layer(live, { excludeTestServices: true })((it) => {
      busContract(it)

      it.effect("every stream key carries the prefix", () =>
        Effect.gen(function* () {
          const bus = yield* Bus
          const redis = yield* RedisClient
          const s = fresh("prefixed")
          yield* bus.publish(s, { n: 1 })
          const [withPrefix, bare] = yield* redis.run("EXISTS", (c) => Promise.all([c.exists(prefix + s), c.exists(s)]))
          expect([withPrefix, bare]).toEqual([1, 0])
        }))
    })
  })
})
