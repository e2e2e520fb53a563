/**
 * Starts actors as supervised fibers in the current scope, each registered in the ActorRegistry.
 * Stream actors run their mailbox; loop actors their `run`; singletons first win a lease (see Lease.ts).
 */
import { Effect } from "effect"
import { AppConfig } from "../Config"
import type { Bus } from "../infra/Bus"
import type { Kv } from "../infra/Kv"
import type { ActorDef } from "./Actor"
import { singletonLife } from "./Lease"
import { mailboxLife } from "./Mailbox"
import { ActorRegistry, type ActorHandle } from "./Registry"
import { supervise, type RestartPolicy } from "./Supervisor"

const life = <R>(def: ActorDef<R>, handle: ActorHandle): Effect.Effect<void, unknown, R | Bus | AppConfig | Kv> => {
  if (def.kind === "stream") return mailboxLife(def, handle)
  const run = Effect.suspend(() => {
    handle.update({ state: "running" })
    handle.heartbeat()
    return def.run(handle)
  }).pipe(Effect.annotateLogs({ actor: def.name }))
  return def.singleton ? singletonLife(def.name, handle, run) : run
}

export const startActor = <R>(def: ActorDef<R>) =>
  Effect.gen(function* () {
    if (def.active !== undefined && !(yield* def.active)) return null
    const registry = yield* ActorRegistry
    const { actors: s } = yield* AppConfig
    const handle = def.kind === "stream"
      ? registry.register(def.name, "stream", def.stream, def.group ?? def.name)
      : registry.register(def.name, "loop")
    const policy: RestartPolicy = { baseMs: s.restartBaseMs, maxMs: s.restartMaxMs, maxRestarts: s.maxRestarts, windowMs: s.restartWindowMs }
    yield* Effect.forkScoped(supervise(def.name, handle, life(def, handle), policy))
    return handle
  })

export const startActors = <R>(defs: ReadonlyArray<ActorDef<R>>) => Effect.forEach(defs, startActor, { discard: true })
