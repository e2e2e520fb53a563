import { Deferred, Effect, Exit, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { memo } from "../../server/platform/infra/Memo"

describe("memo", () => {
  it("computes once for concurrent callers, then serves the value synchronously while fresh", async () => {
    let clock = 1_000
    const gate = Effect.runSync(Deferred.make<void>())
    const m = Effect.runSync(memo({ ttl: "60 seconds", now: () => clock, compute: (k: string) => Deferred.await(gate).pipe(Effect.as(`${k}@${clock}`)) }))
    const waiting = Effect.runFork(Effect.all(Array.from({ length: 50 }, () => m.get("a")), { concurrency: "unbounded" }))
    await Effect.runPromise(Deferred.succeed(gate, undefined))
    const values = await Effect.runPromise(Fiber.join(waiting))
    expect(new Set(values)).toEqual(new Set(["a@1000"]))
    expect(m.computations()).toBe(1)
    // A fresh hit completes synchronously: runSync would throw on an asynchronous effect.
    clock += 59_000
    expect(Effect.runSync(m.get("a"))).toBe("a@1000")
  })

  it("by default never serves a value older than its ttl: callers await the one refresh", async () => {
    let clock = 0
    let n = 0
    const m = Effect.runSync(memo({ ttl: "1 second", now: () => clock, compute: () => Effect.sync(() => ++n).pipe(Effect.delay("20 millis")) }))
    expect(await Effect.runPromise(m.get("k"))).toBe(1)
    clock = 1_500
    expect(await Effect.runPromise(Effect.all([m.get("k"), m.get("k"), m.get("k")], { concurrency: "unbounded" }))).toEqual([2, 2, 2])
    expect(m.computations()).toBe(2)
  })

  it("with maxStale, serves a stale value at once while one refresh runs, then the new value", async () => {
    let clock = 0
    let n = 0
    const m = Effect.runSync(memo({ ttl: "1 second", maxStale: "10 seconds", now: () => clock, compute: () => Effect.sync(() => ++n).pipe(Effect.delay("20 millis")) }))
    expect(await Effect.runPromise(m.get("k"))).toBe(1)
    clock = 1_500
    expect(Effect.runSync(m.get("k"))).toBe(1)
    expect(Effect.runSync(m.get("k"))).toBe(1)
    await new Promise((r) => setTimeout(r, 60))
    expect(Effect.runSync(m.get("k"))).toBe(2)
    expect(m.computations()).toBe(2)
  })

  it("with refreshAfter, refreshes ahead of expiry: callers never wait and never get a value older than ttl", async () => {
    let clock = 0
    let n = 0
    const m = Effect.runSync(memo({ ttl: "10 seconds", refreshAfter: "8 seconds", now: () => clock, compute: () => Effect.sync(() => ++n).pipe(Effect.delay("20 millis")) }))
    expect(await Effect.runPromise(m.get("k"))).toBe(1)
    clock = 7_999
    expect(m.peek("k")).toBe(1)
    expect(m.computations()).toBe(1)
    clock = 8_500
    expect(m.peek("k")).toBe(1)
    expect(m.peek("k")).toBe(1)
    expect(m.computations()).toBe(2)
    await new Promise((r) => setTimeout(r, 60))
    expect(m.peek("k")).toBe(2)
    // With nobody asking inside the window, an expired value is not served: the caller waits for a new one.
    clock = 30_000
    expect(m.peek("k")).toBeUndefined()
    expect(await Effect.runPromise(m.get("k"))).toBe(3)
  })

  it("waits for the refresh when the value is older than maxStale, and does not keep failures", async () => {
    let clock = 0
    let fail = false
    const m = Effect.runSync(memo({ ttl: "1 second", maxStale: "5 seconds", now: () => clock, compute: () => (fail ? Effect.fail("down") : Effect.succeed(clock)) }))
    expect(await Effect.runPromise(m.get("k"))).toBe(0)
    clock = 10_000
    fail = true
    const exit = await Effect.runPromise(Effect.exit(m.get("k")))
    expect(Exit.isFailure(exit)).toBe(true)
    fail = false
    expect(await Effect.runPromise(m.get("k"))).toBe(10_000)
  })
})

describe("memo.peek", () => {
  it("gives a fresh value without Effect, nothing for a missing or too old one, and starts the refresh of a stale one", async () => {
    let clock = 0
    let n = 0
    const m = Effect.runSync(memo({ ttl: "1 second", maxStale: "10 seconds", now: () => clock, compute: () => Effect.sync(() => ++n).pipe(Effect.delay("5 millis")) }))
    expect(m.peek("k")).toBeUndefined()
    expect(m.computations()).toBe(0)
    expect(await Effect.runPromise(m.get("k"))).toBe(1)
    expect(m.peek("k")).toBe(1)
    clock = 1_500
    expect(m.peek("k")).toBe(1)
    expect(m.computations()).toBe(2)
    await new Promise((r) => setTimeout(r, 40))
    expect(m.peek("k")).toBe(2)
    clock = 20_000
    expect(m.peek("k")).toBeUndefined()
  })
})
