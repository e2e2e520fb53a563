/**
 * `Kv` in process memory (see `Kv.ts` for the contract), with Redis's semantics: expiry checked on every access,
 * TTL rounded to the nearest second, counters that refuse non-integer values. Each operation reads the clock and then
 * acts in one synchronous step, so concurrent fibers cannot interleave inside it. A scoped fiber sweeps expired keys
 * every `SWEEP_EVERY`; it stops with the layer's scope.
 */
import { Clock, Effect, Option, Schedule } from "effect"
import { GATE_HELD_TTL_MS, GATE_SLACK_MS, SLOT_SLACK_MS, type KvShape } from "./KvShape"

interface Item {
  value: string
  /** Epoch ms; null: no expiry. */
  expiresAt: number | null
}

const SWEEP_EVERY = Schedule.spaced("1 minute")

const positiveInteger = (what: string, n: number) => {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`Kv: ${what} must be a positive integer, got ${n}`)
  return n
}

export const makeKvMemory = Effect.gen(function* () {
  const items = new Map<string, Item>()
  let closed = false
  const kvKey = (key: string) => `kv:${key}`
  const leaseKey = (name: string) => `lease:${name}`

  /** The live item at `key`, dropping it when expired. */
  const live = (key: string, now: number): Item | undefined => {
    const item = items.get(key)
    if (item && item.expiresAt !== null && item.expiresAt <= now) {
      items.delete(key)
      return undefined
    }
    return item
  }
  /** Runs `f` with the current time, in one synchronous step. */
  const atNow = <A>(f: (now: number) => A) => Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => f(now)))

  yield* Effect.addFinalizer(() => Effect.sync(() => (closed = true)))
  yield* atNow((now) => {
    for (const key of items.keys()) live(key, now)
  }).pipe(Effect.repeat(SWEEP_EVERY), Effect.catchAllCause(Effect.logError), Effect.forkScoped)

  /** One counter step at `now` (synchronous). */
  const increment = (key: string, ttlSeconds: number, now: number, by = 1) => {
    const k = kvKey(key)
    const item = live(k, now)
    if (item && !/^-?\d{1,15}$/.test(item.value)) throw new Error(`ERR value is not an integer or out of range (${key})`)
    const next = (item ? Number(item.value) : 0) + by
    items.set(k, { value: String(next), expiresAt: item?.expiresAt ?? now + ttlSeconds * 1000 })
    return next
  }

  const incrWindow = Effect.fn("KvMemory.incrWindow")(function* (key: string, ttlSeconds: number) {
    positiveInteger("ttlSeconds", ttlSeconds)
    return yield* atNow((now) => increment(key, ttlSeconds, now))
  })

  // Plain (no span): the data API's per-request quota count.
  const incrWindowAll = (keys: ReadonlyArray<string>, ttlSeconds: number): Effect.Effect<ReadonlyArray<number>> =>
    Effect.suspend(() => {
      positiveInteger("ttlSeconds", ttlSeconds)
      return atNow((now) => keys.map((key) => increment(key, ttlSeconds, now)))
    })

  const unsafeIncrWindowAll = (keys: ReadonlyArray<string>, ttlSeconds: number, now: number, by = 1): Promise<ReadonlyArray<number>> => {
    try {
      positiveInteger("ttlSeconds", ttlSeconds)
      positiveInteger("by", by)
      return Promise.resolve(keys.map((key) => increment(key, ttlSeconds, now, by)))
    } catch (e) {
      return Promise.reject(e)
    }
  }

  const get = Effect.fn("KvMemory.get")(function* (key: string) {
    return yield* atNow((now) => Option.fromNullable(live(kvKey(key), now)?.value))
  })

  const set = Effect.fn("KvMemory.set")(function* (key: string, value: string, ttlSeconds?: number) {
    if (ttlSeconds !== undefined) positiveInteger("ttlSeconds", ttlSeconds)
    yield* atNow((now) => items.set(kvKey(key), { value, expiresAt: ttlSeconds === undefined ? null : now + ttlSeconds * 1000 }))
  })

  const del = Effect.fn("KvMemory.del")(function* (key: string) {
    yield* Effect.sync(() => items.delete(kvKey(key)))
  })

  const ttl = Effect.fn("KvMemory.ttl")(function* (key: string) {
    return yield* atNow((now) => {
      const item = live(kvKey(key), now)
      if (!item) return -2
      if (item.expiresAt === null) return -1
      return Math.floor((item.expiresAt - now + 500) / 1000)
    })
  })

  const acquireLease = Effect.fn("KvMemory.acquireLease")(function* (name: string, holder: string, ttlMs: number) {
    positiveInteger("ttlMs", ttlMs)
    return yield* atNow((now) => {
      const item = live(leaseKey(name), now)
      if (item && item.value !== holder) return false
      items.set(leaseKey(name), { value: holder, expiresAt: now + ttlMs })
      return true
    })
  })

  const renewLease = Effect.fn("KvMemory.renewLease")(function* (name: string, holder: string, ttlMs: number) {
    positiveInteger("ttlMs", ttlMs)
    return yield* atNow((now) => {
      const item = live(leaseKey(name), now)
      if (!item || item.value !== holder) return false
      item.expiresAt = now + ttlMs
      return true
    })
  })

  const leaseRemainingMs = Effect.fn("KvMemory.leaseRemainingMs")(function* (name: string) {
    return yield* atNow((now) => {
      const item = live(leaseKey(name), now)
      return item?.expiresAt == null ? 0 : Math.max(0, item.expiresAt - now)
    })
  })

  const releaseLease = Effect.fn("KvMemory.releaseLease")(function* (name: string, holder: string) {
    return yield* atNow((now) => live(leaseKey(name), now)?.value === holder && items.delete(leaseKey(name)))
  })

  const bookSlot = (keys: ReadonlyArray<string>, gapsMs: ReadonlyArray<number>) =>
    atNow((now) => {
      let at = now
      for (const key of keys) at = Math.max(at, Number(live(kvKey(key), now)?.value ?? 0))
      keys.forEach((key, i) => {
        const next = at + gapsMs[i]!
        items.set(kvKey(key), { value: String(next), expiresAt: next + SLOT_SLACK_MS })
      })
      return at - now
    })

  const holdUntil = (keys: ReadonlyArray<string>, untilMs: number) =>
    atNow((now) => {
      for (const key of keys) {
        if (Number(live(kvKey(key), now)?.value ?? 0) < untilMs) items.set(kvKey(key), { value: String(untilMs), expiresAt: untilMs + SLOT_SLACK_MS })
      }
    })

  const passGates: KvShape["passGates"] = (gates) =>
    atNow((now) => gates.map((g) => {
      const stored = live(kvKey(g.key), now)?.value
      const space = stored === undefined ? -1 : stored.indexOf(" ")
      if (stored !== undefined && stored.slice(space + 1) === g.id) return 0
      const last = Math.max(stored === undefined ? -Infinity : Number(stored.slice(0, space)), g.knownLast ?? -Infinity)
      const held = kvKey(`${g.key}:held`)
      const extra = g.extra ?? 0
      if (Number.isFinite(last) && g.at - last < g.cooldownMs) {
        const n = Number(live(held, now)?.value ?? 0) + 1 + extra
        items.set(held, { value: String(n), expiresAt: now + GATE_HELD_TTL_MS })
        return -1
      }
      const keep = Number.isFinite(last) ? Math.max(g.at, last) : g.at
      items.set(kvKey(g.key), { value: `${keep} ${g.id}`, expiresAt: now + g.cooldownMs + GATE_SLACK_MS })
      const n = Number(live(held, now)?.value ?? 0)
      if (extra > 0) items.set(held, { value: String(extra), expiresAt: now + GATE_HELD_TTL_MS })
      else items.delete(held)
      return n
    }))

  return {
    kind: "memory",
    bookSlot,
    holdUntil,
    passGates,
    incrWindow,
    incrWindowAll,
    unsafeIncrWindowAll,
    get,
    set,
    del,
    ttl,
    acquireLease,
    renewLease,
    leaseRemainingMs,
    releaseLease,
    ping: Effect.sync(() => !closed),
    connected: () => !closed
  } satisfies KvShape
})
