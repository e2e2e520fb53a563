/**
 * The actor runtime on both buses: a crashed actor restarts and resumes its own pending message; a poison message
 * reaches the dead-letter stream after the delivery limit; an invalid message is dead-lettered at once; a dead
 * consumer's pending message is reclaimed; too many restarts mark an actor failed.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { randomBytes } from "node:crypto"
import { ConfigProvider, Effect, Exit, Layer, Logger, LogLevel, ManagedRuntime, Scope } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { loopActor, streamActor, type ActorDef } from "../../server/platform/actors/Actor"
import { ActorRegistry, type ActorStatus } from "../../server/platform/actors/Registry"
import { startActor } from "../../server/platform/actors/Runner"
import { AppConfig } from "../../server/platform/Config"
import { Bus } from "../../server/platform/infra/Bus"
import { BusMemory } from "../../server/platform/infra/BusMemory"
import { BusRedis } from "../../server/platform/infra/BusRedis"
import { Kv } from "../../server/platform/infra/Kv"
import { RedisClient } from "../../server/platform/infra/Redis"
import { dropRedisPrefix, realRedisUrl, skipWithout, testEnv } from "../support/env"
import { waitFor } from "../support/wait"

const Msg = z.object({ messageId: z.string(), n: z.number(), kind: z.enum(["ok", "crash-once", "poison"]) })
type Msg = z.infer<typeof Msg>

const prefixes: Array<string> = []
afterAll(async () => {
  if (realRedisUrl) for (const p of prefixes) await dropRedisPrefix(realRedisUrl, p)
})

const makeRuntime = (kind: "memory" | "redis") => {
  const env = { ...testEnv(mkdtempSync(join(tmpdir(), "whale-actors-"))), ACTOR_MAX_DELIVERIES: "3", ACTOR_CLAIM_IDLE_MS: "150", ACTOR_MAX_RESTARTS: "3", ACTOR_RESTART_WINDOW_MS: "10000" }
  const config = AppConfig.Default.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))
  let busKv: Layer.Layer<Bus | Kv>
  if (kind === "memory") busKv = Layer.merge(BusMemory.layer, Kv.memory)
  else {
    const prefix = `test:${randomBytes(4).toString("hex")}:`
    prefixes.push(prefix)
    busKv = Layer.merge(BusRedis.layer(), Kv.redis).pipe(Layer.provide(RedisClient.layer({ url: realRedisUrl!, prefix }).pipe(Layer.orDie)))
  }
  return ManagedRuntime.make(Layer.mergeAll(busKv, ActorRegistry.Default, config, Logger.minimumLogLevel(LogLevel.Error)))
}

type Rt = ReturnType<typeof makeRuntime>

/** Starts an actor in its own scope; returns a reader for its status and a stop function. */
const start = async (rt: Rt, def: ActorDef<never>) => {
  const scope = await rt.runPromise(Scope.make())
  await rt.runPromise(startActor(def).pipe(Scope.extend(scope)))
  return {
    status: () => rt.runPromise(Effect.flatMap(ActorRegistry, (r) => r.get(def.name))) as Promise<ActorStatus>,
    stop: () => rt.runPromise(Scope.close(scope, Exit.void))
  }
}

const publish = (rt: Rt, stream: string, msg: Msg) => rt.runPromise(Effect.flatMap(Bus, (b) => b.publish(stream, msg)))
const info = (rt: Rt, stream: string, group: string) => rt.runPromise(Effect.flatMap(Bus, (b) => b.groupInfo(stream, group)))

