/**
 * Singletons across processes: a life runs only while this process holds the actor's lease in Redis (Kv).
 * Without the lease the actor waits in `standby` until the holder's lease would run out (at most a renewal period),
 * then tries again, so a dead holder is replaced within the lease time; losing the lease mid-run interrupts the work
 * and goes back to standby. Correctness never depends on this alone: the work itself is idempotent.
 *
 * The lease lasts `ACTOR_LEASE_TTL_MS` (15 s) and is renewed every third of it.
 */
import { Duration, Effect, Fiber } from "effect"
import { AppConfig } from "../Config"
import { Kv } from "../infra/Kv"
import { INSTANCE } from "../Instance"
import type { ActorHandle } from "./Registry"

/** A stand-by's shortest wait between two tries (a lease just expiring is taken on the next one). */
const MIN_STANDBY_WAIT_MS = 20

export const singletonLife = <E, R>(name: string, handle: ActorHandle, run: Effect.Effect<void, E, R>) =>
  Effect.gen(function* () {
    const kv = yield* Kv
    const { actors: { leaseTtlMs } } = yield* AppConfig
    const renewEvery = Math.max(1, Math.floor(leaseTtlMs / 3))
    const lease = `lease:${name}`
    while (true) {
      if (!(yield* kv.acquireLease(lease, INSTANCE, leaseTtlMs))) {
        if (handle.get().state !== "standby") handle.update({ state: "standby" })
        handle.heartbeat()
        // Until the holder's lease would run out (a live holder renews it meanwhile), a renewal period at most.
        const left = yield* kv.leaseRemainingMs(lease)
        yield* Effect.sleep(Duration.millis(Math.min(renewEvery, Math.max(MIN_STANDBY_WAIT_MS, left + 1))))
        continue
      }
      yield* Effect.logInfo(`acquired lease ${lease}`)
      const work = yield* Effect.fork(run)
      // Renew while working; if the lease is lost, stop the work and go back to standby.
      const lost = yield* Effect.gen(function* () {
        while (true) {
          yield* Effect.sleep(Duration.millis(renewEvery))
          if (!(yield* kv.renewLease(lease, INSTANCE, leaseTtlMs))) return true
        }
      }).pipe(Effect.raceFirst(Fiber.join(work).pipe(Effect.as(false))), Effect.ensuring(Fiber.interrupt(work)))
      if (lost) yield* Effect.logWarning(`lost lease ${lease}; standing by`)
      else return
    }
  }).pipe(Effect.ensuring(Effect.flatMap(Kv, (kv) => kv.releaseLease(`lease:${name}`, INSTANCE)).pipe(Effect.ignore)))
