/**
 * The daily quota of the keyed data API (spec §5, §7, §8): API_DAILY_LIMIT requests per account per UTC day, all
 * keys together, reset at 00:00 UTC. Counted with `Kv.incrWindow` on `quota:<userId>:<YYYYMMDD>` (Redis: atomic,
 * exact across processes), expiring an hour after the day ends; each key's own count beside it.
 *
 * Redis unreachable — its connection is down (known at once, no round trip), or a count got no answer within
 * API_QUOTA_REDIS_TIMEOUT_MS (a hung connection) — FAIL OPEN, bounded: the process counts in memory from the last
 * count Redis gave it for that account, still refusing past the limit (a deployment of N processes lets through
 * at most N × the remainder), marks answers `degraded`, counts `api_quota_fallback_total`, sets
 * `api_quota_degraded` and logs a warning; Redis is tried again every API_QUOTA_RETRY_MS. A slow but connected
 * Redis is waited for (so overload never opens the gate). Requests counted in memory are not added to Redis later.
 */
import { Clock, Effect, Exit } from "effect"
import { AppConfig } from "../Config"
import { Kv } from "../infra/Kv"
import { Metrics } from "../ops/Metrics"
import { DAY_MS, dayOf, dayStart } from "../analytics/Windows"

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
  readonly degraded: boolean
}

/** Kept an hour past the day's end, so processes whose clocks disagree a little still share one counter. */
const EXPIRY_MARGIN_SECONDS = 3_600

export const quotaKey = (userId: number, day: string) => `quota:${userId}:${day.replaceAll("-", "")}`
export const keyCountKey = (keyId: number, day: string) => `quota-key:${keyId}:${day.replaceAll("-", "")}`

export class Quota extends Effect.Service<Quota>()("app/Quota", {
  effect: Effect.gen(function* () {
    const kv = yield* Kv
    const config = yield* AppConfig
    const metrics = yield* Metrics
    const limit = config.api.dailyLimit
    const fallbacks = metrics.counter("api_quota_fallback_total", "Keyed requests counted in process because Redis did not answer")
    const degradedGauge = metrics.gauge("api_quota_degraded", "1 while quota counting falls back to the process-local counter")

    /** Process-local counts while Redis fails, seeded from the last counts Redis returned. */
    const local = new Map<string, number>()
    const lastSeen = new Map<string, number>()
    let retryAt = 0
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

    const fromRedis = (accountKey: string, keyKey: string, ttl: number) =>
      Effect.all([kv.incrWindow(accountKey, ttl), kv.incrWindow(keyKey, ttl)], { concurrency: 2 }).pipe(
        Effect.timeoutFail({ duration: config.api.quotaRedisTimeoutMs, onTimeout: () => "timeout" as const }),
        Effect.exit
      )

    const hit = Effect.fn("Quota.hit")(function* (userId: number, keyId: number) {
      const now = yield* Clock.currentTimeMillis
      const day = dayOf(now)
      const resetAtMs = dayStart(now) + DAY_MS
      const ttl = Math.ceil((resetAtMs - now) / 1000) + EXPIRY_MARGIN_SECONDS
      const accountKey = quotaKey(userId, day)
      const keyKey = keyCountKey(keyId, day)
      let counts: readonly [number, number] | null = null
      if (!failing || now >= retryAt) {
        const exit = kv.connected() ? yield* fromRedis(accountKey, keyKey, ttl) : null
        if (exit !== null && Exit.isSuccess(exit)) {
          counts = exit.value
          remember(lastSeen, accountKey, counts[0])
          remember(lastSeen, keyKey, counts[1])
          if (failing) {
            failing = false
            local.clear()
            degradedGauge.set({}, 0)
            yield* Effect.logInfo("quota counting is back on Redis")
          }
        } else {
          retryAt = now + config.api.quotaRetryMs
          if (!failing) {
            failing = true
            degradedGauge.set({}, 1)
            yield* Effect.logWarning(`Redis ${exit === null ? "is disconnected" : "did not answer a quota count"}: counting in process (fail open, bounded by the limit)`)
          }
        }
      }
      const degraded = counts === null
      if (degraded) {
        fallbacks.inc()
        counts = [countLocally(accountKey), countLocally(keyKey)]
      }
      const [count, keyCount] = counts!
      return {
        allowed: count <= limit,
        count,
        keyCount,
        limit,
        remaining: Math.max(0, limit - count),
        resetAtMs,
        retryAfterSeconds: Math.max(1, Math.ceil((resetAtMs - now) / 1000)),
        day,
        degraded
      } satisfies QuotaState
    })

    /** Today's count of each key (without counting), for the usage endpoint. */
    const keyCounts = Effect.fn("Quota.keyCounts")(function* (keyIds: ReadonlyArray<number>) {
      const day = dayOf(yield* Clock.currentTimeMillis)
      return yield* Effect.forEach(keyIds, (id) =>
        kv.get(keyCountKey(id, day)).pipe(
          Effect.map((v) => (v._tag === "Some" ? Number(v.value) : 0)),
          Effect.timeout(config.api.quotaRedisTimeoutMs),
          Effect.catchAllCause(() => Effect.succeed(local.get(keyCountKey(id, day)) ?? lastSeen.get(keyCountKey(id, day)) ?? 0))
        ), { concurrency: 8 })
    })

    return { hit, keyCounts, limit } as const
  })
}) {}
