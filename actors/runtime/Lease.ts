/**
 * Singletons across processes: a life runs only while this process holds the actor's lease in Redis (Kv).
 * Without the lease the actor waits in `standby`, retrying; losing the lease mid-run interrupts the work and goes
 * back to standby. Correctness never depends on this alone: the work itself is idempotent.
 */
import { Duration, Effect, Fiber } from "effect"
import { Kv } from "../../server/platform/infra/Kv"
import { INSTANCE } from "../../server/platform/Instance"
import type { ActorHandle } from "./Registry"

export const LEASE_TTL_MS = 15_000
const RENEW_EVERY_MS = 5_000

export const singletonLife = <E, R>(name: string, handle: ActorHandle, run: Effect.Effect<void, E, R>) =>
  Effect.gen(function* () {
    const kv = yield* Kv
    const lease = `lease:${name}`
    while (true) {
      if (!(yield* kv.acquireLease(lease, INSTANCE, LEASE_TTL_MS))) {
        if (handle.get().state !== "standby") handle.update({ state: "standby" })
        handle.heartbeat()
        yield* Effect.sleep(Duration.millis(RENEW_EVERY_MS))
        continue
      }
      yield* Effect.logInfo(`acquired lease ${lease}`)
      const work = yield* Effect.fork(run)
      // Renew while working; if the lease is lost, stop the work and go back to standby.
      const lost = yield* Effect.gen(function* () {
        while (true) {
          yield* Effect.sleep(Duration.millis(RENEW_EVERY_MS))
          if (!(yield* kv.renewLease(lease, INSTANCE, LEASE_TTL_MS))) return true
        }
      }).pipe(Effect.raceFirst(Fiber.join(work).pipe(Effect.as(false))), Effect.ensuring(Fiber.interrupt(work)))
      if (lost) yield* Effect.logWarning(`lost lease ${lease}; standing by`)
      else return
    }
  }).pipe(Effect.ensuring(Effect.flatMap(Kv, (kv) => kv.releaseLease(`lease:${name}`, INSTANCE)).pipe(Effect.ignore)))
