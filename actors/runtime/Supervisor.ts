/**
 * Supervision: run one life of an actor; when it ends in failure, restart it after an exponential back-off with
 * jitter; more than `maxRestarts` restarts within `windowMs` marks it `failed` and leaves it stopped (readiness
 * goes false, everything else keeps serving). Interruption (shutdown) stops it as `stopped`.
 */
import { Cause, Duration, Effect, Exit } from "effect"
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

export const supervise = <E, R>(name: string, handle: ActorHandle, life: Effect.Effect<void, E, R>, policy: RestartPolicy) =>
  Effect.gen(function* () {
    const recent: Array<number> = []
    while (true) {
      const exit = yield* Effect.exit(life)
      if (Exit.isInterrupted(exit)) {
        handle.update({ state: "stopped" })
        return
      }
      const reason = Exit.isFailure(exit) ? causeText(exit.cause) : "actor returned (a life must run until interrupted)"
      const now = Date.now()
      recent.push(now)
      while (recent.length > 0 && recent[0]! < now - policy.windowMs) recent.shift()
      const restarts = handle.get().restarts + 1
      if (recent.length > policy.maxRestarts) {
        handle.update({ state: "failed", lastError: reason, lastErrorAt: new Date(now).toISOString(), restarts })
        yield* Effect.logError(`actor ${name} failed: ${recent.length} restarts within ${policy.windowMs} ms; last: ${reason}`)
        return
      }
      const delay = restartDelay(policy, recent.length)
      handle.update({ state: "restarting", lastError: reason, lastErrorAt: new Date(now).toISOString(), restarts })
      yield* Effect.logWarning(`actor ${name} crashed (${reason}); restart ${restarts} in ${delay} ms`)
      yield* Effect.sleep(Duration.millis(delay))
    }
  }).pipe(
    Effect.onInterrupt(() => Effect.sync(() => handle.update({ state: "stopped" }))),
    Effect.annotateLogs({ actor: name })
  )
