/**
 * In-process memoisation for hot read paths (pricing, the public API):
 *  - a fresh value is returned synchronously (no fiber suspension: the reply is written inside the uWS handler,
 *    which is also what makes cached endpoints safe for pipelining clients — uWS aborts deferred pipelined replies);
 *  - a value older than `ttl` is refreshed by ONE computation that every caller meanwhile awaits; with `maxStale`
 *    (opt-in stale-while-revalidate) a value younger than it is returned at once while that refresh runs;
 *  - with `refreshAfter` (opt-in refresh-ahead) a value older than it but still fresh is returned and ONE refresh
 *    starts, so callers arriving steadily never wait for an expired value — nor are they served a stale one;
 *  - a missing value is computed once, however many callers arrive meanwhile (no stampede);
 *  - a failed computation is not kept: its waiters get the failure, the next caller tries again.
 */
import { Deferred, Duration, Effect, Exit } from "effect"

interface Entry<A, E> {
  value: A | undefined
  at: number
  inflight: Deferred.Deferred<A, E> | undefined
}

export interface Memo<K, A, E> {
  readonly get: (key: K) => Effect.Effect<A, E>
  /**
   * `get` without Effect, for request hot paths: the value when one may be served now (fresh, or within `maxStale`,
   * whose refresh it starts), `undefined` when the caller must go through `get` (missing, or too old).
   */
  readonly peek: (key: K) => A | undefined
  readonly invalidate: (key: K) => Effect.Effect<void>
  readonly invalidateAll: Effect.Effect<void>
  /** Computations started so far (for tests and metrics). */
  readonly computations: () => number
}

export const memo = <K, A, E>(options: {
  readonly ttl: Duration.DurationInput
  /** Opt-in stale-while-revalidate: how old a value may be and still be served while refreshing (default: ttl, none). */
  readonly maxStale?: Duration.DurationInput
  /** Opt-in refresh-ahead: a fresh value older than this starts its refresh while it is still served (default: none). */
  readonly refreshAfter?: Duration.DurationInput
  readonly capacity?: number
  readonly compute: (key: K) => Effect.Effect<A, E>
  /** Clock for tests; default Date.now. */
  readonly now?: () => number
}): Effect.Effect<Memo<K, A, E>> =>
  Effect.sync(() => {
    const ttlMs = Duration.toMillis(options.ttl)
    const maxStaleMs = options.maxStale === undefined ? ttlMs : Duration.toMillis(options.maxStale)
    const refreshAfterMs = options.refreshAfter === undefined ? ttlMs : Math.min(ttlMs, Duration.toMillis(options.refreshAfter))
    const capacity = options.capacity ?? 1024
    const now = options.now ?? Date.now
    const entries = new Map<K, Entry<A, E>>()
    let computations = 0

    const start = (key: K, entry: Entry<A, E>): Deferred.Deferred<A, E> => {
      const done = Effect.runSync(Deferred.make<A, E>())
      entry.inflight = done
      computations++
      Effect.runFork(
        Effect.exit(options.compute(key)).pipe(
          Effect.flatMap((exit) => {
            entry.inflight = undefined
            if (Exit.isSuccess(exit)) {
              entry.value = exit.value
              entry.at = now()
            } else if (entry.value === undefined) {
              entries.delete(key)
            }
            return Deferred.done(done, exit)
          })
        )
      )
      return done
    }

    /** The value when one may be served now (fresh, or within maxStale; past refreshAfter its refresh is started). */
    const peek = (key: K): A | undefined => {
      const entry = entries.get(key)
      if (entry === undefined || entry.value === undefined) return undefined
      const age = now() - entry.at
      if (age < refreshAfterMs) return entry.value
      if (age >= Math.max(ttlMs, maxStaleMs)) return undefined
      if (entry.inflight === undefined) start(key, entry)
      return entry.value
    }

    const get = (key: K): Effect.Effect<A, E> =>
      Effect.suspend(() => {
        const ready = peek(key)
        if (ready !== undefined) return Effect.succeed(ready)
        let entry = entries.get(key)
        if (!entry) {
          if (entries.size >= capacity) entries.delete(entries.keys().next().value as K)
          entry = { value: undefined, at: 0, inflight: undefined }
          entries.set(key, entry)
        }
        return Deferred.await(entry.inflight ?? start(key, entry))
      })

    return {
      get,
      peek,
      invalidate: (key: K) => Effect.sync(() => void entries.delete(key)),
      invalidateAll: Effect.sync(() => entries.clear()),
      computations: () => computations
    }
  })
