/**
 * Operator restarts (`ActorRegistry.restart`, behind the dashboard's restart button): a running actor gets a fresh
 * life at once; a `failed` one starts again with a new restart window; an unknown name is refused.
 */
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Exit, Layer, Logger, LogLevel, ManagedRuntime, Scope } from "effect"
import { describe, expect, it } from "vitest"
import { loopActor, type ActorDef } from "../../server/platform/actors/Actor"
import { ActorRegistry, type ActorStatus } from "../../server/platform/actors/Registry"
import { startActor } from "../../server/platform/actors/Runner"
import { AppConfig } from "../../server/platform/Config"
import { BusMemory } from "../../server/platform/infra/BusMemory"
import { Kv } from "../../server/platform/infra/Kv"
import { testEnv } from "../support/env"
import { waitFor } from "../support/wait"

const makeRuntime = () => {
  const env = { ...testEnv(mkdtempSync(join(tmpdir(), "whale-restart-"))), ACTOR_MAX_RESTARTS: "2", ACTOR_RESTART_WINDOW_MS: "60000" }
  const config = AppConfig.Default.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))
  return ManagedRuntime.make(Layer.mergeAll(BusMemory.layer, Kv.memory, ActorRegistry.Default, config, Logger.minimumLogLevel(LogLevel.None)))
}

const run = async (def: ActorDef<never>) => {
  const rt = makeRuntime()
  const scope = await rt.runPromise(Scope.make())
  await rt.runPromise(startActor(def).pipe(Scope.extend(scope)))
  return {
    status: () => rt.runPromise(Effect.flatMap(ActorRegistry, (r) => r.get(def.name))) as Promise<ActorStatus>,
    restart: (name = def.name) => rt.runPromise(Effect.flatMap(ActorRegistry, (r) => r.restart(name))),
    /** Stops the actor; returns its last status. */
    stop: async () => {
      await rt.runPromise(Scope.close(scope, Exit.void))
      const last = (await rt.runPromise(Effect.flatMap(ActorRegistry, (r) => r.get(def.name)))) as ActorStatus
      await rt.dispose()
      return last
    }
  }
}

describe("operator restart", () => {
  it("interrupts a running actor's life and starts a fresh one at once", async () => {
    let lives = 0
    let interrupted = 0
    const actor = await run(loopActor({
      name: "steady",
      run: () => Effect.suspend(() => {
        lives++
        return Effect.never
      }).pipe(Effect.onInterrupt(() => Effect.sync(() => void interrupted++)))
    }))
    await waitFor(async () => (await actor.status()).state === "running", 5_000)
    expect(await actor.restart()).toBe(true)
    await waitFor(() => lives === 2, 5_000)
    const s = await actor.status()
    expect(interrupted).toBe(1)
    expect(s.state).toBe("running")
    expect(s.restarts).toBe(1)
    expect(s.lastError).toBeNull()
    expect(await actor.restart("nobody")).toBe(false)
    await actor.stop()
  })

  it("starts a failed actor again, with a fresh restart window", async () => {
    let lives = 0
    let healthy = false
    const actor = await run(loopActor({
      name: "flaky",
      run: () => Effect.suspend(() => {
        lives++
        return healthy ? Effect.never : Effect.die(new Error(`life ${lives} ended`))
      })
    }))
    await waitFor(async () => (await actor.status()).state === "failed", 10_000)
    expect(lives).toBe(3)
    healthy = true
    expect(await actor.restart()).toBe(true)
    await waitFor(async () => (await actor.status()).state === "running", 5_000)
    const s = await actor.status()
    expect(lives).toBe(4)
    expect(s.restarts).toBe(4)
    expect(s.lastError).toContain("life 3 ended")
    expect((await actor.stop()).state).toBe("stopped")
  })
})
