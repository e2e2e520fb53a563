/** The contract of the key-value store (see Kv.ts); its two implementations import only this. */
import type { Effect, Option } from "effect"

/** How long a pacing key outlives its next free time, and a gate its cooldown; how long a held count is kept. */
export const SLOT_SLACK_MS = 60_000
export const GATE_SLACK_MS = 60_000
export const GATE_HELD_TTL_MS = 86_400_000

/** A match at a cooldown gate (see `passGates`). */
export interface Gate {
  readonly key: string
  /** What asks (e.g. the record), so asking again is answered the same. */
  readonly id: string
  /** Epoch ms. */
  readonly at: number
  readonly cooldownMs: number
  readonly knownLast: number | null
  /**
   * Further matches at the same gate and the same `at`, right after this one: held whatever this one's answer (at the
   * same time a pass holds the rest, a hold holds them too), counted in one step (a block matches an alert many times).
   */
  readonly extra?: number
}

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
  /**
   * Pacing shared by every process: each key holds the next time (epoch ms) it is free. Books the earliest time at or
   * after now when all `keys` are free, moves key i's next free time to that time + `gapsMs[i]`, and returns how long
   * to wait for it (0: now). Atomic: two processes never book the same slot.
   */
  readonly bookSlot: (keys: ReadonlyArray<string>, gapsMs: ReadonlyArray<number>) => Effect.Effect<number>
  /** Keeps `keys` busy until at least `untilMs` (epoch ms): a 429's `retry_after`. */
  readonly holdUntil: (keys: ReadonlyArray<string>, untilMs: number) => Effect.Effect<void>
  /**
   * Cooldown gates shared by every process, decided in order in one atomic step. Gate `key` passes at time `at` when
   * it last passed at least `cooldownMs` before `at` (or never; `knownLast`, epoch ms or null, is a last pass known
   * from elsewhere, e.g. the database after a restart of an in-memory store): the answer is the number of times it
   * was held since its last pass (≥ 0). Otherwise it is held and counted, and the answer is -1. The same `id` as the
   * last pass passes again (answer 0, nothing changed): a redelivered match is decided as the first time.
   */
  readonly passGates: (gates: ReadonlyArray<Gate>) => Effect.Effect<ReadonlyArray<number>>
  /** Liveness of the underlying store (readiness). */
  readonly ping: Effect.Effect<boolean>
  /**
   * Whether the store is connected right now, without a round trip (Redis: the connection is up and ready; a
   * command sent while it is not would wait in the client's offline queue). Always true in memory.
   */
  readonly connected: () => boolean
}
