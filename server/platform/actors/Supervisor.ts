/**
 * Supervision: run one life of an actor; when it ends in failure, restart it after an exponential back-off with
 * jitter; more than `maxRestarts` restarts within `windowMs` marks it `failed` and leaves it stopped (readiness
 * goes false, everything else keeps serving). Interruption (shutdown) stops it as `stopped`.
 *
 * A life that ends because a dependency is unreachable (database or Redis down: see server/platform/infra/Unavailable.ts)
 * is retried with the same back-off, capped at `maxMs`, without spending the restart budget: an outage longer than
 * the window leaves the actor `restarting` (not ready, with the reason) and it runs again once the dependency is back.
 *
 * An operator's restart (`ActorRegistry.restart`, the dashboard's button) interrupts the running life and starts a
 * fresh one at once, or starts a `failed` actor again; it counts as a restart and opens a new restart window.
 */
import { Cause, Deferred, Duration, Effect, Exit } from "effect"
import { causeIsUnavailable } from "../infra/Unavailable"
import { describeError, type ActorHandle } from "./Registry"

export interface RestartPolicy {
  readonly baseMs: number
  readonly maxMs: number
  readonly maxRestarts: number
  readonly windowMs: number
}

/** Delay before restart number `n` (1-based) of a burst: base·2^(n-1), capped, then scaled by a jitter in [0.5, 1]. */
export const restartDelay = (policy: RestartPolicy, n: number, random = Math.random()) =>
  Math.round(Math.min(policy.maxMs, policy.baseMs * 2 ** Math.max(0, n - 1)) * (0.5 + random / 2))

const causeText = (cause: Cause.Cause<unknown>) => {
  const failure = Cause.failureOption(cause)
  if (failure._tag === "Some") return describeError(failure.value)
  const defect = Cause.dieOption(cause)
  if (defect._tag === "Some") return describeError(defect.value)
  return Cause.pretty(cause).split("\n")[0] ?? "unknown"
}

const OPERATOR_RESTART = Symbol("operator restart")

export const supervise = <E, R>(name: string, handle: ActorHandle, life: Effect.Effect<void, E, R>, policy: RestartPolicy) =>
  Effect.gen(function* () {
    const recent: Array<number> = []
    /** Consecutive lives ended by an unreachable dependency (reset by a life that ends otherwise). */
    let outages = 0
    let requested = yield* Deferred.make<void>()
    handle.onRestart(() => Deferred.unsafeDone(requested, Effect.void))
    const restartedByOperator = Effect.gen(function* () {
      requested = yield* Deferred.make<void>()
      recent.length = 0
      const restarts = handle.get().restarts + 1
      handle.update({ state: "restarting", restarts })
      yield* Effect.logWarning(`actor ${name} restarted by an operator (restart ${restarts})`)
    })
    while (true) {
      // A request made while waiting to restart is served by this restart.
      if (yield* Deferred.isDone(requested)) requested = yield* Deferred.make<void>()
      const operator = Deferred.await(requested).pipe(Effect.zipRight(Effect.fail(OPERATOR_RESTART)))
      const exit = yield* Effect.exit(Effect.raceFirst(life, operator))
      if (Exit.isFailure(exit) && Cause.failureOption(exit.cause).pipe((f) => f._tag === "Some" && f.value === OPERATOR_RESTART)) {
        yield* restartedByOperator
        continue
      }
      if (Exit.isInterrupted(exit)) {
        // Interrupted from inside (a singleton that lost its lease while Redis was away, a child fiber interrupted):
        // not a shutdown — that interrupts this fiber, ending the loop at the sleep below — so start a new life.
        const delay = restartDelay(policy, 1)
        handle.update({ state: "restarting", lastError: "life interrupted", lastErrorAt: new Date().toISOString() })
        yield* Effect.logWarning(`actor ${name}: its life was interrupted; starting a new one in ${delay} ms`)
        yield* Effect.sleep(Duration.millis(delay))
        continue
      }
      const reason = Exit.isFailure(exit) ? causeText(exit.cause) : "actor returned (a life must run until interrupted)"
      const now = Date.now()
      if (Exit.isFailure(exit) && causeIsUnavailable(exit.cause)) {
        outages++
        const delay = restartDelay(policy, outages)
        const restarts = handle.get().restarts + 1
        handle.update({ state: "restarting", lastError: `dependency unavailable: ${reason}`, lastErrorAt: new Date(now).toISOString(), restarts })
        yield* Effect.logWarning(`actor ${name} stopped: a dependency is unavailable (${reason}); retry ${outages} in ${delay} ms`)
        yield* Effect.sleep(Duration.millis(delay))
        continue
      }
      outages = 0
      recent.push(now)
      while (recent.length > 0 && recent[0]! < now - policy.windowMs) recent.shift()
      const restarts = handle.get().restarts + 1
      if (recent.length > policy.maxRestarts) {
        handle.update({ state: "failed", lastError: reason, lastErrorAt: new Date(now).toISOString(), restarts })
        yield* Effect.logError(`actor ${name} failed: ${recent.length} restarts within ${policy.windowMs} ms; last: ${reason}`)
        yield* Deferred.await(requested)
        yield* restartedByOperator
        continue
      }
      const delay = restartDelay(policy, recent.length)
      handle.update({ state: "restarting", lastError: reason, lastErrorAt: new Date(now).toISOString(), restarts })
      yield* Effect.logWarning(`actor ${name} crashed (${reason}); restart ${restarts} in ${delay} ms`)
      yield* Effect.sleep(Duration.millis(delay))
    }
  }).pipe(
    Effect.onInterrupt(() => Effect.sync(() => handle.update({ state: "stopped" }))),
    Effect.ensuring(Effect.sync(() => handle.onRestart(null))),
    Effect.annotateLogs({ actor: name })
  )
