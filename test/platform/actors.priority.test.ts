/**
 * The alert path first (platform/actors/Priority.ts): while an urgent actor handles a read, a deferrable actor of the
 * same process holds its own read back, and handles it once the urgent work is over; it never waits longer than
 * ACTOR_DEFER_MAX_MS (urgent work that never ends does not starve it), and the wait is counted on /metrics. An actor
 * of neither kind is never held.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Deferred, Effect, Exit, Layer, Logger, LogLevel, ManagedRuntime, Scope } from "effect"
import { afterEach, expect, it } from "vitest"
import { z } from "zod"
import { streamActor, type ActorDef } from "../../server/platform/actors/Actor"
import { ActorPriorityGate, type ActorPriority } from "../../server/platform/actors/Priority"
import { ActorRegistry } from "../../server/platform/actors/Registry"
import { startActor } from "../../server/platform/actors/Runner"
import { AppConfig } from "../../server/platform/Config"
import { Bus } from "../../server/platform/infra/Bus"
import { BusMemory } from "../../server/platform/infra/BusMemory"
import { Kv } from "../../server/platform/infra/Kv"
import { Metrics } from "../../server/platform/ops/Metrics"
import { testEnv } from "../support/env"
import { waitFor } from "../support/wait"

const Msg = z.object({ messageId: z.string() })

const makeRuntime = (deferMaxMs: number) => {
  const env = { ...testEnv(mkdtempSync(join(tmpdir(), "whale-priority-"))), ACTOR_DEFER_MAX_MS: String(deferMaxMs) }
  const config = AppConfig.Default.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))
  const base = Layer.mergeAll(BusMemory.layer, Kv.memory, ActorRegistry.Default, Metrics.Default, config, Logger.minimumLogLevel(LogLevel.Error))
  return ManagedRuntime.make(ActorPriorityGate.Default.pipe(Layer.provideMerge(base)))
}
type Rt = ReturnType<typeof makeRuntime>

let rt: Rt | undefined
afterEach(async () => {
  await rt?.dispose()
  rt = undefined
})

/** An actor on its own stream: `urgent` ones wait on `release` inside their handler; every handling is logged. */
const actor = (name: string, priority: ActorPriority | undefined, log: Array<string>, release?: Deferred.Deferred<void>): ActorDef<never> =>
  streamActor({
    name, stream: `test.${name}`, schema: Msg, priority,
    behaviour: Effect.succeed((m: z.infer<typeof Msg>) =>
      Effect.gen(function* () {
        log.push(`${name} start ${m.messageId}`)
        if (release) yield* Deferred.await(release)
        log.push(`${name} end ${m.messageId}`)
      }))
  })

const startAll = async (r: Rt, defs: ReadonlyArray<ActorDef<never>>) => {
  const scope = await r.runPromise(Scope.make())
  for (const d of defs) await r.runPromise(startActor(d).pipe(Scope.extend(scope)))
  return () => r.runPromise(Scope.close(scope, Exit.void))
}
const publish = (r: Rt, name: string, id: string) => r.runPromise(Effect.flatMap(Bus, (b) => b.publish(`test.${name}`, { messageId: id })))

it("holds a deferrable actor's read while urgent work runs, and lets it go after; a plain actor is never held", async () => {
  rt = makeRuntime(60_000)
  const log: Array<string> = []
  const release = await rt.runPromise(Deferred.make<void>())
  const stop = await startAll(rt, [actor("alerts", "urgent", log, release), actor("analytics", "deferrable", log), actor("plain", undefined, log)])
  await publish(rt, "alerts", "a1")
  await waitFor(() => log.includes("alerts start a1"), 5_000)
  await publish(rt, "analytics", "b1")
  await publish(rt, "plain", "c1")
  // The plain actor goes on; the deferrable one has its read and waits.
  await waitFor(() => log.includes("plain end c1"), 5_000)
  expect(log).not.toContain("analytics start b1")
  expect(await rt.runPromise(Effect.flatMap(ActorPriorityGate, (g) => Effect.sync(() => g.busy())))).toBe(true)

  await rt.runPromise(Deferred.succeed(release, undefined))
  await waitFor(() => log.includes("analytics end b1"), 5_000)
  expect(log.indexOf("analytics start b1")).toBeGreaterThan(log.indexOf("alerts end a1"))
  const metrics = await rt.runPromise(Effect.flatMap(Metrics, (m) => m.render))
  expect(metrics).toMatch(/actor_deferred_seconds_total\{actor="analytics"\} [0-9.]+/)
  await stop()
})

it("never holds a deferrable actor longer than ACTOR_DEFER_MAX_MS", async () => {
  rt = makeRuntime(300)
  const log: Array<string> = []
  const release = await rt.runPromise(Deferred.make<void>())
  const stop = await startAll(rt, [actor("alerts", "urgent", log, release), actor("analytics", "deferrable", log)])
  await publish(rt, "alerts", "a1")
  await waitFor(() => log.includes("alerts start a1"), 5_000)
  const sent = Date.now()
  await publish(rt, "analytics", "b1")
  // Urgent work never ends here: the deferrable actor still handles its message, after the longest wait.
  await waitFor(() => log.includes("analytics end b1"), 5_000)
  expect(Date.now() - sent).toBeGreaterThanOrEqual(300)
  expect(log).not.toContain("alerts end a1")
  await rt.runPromise(Deferred.succeed(release, undefined))
  await stop()
})
