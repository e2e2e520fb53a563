/**
 * Coalesces concurrent calls into one round of work: every caller of `submit` that arrives while a round is being
 * gathered joins it, and each waits for the round that carried its items. A stream actor's handlers of one read
 * (hundreds at once) thus share one database statement instead of one each. A round's failure or defect is every
 * caller's of that round.
 */
import { Deferred, Effect, Exit } from "effect"

/** Scheduler turns a round waits for more callers, at most, before it runs (it stops as soon as none arrive). */
const GATHER_TURNS = 16

export const makeBatcher = <A>(run: (items: ReadonlyArray<A>) => Effect.Effect<void>) => {
  let queue: Array<{ readonly items: ReadonlyArray<A>; readonly done: Deferred.Deferred<void> }> = []
  let running = false

  const rounds: Effect.Effect<void> = Effect.gen(function* () {
    for (;;) {
      // Checked and cleared in one step: a caller arriving later starts the next round itself.
      if (queue.length === 0) {
        running = false
        return
      }
      // Let the other fibers of this read reach the queue first (each needs a turn or two of the scheduler).
      for (let i = 0, seen = -1; i < GATHER_TURNS && queue.length !== seen; i++) {
        seen = queue.length
        yield* Effect.yieldNow()
      }
      const taken = queue
      queue = []
      const exit = yield* Effect.exit(run(taken.flatMap((t) => t.items)))
      for (const t of taken) yield* Deferred.done(t.done, Exit.isSuccess(exit) ? Exit.void : exit)
    }
  }).pipe(Effect.ensuring(Effect.sync(() => {
    running = false
  })))

  return (items: ReadonlyArray<A>): Effect.Effect<void> =>
    Effect.gen(function* () {
      const done = yield* Deferred.make<void>()
      queue.push({ items, done })
      if (!running) {
        running = true
        yield* Effect.forkDaemon(rounds)
      }
      yield* Deferred.await(done)
    })
}
