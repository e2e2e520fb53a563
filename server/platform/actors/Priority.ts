/**
 * The alert path first. Every actor of a process shares one event loop and, on a small machine, the same cores as
 * PostgreSQL: when a block arrives, the fan-out, the picks-grader, the watchlist, echo and the playbook all read it at
 * once, and the alerts a trader waits for (seconds count) queue behind analytics that nobody reads within the second.
 * An actor says which it is (`priority` on its definition):
 *  - `urgent` (the fan-out's records, the notifier): its handling of a read counts as urgent work while it runs;
 *  - `deferrable` (analytics fed by the same block): before handling a read it waits until no urgent work has run for
 *    QUIET_MS (the gap between the fan-out's write and the notifier's read of it is not a pause), at most
 *    ACTOR_DEFER_MAX_MS, so it is never starved: back-to-back blocks delay it by that much at worst, not forever;
 *  - anything else is neither (the default).
 * The gate is per process (other processes have their own loop and are not held). The time deferrable actors waited
 * is counted per actor (`actor_deferred_seconds_total` on /metrics).
 */
import { Effect } from "effect"
import { AppConfig } from "../Config"
import { Metrics } from "../ops/Metrics"

export type ActorPriority = "urgent" | "deferrable"

/** Urgent work must have stopped this long before deferred work starts (one Redis round trip and a turn or two). */
const QUIET_MS = 30

/** One macrotask turn: the replies that arrived with a deferrable actor's own (the same block, read by an urgent
 * actor) are taken up before it decides whether urgent work is running. */
const nextTurn = Effect.async<void>((resume) => {
  const t = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(t))
})

export class ActorPriorityGate extends Effect.Service<ActorPriorityGate>()("app/ActorPriorityGate", {
  effect: Effect.gen(function* () {
    const { actors } = yield* AppConfig
    const deferred = (yield* Metrics).counter("actor_deferred_seconds_total", "Seconds deferrable actors waited for urgent work (the alert path) before handling a read")
    let running = 0
    let lastEnded = 0

    const urgent = <A, E, R>(work: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.acquireUseRelease(
        Effect.sync(() => {
          running++
        }),
        () => work,
        () => Effect.sync(() => {
          running--
          lastEnded = Date.now()
        })
      )

    const busy = () => running > 0 || Date.now() - lastEnded < QUIET_MS

    /** A deferrable actor's turn: returns once urgent work is over (or after ACTOR_DEFER_MAX_MS). */
    const deferTo = (actor: string): Effect.Effect<void> =>
      Effect.gen(function* () {
        yield* nextTurn
        if (!busy()) return
        const started = Date.now()
        const until = started + actors.deferMaxMs
        while (busy() && Date.now() < until) {
          yield* Effect.sleep(Math.max(1, Math.min(QUIET_MS, until - Date.now())))
        }
        deferred.inc({ actor }, (Date.now() - started) / 1000)
      })

    return {
      /** Runs `work` as urgent: deferrable actors of this process wait while it runs. */
      urgent,
      deferTo,
      /** Whether urgent work is running now or just ended (for tests and the benchmark). */
      busy
    } as const
  })
}) {}
