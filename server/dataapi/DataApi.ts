/**
 * The keyed data API's request path (spec §2.4, §4.14, §5, §7, §8): count the request against the account's daily
 * quota, publish a usage event, refuse past the limit (429 with `Retry-After` and `reset_at`), validate the query
 * (422), produce the data and wrap it in the envelope `{data, meta:{tier, endpoint, generated_at, source, demo}}`.
 * Every answer after authentication carries `X-RateLimit-Limit`, `-Remaining` and `-Reset` (epoch seconds of the
 * next 00:00 UTC). Data comes from `ReadModels` as JSON text, so a cached answer costs one counter round trip.
 */
import { Effect } from "effect"
import type { z } from "zod"
import { ReadModels } from "../analytics/ReadModels"
import { isoWithOffset } from "../analytics/Windows"
import type { KeyOwner } from "../apikeys/ApiKeys"
import { parseForm } from "../http/Body"
import { type AppError, TooManyRequests } from "../http/Errors"
import { Reply, type Header } from "../http/Reply"
import type { RequestInfo } from "../http/Route"
import { validateSync } from "../http/Validate"
import { Quota, type QuotaState } from "./Quota"
import { UsageEvents } from "./UsageEvents"

/** What a keyed handler produces: data already serialised, or a value to serialise. */
export type Produced = { readonly json: string } | { readonly value: unknown }

export const rateLimitHeaders = (q: QuotaState): ReadonlyArray<Header> => [
  ["x-ratelimit-limit", String(q.limit)],
  ["x-ratelimit-remaining", String(q.remaining)],
  ["x-ratelimit-reset", String(Math.floor(q.resetAtMs / 1000))]
]

export class DataApi extends Effect.Service<DataApi>()("app/DataApi", {
  dependencies: [Quota.Default, UsageEvents.Default, ReadModels.Default],
  effect: Effect.gen(function* () {
    const quota = yield* Quota
    const usage = yield* UsageEvents
    const models = yield* ReadModels

    const serve = <S extends z.ZodType>(
      endpoint: string,
      schema: S,
      produce: (query: z.output<S>, owner: KeyOwner, quota: QuotaState) => Effect.Effect<Produced, AppError>
    ) =>
      // Written as a flat chain (no generator, no span): this is the hot path of every keyed request.
      (owner: KeyOwner, req: RequestInfo): Effect.Effect<Reply, AppError> =>
        Effect.flatMap(quota.hit(owner.userId, owner.keyId), (q) => {
          const headers = rateLimitHeaders(q)
          const answer = (): Effect.Effect<Reply, AppError> => {
            if (!q.allowed) {
              const resetAt = isoWithOffset(q.resetAtMs)
              return Effect.fail(new TooManyRequests({
                message: `Daily limit of ${q.limit} requests reached; it resets at ${resetAt}`,
                code: "daily_limit_reached",
                retryAfterSeconds: q.retryAfterSeconds,
                headers: Object.fromEntries(headers),
                extra: { limit: q.limit, reset_at: resetAt }
              }))
            }
            const parsed = req.query === "" ? validateSync("query", schema, {}) : validateSync("query", schema, parseForm(req.query))
            if (!parsed.ok) return Effect.succeed(Reply.json({ detail: parsed.issues }, 422, headers))
            return Effect.zipWith(produce(parsed.value, owner, q), models.source(), (produced, origin) => {
              const data = "json" in produced ? produced.json : JSON.stringify(produced.value)
              const meta = JSON.stringify({ tier: owner.tier, endpoint, generated_at: isoWithOffset(q.at), source: origin.source, demo: origin.demo })
              return Reply.rawJson(`{"data":${data},"meta":${meta}}`, 200, headers)
            })
          }
          return Effect.zipRight(
            usage.record({
              userId: owner.userId, keyId: owner.keyId, day: q.day, endpoint, count: q.count, keyCount: q.keyCount, limit: q.limit,
              at: new Date(q.at).toISOString(), degraded: q.degraded
            }),
            Effect.suspend(answer)
          )
        })

    return { serve } as const
  })
}) {}
