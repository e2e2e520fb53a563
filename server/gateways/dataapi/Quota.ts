/**
 * The daily quota of the keyed data API (spec §5, §7, §8): API_DAILY_LIMIT requests per account per UTC day, all
 * keys together, reset at 00:00 UTC. Counted with `Kv.unsafeIncrWindowAll` on `quota:<userId>:<YYYYMMDD>` (Redis:
 * atomic, exact across processes), expiring an hour after the day ends; each key's own count beside it. The requests
 * of one key that arrive in the same event-loop turn share one `INCRBY n` and take its n consecutive values.
 *
 * Off the critical path when it is safe: a request is answered at once (its increment still goes to Redis in that
 * turn's `INCRBY`) while this process saw the account's count from Redis within the last FRESH_MS and that count,
 * plus the requests it has admitted since, stays at least `syncMargin(limit)` (5 % of the limit, 1,250 of 25,000) below
 * the limit. Otherwise — the last `syncMargin(limit)` requests of the day, an account not seen lately, a failing Redis — the
 * request waits for Redis's answer as before, so the refusal boundary stays exact across processes: exactly the
 * limit passes, then 429. The bound: the whole deployment would have to serve more than the margin for one account
 * within FRESH_MS (1,250 in 20 ms: 62,500 requests a second for one account) for an admission to overrun it. Every
 * request is counted in Redis either way; an answer given at once carries this process's view of the count (exact
 * with one process; with several, it may not yet include what the others counted in the last FRESH_MS).
 *
 * Redis unreachable — its connection is down (known at once, without a round trip), a count fails, or the watchdog's
 * probe (every API_QUOTA_RETRY_MS) gets no answer within API_QUOTA_REDIS_TIMEOUT_MS (a hung connection) — FAIL OPEN,
 * bounded: the process counts in memory from the last count Redis gave it for that account, still refusing past the
 * limit (a deployment of N processes lets through at most N × the remainder), marks answers `degraded`, counts
 * `api_quota_fallback_total`, sets `api_quota_degraded` and logs a warning; Redis is tried again every
 * API_QUOTA_RETRY_MS. A slow but answering Redis is waited for (overload never opens the gate); requests already
 * waiting on a hung connection wait until the client declares it dead. Requests counted in memory are not added to
 * Redis later.
 */
import { Clock, Effect, Runtime, Schedule } from "effect"
import { Kv } from "../../platform/infra/Kv"
import { Metrics } from "../../platform/ops/Metrics"
import { DAY_MS, dayOf, dayStart } from "../../domains/analytics/Windows"
import { DataApiConfig } from "./Config"

export interface QuotaState {
  readonly allowed: boolean
  /** Requests of the account today, this one included. */
  readonly count: number
  readonly keyCount: number
  readonly limit: number
  readonly remaining: number
  /** Next 00:00 UTC (epoch ms). */
  readonly resetAtMs: number
  readonly retryAfterSeconds: number
  /** UTC day counted, `YYYY-MM-DD`. */
  readonly day: string
  /** When it was counted (epoch ms, from the Effect clock). */
  readonly at: number
  readonly degraded: boolean
}

/** How recent this process's view of an account's count must be for a request to be answered without waiting. */
export const FRESH_MS = 20
/** Requests of the day that always wait for Redis: the last 5 % of the limit. */
export const syncMargin = (limit: number) => Math.max(1, Math.ceil(limit * 0.05))

/** Kept an hour past the day's end, so processes whose clocks disagree a little still share one counter. */
const EXPIRY_MARGIN_SECONDS = 3_600

const compact = (day: string) => day.replaceAll("-", "")
export const quotaKey = (userId: number, day: string, compactDay = compact(day)) => `quota:${userId}:${compactDay}`
export const keyCountKey = (keyId: number, day: string, compactDay = compact(day)) => `quota-key:${keyId}:${compactDay}`

const NOOP = () => {}

