/**
 * The actor's per-user entities, on Effect's TestClock: one user's commands run one at a time in arrival order,
 * different users side by side; an entity idle for ECHO_ACTOR_IDLE_MS is passivated, a busy one never is.
 */
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, TestClock } from "effect"
import { EchoEntities } from "../../actors/echo-portfolio/Entities"
import { EchoBook } from "../../server/domains/echo/Book"
import { stub } from "../support/stub"

// ECHO_ACTOR_IDLE_MS of one second; users hold nothing.
const TestLayer = EchoEntities.Default.pipe(
  Layer.provide(stub(EchoBook, { idleMs: 1_000, heldTokens: () => Effect.succeed([]) } as Partial<EchoBook>))
)

describe("echo entities", () => {
  it.scoped("serialize one user's commands and run users side by side", () =>
    Effect.gen(function* () {
      const entities = yield* EchoEntities
      const log: Array<string> = []
      const gate = yield* Deferred.make<void>()
      const first = yield* Effect.fork(entities.run(1, Deferred.await(gate).pipe(Effect.tap(() => log.push("u1:a")), Effect.asVoid)))
      yield* Effect.yieldNow()
      const second = yield* Effect.fork(entities.run(1, Effect.sync(() => void log.push("u1:b"))))
      const other = yield* Effect.fork(entities.run(2, Effect.sync(() => void log.push("u2:a"))))
      yield* Fiber.join(other)
      expect(log).toEqual(["u2:a"])
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(first)
      yield* Fiber.join(second)
      expect(log).toEqual(["u2:a", "u1:a", "u1:b"])
    }).pipe(Effect.provide(TestLayer)))

  it.scoped("passivates an idle entity after the idle time, never a busy one", () =>
    Effect.gen(function* () {
      const entities = yield* EchoEntities
      yield* entities.run(7, Effect.void)
      const gate = yield* Deferred.make<void>()
      const busy = yield* Effect.fork(entities.run(8, Deferred.await(gate)))
      yield* Effect.yieldNow()
      expect(entities.active()).toBe(2)
      yield* TestClock.adjust("500 millis")
      expect(entities.isActive(7)).toBe(true)
      yield* TestClock.adjust("1500 millis")
      expect(entities.isActive(7)).toBe(false)
      expect(entities.isActive(8)).toBe(true)
      expect(entities.passivated()).toBe(1)
      yield* Deferred.succeed(gate, undefined)
      yield* Fiber.join(busy)
      yield* TestClock.adjust("2 seconds")
      expect(entities.active()).toBe(0)
    }).pipe(Effect.provide(TestLayer)))
})