const kinds: Array<"memory" | "redis"> = ["memory", "redis"]
for (const kind of kinds) {
  const missingRedis = kind === "redis" && skipWithout("REDIS_URL")
  describe.skipIf(missingRedis)(`actor runtime on the ${kind} bus${missingRedis ? " (skipped: REDIS_URL not set)" : ""}`, () => {
    it("restarts a crashed actor, which then handles the message it crashed on, once", async () => {
      const rt = makeRuntime(kind)
      const seen: Array<{ n: number; deliveries: number }> = []
      let crashed = false
      const actor = await start(rt, streamActor({
        name: "crashy", stream: "t.crash", schema: Msg,
        behaviour: Effect.succeed((m: Msg, meta) => Effect.suspend(() => {
          if (m.kind === "crash-once" && !crashed) {
            crashed = true
            return Effect.die(new Error("boom"))
          }
          seen.push({ n: m.n, deliveries: meta.deliveries })
          return Effect.void
        }))
      }))
      await publish(rt, "t.crash", { messageId: "a", n: 1, kind: "crash-once" })
      await publish(rt, "t.crash", { messageId: "b", n: 2, kind: "ok" })
      await waitFor(() => seen.length === 2, 5_000)
      // A restarted life re-handles its own pending entries first, then reports itself running.
      await waitFor(async () => (await actor.status()).state === "running", 5_000)
      const s = await actor.status()
      expect(s.restarts).toBe(1)
      expect(s.lastError).toContain("boom")
      // Both were read in one batch before the crash: each was delivered again once, and handled once.
      expect(seen.map((x) => x.n)).toEqual([1, 2])
      expect(seen[0]!.deliveries).toBe(2)
      expect(seen[1]!.deliveries).toBeLessThanOrEqual(2)
      await waitFor(async () => (await info(rt, "t.crash", "crashy")).pending === 0, 3_000)
      await actor.stop()
      expect((await actor.status()).state).toBe("stopped")
      await rt.dispose()
    })

    it("moves a poison message to the dead-letter stream after the delivery limit, and keeps serving", async () => {
      const rt = makeRuntime(kind)
      let attempts = 0
      const good: Array<number> = []
      const actor = await start(rt, streamActor({
        name: "picky", stream: "t.poison", schema: Msg,
        behaviour: Effect.succeed((m: Msg) => m.kind === "poison"
          ? Effect.suspend(() => { attempts++; return Effect.fail(new Error("cannot digest")) })
          : Effect.sync(() => { good.push(m.n) }))
      }))
      await publish(rt, "t.poison", { messageId: "p", n: 1, kind: "poison" })
      await publish(rt, "t.poison", { messageId: "g", n: 2, kind: "ok" })
      await waitFor(async () => (await info(rt, "t.poison", "picky")).deadLetters === 1, 8_000)
      expect(attempts).toBe(3)
      expect(good).toEqual([2])
      const dlq = await rt.runPromise(Effect.flatMap(Bus, (b) => b.tail("dlq:t.poison", 10)))
      expect(dlq).toHaveLength(1)
      expect(JSON.stringify(dlq[0]!.payload)).toContain("cannot digest")
      const s = await actor.status()
      expect(s.state).toBe("running")
      expect(s.deadLettered).toBe(1)
      expect(s.failures).toBe(3)
      expect((await info(rt, "t.poison", "picky")).pending).toBe(0)
      await actor.stop()
      await rt.dispose()
    })

    it("dead-letters a message that crashes the actor every time, and handles the rest of its batch", async () => {
      const rt = makeRuntime(kind)
      const good: Array<number> = []
      const actor = await start(rt, streamActor({
        name: "fragile", stream: "t.crashy-poison", schema: Msg,
        behaviour: Effect.succeed((m: Msg) => m.kind === "poison" ? Effect.die(new Error("segfault-ish")) : Effect.sync(() => { good.push(m.n) }))
      }))
      await publish(rt, "t.crashy-poison", { messageId: "p", n: 1, kind: "poison" })
      for (let n = 2; n <= 6; n++) await publish(rt, "t.crashy-poison", { messageId: `g${n}`, n, kind: "ok" })
      await waitFor(() => good.length === 5, 8_000)
      const i = await info(rt, "t.crashy-poison", "fragile")
      expect(i.deadLetters).toBe(1)
      expect(good).toEqual([2, 3, 4, 5, 6])
      const s = await actor.status()
      expect(s.restarts).toBe(3)
      expect(s.state).toBe("running")
      await actor.stop()
      await rt.dispose()
    })

    it("hands a read to behaviourMany in one call, in order; a failing message is tried alone and does not hold up the rest", async () => {
      const rt = makeRuntime(kind)
      const calls: Array<Array<number>> = []
      const good: Array<number> = []
      const actor = await start(rt, streamActor({
        name: "many", stream: "t.many", schema: Msg, batch: 64,
        behaviourMany: Effect.succeed((ms: ReadonlyArray<Msg>) => Effect.suspend(() => {
          calls.push(ms.map((m) => m.n))
          if (ms.some((m) => m.kind === "poison")) return Effect.fail(new Error("cannot digest"))
          return Effect.sync(() => { for (const m of ms) good.push(m.n) })
        }))
      }))
      await rt.runPromise(Effect.flatMap(Bus, (b) => b.publishMany("t.many", [1, 2, 3, 4, 5].map((n) => ({ messageId: `m${n}`, n, kind: n === 3 ? "poison" : "ok" })))))
      await waitFor(async () => (await info(rt, "t.many", "many")).deadLetters === 1, 8_000)
      // The good ones once each, in order; the poison one dead-lettered after the delivery limit.
      expect(good).toEqual([1, 2, 4, 5])
      expect(calls.some((c) => c.length > 1)).toBe(true)
      expect((await info(rt, "t.many", "many")).pending).toBe(0)
      expect((await actor.status()).handled).toBe(4)
      await actor.stop()
      await rt.dispose()
    })

    it("dead-letters a message that does not match the protocol without calling the handler", async () => {
      const rt = makeRuntime(kind)
      let calls = 0
      const actor = await start(rt, streamActor({
        name: "strict", stream: "t.invalid", schema: Msg,
        behaviour: Effect.succeed(() => Effect.sync(() => { calls++ }))
      }))
      await rt.runPromise(Effect.flatMap(Bus, (b) => b.publish("t.invalid", { hello: "world" })))
      await waitFor(async () => (await info(rt, "t.invalid", "strict")).deadLetters === 1, 3_000)
      expect(calls).toBe(0)
      await actor.stop()
      await rt.dispose()
    })

    it("reclaims a message a dead consumer left pending", async () => {
      const rt = makeRuntime(kind)
      await rt.runPromise(Effect.gen(function* () {
        const bus = yield* Bus
        yield* bus.ensureGroup("t.reclaim", "heir", "0")
        yield* bus.publish("t.reclaim", { messageId: "orphan", n: 7, kind: "ok" })
        const taken = yield* bus.read({ stream: "t.reclaim", group: "heir", consumer: "dead-process", count: 10, blockMs: 0 })
        expect(taken).toHaveLength(1)
      }))
      const seen: Array<{ n: number; deliveries: number }> = []
      const actor = await start(rt, streamActor({
        name: "heir", stream: "t.reclaim", schema: Msg,
        behaviour: Effect.succeed((m: Msg, meta) => Effect.sync(() => { seen.push({ n: m.n, deliveries: meta.deliveries }) }))
      }))
      await waitFor(() => seen.length === 1, 5_000)
      expect(seen[0]).toEqual({ n: 7, deliveries: 2 })
      await waitFor(async () => (await info(rt, "t.reclaim", "heir")).pending === 0, 3_000)
      await actor.stop()
      await rt.dispose()
    })

    it("marks an actor failed after too many restarts within the window", async () => {
      const rt = makeRuntime(kind)
      let lives = 0
      const actor = await start(rt, loopActor({
        name: "doomed",
        run: () => Effect.suspend(() => { lives++; return Effect.die(new Error(`life ${lives} ended`)) })
      }))
      await waitFor(async () => (await actor.status()).state === "failed", 5_000)
      const s = await actor.status()
      expect(lives).toBe(4)
      expect(s.restarts).toBe(4)
      expect(s.lastError).toContain("life 4 ended")
      await actor.stop()
      await rt.dispose()
    })
  })
}