export class Quota extends Effect.Service<Quota>()("app/Quota", {
  dependencies: [DataApiConfig.Default],
  scoped: Effect.gen(function* () {
    const kv = yield* Kv
    const config = yield* DataApiConfig
    const metrics = yield* Metrics
    const limit = config.dailyLimit
    const fallbacks = metrics.counter("api_quota_fallback_total", "Keyed requests counted in process because Redis did not answer")
    const degradedGauge = metrics.gauge("api_quota_degraded", "1 while quota counting falls back to the process-local counter")

    /** Process-local counts while Redis fails, seeded from the last counts Redis returned. */
    const local = new Map<string, number>()
    const lastSeen = new Map<string, number>()
    /** When Redis last gave each account's count (epoch ms of the batch that asked), and what was admitted since. */
    const seenAt = new Map<string, number>()
    const ahead = new Map<string, number>()
    const margin = syncMargin(limit)
    let retryAt = 0
    let today = { start: -1, day: "", compact: "" }
    let failing = false

    const remember = (map: Map<string, number>, key: string, n: number) => {
      if (map.size > 50_000) map.clear()
      map.set(key, n)
    }

    const countLocally = (key: string) => {
      const n = (local.get(key) ?? lastSeen.get(key) ?? 0) + 1
      remember(local, key, n)
      return n
    }

    const runFork = Runtime.runFork(yield* Effect.runtime<never>())
    const markFailing = (reason: string, now: number) => {
      retryAt = now + config.quotaRetryMs
      if (failing) return
      failing = true
      degradedGauge.set({}, 1)
      runFork(Effect.logWarning(`Redis ${reason}: counting quotas in process (fail open, bounded by the limit)`))
    }

    const recovered = () => {
      if (!failing) return
      failing = false
      local.clear()
      degradedGauge.set({}, 0)
      runFork(Effect.logInfo("quota counting is back on Redis"))
    }

    // A hung connection (connected, silent) never answers: a watchdog probes Redis every API_QUOTA_RETRY_MS and
    // sends requests to the in-process count while a probe gets no answer within API_QUOTA_REDIS_TIMEOUT_MS. The hot
    // path itself carries no timer. It runs as the module's `quota-watchdog` process (see App.ts).
    const watchdog = Clock.currentTimeMillis.pipe(
      Effect.flatMap((now) =>
        !kv.connected()
          ? Effect.sync(() => markFailing("is disconnected", now))
          : kv.get("quota:probe").pipe(
            Effect.timeout(config.quotaRedisTimeoutMs),
            Effect.matchCauseEffect({
              onFailure: () => Effect.sync(() => markFailing("did not answer a probe", now)),
              onSuccess: () => Effect.sync(() => (retryAt = 0))
            })
          )
      ),
      Effect.repeat(Schedule.spaced(config.quotaRetryMs)),
      Effect.catchAllCause(Effect.logError),
      Effect.asVoid
    )

    const state = (now: number, day: string, resetAtMs: number, count: number, keyCount: number, degraded: boolean): QuotaState => ({
      allowed: count <= limit,
      count,
      keyCount,
      limit,
      remaining: Math.max(0, limit - count),
      resetAtMs,
      retryAfterSeconds: Math.max(1, Math.ceil((resetAtMs - now) / 1000)),
      day,
      at: now,
      degraded
    })

    /** Requests waiting for the next round trip, grouped by their two counters. */
    interface Batch {
      readonly accountKey: string
      readonly keyKey: string
      readonly day: string
      readonly resetAtMs: number
      readonly ttl: number
      readonly at: Array<number>
      readonly done: Array<(q: QuotaState) => void>
      /** Requests of the batch already answered (at once); their counts are only added. */
      admitted: number
    }
    let batches = new Map<number, Batch>()
    /** The day of the first request of the current turn. */
    let turnDay = -1
    let flushScheduled = false

    const settle = (b: Batch, stateOf: (i: number) => QuotaState) => {
      for (let i = 0; i < b.done.length; i++) {
        try {
          b.done[i]!(stateOf(i))
        } catch (defect) {
          runFork(Effect.logError("quota callback threw", defect))
        }
      }
    }

    /** The batch's answered requests are no longer ahead of what Redis said. */
    const landed = (b: Batch) => {
      if (b.admitted === 0) return
      for (const key of [b.accountKey, b.keyKey]) {
        const n = (ahead.get(key) ?? 0) - b.admitted
        if (n > 0) ahead.set(key, n)
        else ahead.delete(key)
      }
    }

    const inProcess = (b: Batch) =>
      settle(b, (i) => {
        fallbacks.inc()
        return state(b.at[i]!, b.day, b.resetAtMs, countLocally(b.accountKey), countLocally(b.keyKey), true)
      })

    // One INCRBY n per counter pair and event-loop turn, however many requests of that key arrived in it: the
    // requests take the n consecutive values below the answer, in arrival order — exact across processes as one
    // INCR each would be, for a fraction of the commands.
    const flush = () => {
      flushScheduled = false
      const current = batches
      batches = new Map()
      for (const b of current.values()) {
        const n = b.done.length
        const first = b.at[0]!
        if (failing && first < retryAt) {
          landed(b)
          inProcess(b)
          continue
        }
        if (!kv.connected()) {
          markFailing("is disconnected", first)
          landed(b)
          inProcess(b)
          continue
        }
        kv.unsafeIncrWindowAll([b.accountKey, b.keyKey], b.ttl, first, n).then(
          ([accountCount, keyCount]) => {
            landed(b)
            remember(lastSeen, b.accountKey, accountCount!)
            remember(lastSeen, b.keyKey, keyCount!)
            remember(seenAt, b.accountKey, first)
            recovered()
            settle(b, (i) => state(b.at[i]!, b.day, b.resetAtMs, accountCount! - n + 1 + i, keyCount! - n + 1 + i, false))
          },
          () => {
            markFailing("refused a quota count", first)
            landed(b)
            inProcess(b)
          }
        )
      }
    }

    /**
     * Counts one request of the account (and of its key) at `now` and calls `done` once with the state: at once when
     * this process's view of the count is fresh and far from the limit (see the header), else when Redis has
     * answered the round trip of this event-loop turn, or — counting in process — at that turn's end too. Plain
     * callbacks: this is the hot path of every keyed request.
     */
    const count = (userId: number, keyId: number, now: number, done: (q: QuotaState) => void): void => {
      const start = dayStart(now)
      if (start !== today.start) today = { start, day: dayOf(now), compact: compact(dayOf(now)) }
      const day = today.day
      // By key (a key has one owner); a turn that spans midnight gives the new day's requests a batch of their own.
      if (batches.size === 0) turnDay = start
      const id = keyId * 2 + (start === turnDay ? 0 : 1)
      let b = batches.get(id)
      if (b === undefined) {
        const resetAtMs = start + DAY_MS
        b = {
          accountKey: quotaKey(userId, day, today.compact), keyKey: keyCountKey(keyId, day, today.compact), day, resetAtMs,
          ttl: Math.ceil((resetAtMs - now) / 1000) + EXPIRY_MARGIN_SECONDS, at: [], done: [], admitted: 0
        }
        batches.set(id, b)
      }
      if (!flushScheduled) {
        flushScheduled = true
        setImmediate(flush)
      }
      b.at.push(now)
      const seen = failing ? undefined : seenAt.get(b.accountKey)
      const last = lastSeen.get(b.accountKey)
      if (seen !== undefined && last !== undefined && now - seen <= FRESH_MS) {
        const count = last + (ahead.get(b.accountKey) ?? 0) + 1
        if (count <= limit - margin) {
          const lastKey = lastSeen.get(b.keyKey) ?? 0
          const keyCount = lastKey + (ahead.get(b.keyKey) ?? 0) + 1
          remember(ahead, b.accountKey, count - last)
          remember(ahead, b.keyKey, keyCount - lastKey)
          b.admitted++
          b.done.push(NOOP)
          done(state(now, day, b.resetAtMs, count, keyCount, false))
          return
        }
      }
      b.done.push(done)
    }

    /** `count` as an Effect, on the Effect clock. */
    const hit = (userId: number, keyId: number): Effect.Effect<QuotaState> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.async<QuotaState>((resume) => count(userId, keyId, now, (q) => resume(Effect.succeed(q)))))

    /** A counter's value (without counting): Redis, or what this process holds when Redis does not answer in time. */
    const readCount = (key: string) =>
      kv.get(key).pipe(
        Effect.map((v) => (v._tag === "Some" ? Number(v.value) : 0)),
        Effect.timeout(config.quotaRedisTimeoutMs),
        Effect.catchAllCause(() => Effect.succeed(local.get(key) ?? lastSeen.get(key) ?? 0))
      )

    /** Today's count of each key (without counting), for the usage endpoint. */
    const keyCounts = Effect.fn("Quota.keyCounts")(function* (keyIds: ReadonlyArray<number>) {
      const day = dayOf(yield* Clock.currentTimeMillis)
      return yield* Effect.forEach(keyIds, (id) => readCount(keyCountKey(id, day)), { concurrency: 8 })
    })

    /** The account's count today (without counting), for the account page. */
    const accountCount = Effect.fn("Quota.accountCount")(function* (userId: number) {
      return yield* readCount(quotaKey(userId, dayOf(yield* Clock.currentTimeMillis)))
    })

    return {
      hit, count, keyCounts, accountCount, limit,
      /** The Redis watchdog: runs until interrupted (the `quota-watchdog` process of the data API module). */
      watchdog
    } as const
  })
}) {}
