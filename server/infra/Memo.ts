/**
 * In-process memoisation with a time-to-live and a single computation per key under concurrent load: callers
 * that arrive while a value is being computed wait for that computation instead of starting their own.
 * A failed computation is not kept.
 */
import { Cache, Duration, Effect } from "effect"

export const memo = <K, A, E>(options: {
  readonly ttl: Duration.DurationInput
  readonly capacity?: number
  readonly compute: (key: K) => Effect.Effect<A, E>
}) =>
  Cache.make({ capacity: options.capacity ?? 1024, timeToLive: options.ttl, lookup: options.compute }).pipe(
    Effect.map((cache) => ({
      get: (key: K) => cache.get(key),
      invalidate: (key: K) => cache.invalidate(key),
      invalidateAll: cache.invalidateAll
    }))
  )
