/** The contract of the key-value store (see Kv.ts); its two implementations import only this. */
import type { Effect, Option } from "effect"

export interface KvShape {
  readonly kind: "redis" | "memory"
  /**
   * Increments the counter at `key` and returns the new value. The expiry is set only when the counter has none
   * (i.e. when this call created it), so a window lasts `ttlSeconds` from its first hit whatever follows.
   * Exact under concurrency (per-day API quotas, login throttles).
   */
  readonly incrWindow: (key: string, ttlSeconds: number) => Effect.Effect<number>
  /** `incrWindow` of several keys in one atomic step (one round trip on Redis); the new values in key order. */
  readonly incrWindowAll: (keys: ReadonlyArray<string>, ttlSeconds: number) => Effect.Effect<ReadonlyArray<number>>
  /**
   * `incrWindowAll` outside Effect, for request hot paths (the data API's quota), adding `by` (a positive integer,
   * default 1) to each counter: settles with the new values; a Redis fault rejects. `now` is the caller's clock (the
   * in-memory store expires keys by it).
   */
  readonly unsafeIncrWindowAll: (keys: ReadonlyArray<string>, ttlSeconds: number, now: number, by?: number) => Promise<ReadonlyArray<number>>
  readonly get: (key: string) => Effect.Effect<Option.Option<string>>
  /** Sets the value; without `ttlSeconds` the key has no expiry (an earlier one is cleared, as Redis's SET does). */
  readonly set: (key: string, value: string, ttlSeconds?: number) => Effect.Effect<void>
  readonly del: (key: string) => Effect.Effect<void>
  /** Remaining seconds (rounded like Redis's TTL); -1 when the key has no expiry, -2 when it does not exist. */
  readonly ttl: (key: string) => Effect.Effect<number>
  /**
   * Takes the lease `name` for `holder` for `ttlMs` if nobody holds it. Re-entrant: when `holder` already holds it,
   * the lease is extended and the answer is true.
   */
  readonly acquireLease: (name: string, holder: string, ttlMs: number) => Effect.Effect<boolean>
  /** Extends the lease only if `holder` still holds it; false means it was lost. */
  readonly renewLease: (name: string, holder: string, ttlMs: number) => Effect.Effect<boolean>
  /**
   * Milliseconds until the lease `name` runs out whoever holds it, or 0 when nobody does (a stand-by waits this
   * long before trying again, so it takes over as soon as a dead holder's lease expires).
   */
  readonly leaseRemainingMs: (name: string) => Effect.Effect<number>
  /** Releases the lease only if `holder` holds it (otherwise a no-op); true when it was released. */
  readonly releaseLease: (name: string, holder: string) => Effect.Effect<boolean>
  /** Liveness of the underlying store (readiness). */
  readonly ping: Effect.Effect<boolean>
  /**
   * Whether the store is connected right now, without a round trip (Redis: the connection is up and ready; a
   * command sent while it is not would wait in the client's offline queue). Always true in memory.
   */
  readonly connected: () => boolean
}
