/**
 * The keyed data API's meter (spec §2.4, §4.14, §5, §7, §8), for the platform's metered request path
 * (`platform/http/Metered.ts`: count → refuse → validate → data → wrap, with plain callbacks around the count): each
 * request is counted against the account's daily quota and published as a usage event; past the limit the answer is
 * 429 with `Retry-After` and `reset_at`; the data is wrapped in the envelope `{data, meta:{tier, endpoint,
 * generated_at, source, demo}}`. Every answer after authentication carries `X-RateLimit-Limit`, `-Remaining` and
 * `-Reset` (epoch seconds of the next 00:00 UTC). Data comes from `ReadModels` as JSON text, so a cached answer costs
 * one counter round trip. This file only says what a keyed answer is; the routes (Http.ts) say what data it carries.
 */
import { Effect } from "effect"
import { ReadModels } from "../../domains/analytics/ReadModels"
import { isoWithOffset } from "../../domains/analytics/Windows"
import type { KeyOwner } from "../../domains/apikeys/ApiKeys"
import { TooManyRequests } from "../../platform/http/Errors"
import { makeMetered, type MeteredEndpoint } from "../../platform/http/Metered"
import { errorReply } from "../../platform/http/Respond"
import { JSON_ONLY, Reply, type Header } from "../../platform/http/Reply"
import { Quota, type QuotaState } from "./Quota"
import { UsageEvents } from "./UsageEvents"

export type { Produced } from "../../platform/http/Metered"

/** `isoWithOffset`, remembered for the last millisecond asked (the requests of one turn share it). */
let lastIso = { ms: Number.NaN, iso: "" }
const isoAt = (ms: number) => (lastIso.ms === ms ? lastIso.iso : (lastIso = { ms, iso: isoWithOffset(ms) }).iso)

type Origin = { readonly source: string; readonly demo: boolean }

const HEAD = Buffer.from('{"data":')
const MID = Buffer.from(',"meta":')

/** The same three headers as one pre-joined block (`Reply.block`): integers only, built per request. */
const RATE_LIMIT_LIMIT = Buffer.from("x-ratelimit-limit")
const rateLimitBlock = (q: QuotaState): readonly [Uint8Array, string] => [
  RATE_LIMIT_LIMIT,
  `${q.limit}\r\nx-ratelimit-remaining: ${q.remaining}\r\nx-ratelimit-reset: ${Math.floor(q.resetAtMs / 1000)}`
]

export const rateLimitHeaders = (q: QuotaState): ReadonlyArray<Header> => [
  ["x-ratelimit-limit", String(q.limit)],
  ["x-ratelimit-remaining", String(q.remaining)],
  ["x-ratelimit-reset", String(Math.floor(q.resetAtMs / 1000))]
]

/** A keyed endpoint: the platform's metered endpoint for an API key's owner. */
export type KeyedEndpoint = MeteredEndpoint<KeyOwner>

export class DataApi extends Effect.Service<DataApi>()("app/DataApi", {
  dependencies: [Quota.Default, UsageEvents.Default, ReadModels.Default],
  effect: Effect.gen(function* () {
    const quota = yield* Quota
    const usage = yield* UsageEvents
    const models = yield* ReadModels

    const serve = makeMetered<KeyOwner, QuotaState, Origin>(yield* Effect.runtime<never>(), {
      count: (owner, now, counted) => quota.count(owner.userId, owner.keyId, now, counted),
      counted: (owner, endpoint, q) => usage.unsafeRecord(owner, endpoint, q),
      allowed: (q) => q.allowed,
      refuse: (q) => {
        const resetAt = isoWithOffset(q.resetAtMs)
        return errorReply(new TooManyRequests({
          message: `Daily limit of ${q.limit} requests reached; it resets at ${resetAt}`,
          code: "daily_limit_reached",
          retryAfterSeconds: q.retryAfterSeconds,
          headers: Object.fromEntries(rateLimitHeaders(q)),
          extra: { limit: q.limit, reset_at: resetAt }
        }))
      },
      headers: rateLimitHeaders,
      context: { peek: models.peek.source, load: models.source() },
      // Bytes, not a string: the data is already UTF-8 (`Cached.bytes`), so a 1 kB envelope is not built, flattened
      // and encoded again per request. Tier, endpoint and source are the server's own identifiers (no escaping
      // needed); the time is ISO 8601.
      wrap: (data, owner, q, endpoint, origin) => {
        const meta = `{"tier":"${owner.tier}","endpoint":"${endpoint}","generated_at":"${isoAt(q.at)}","source":"${origin.source}","demo":${origin.demo}}`
        const body = Buffer.allocUnsafe(HEAD.length + data.length + MID.length + meta.length + 1)
        let at = HEAD.copy(body, 0)
        body.set(data, at)
        at += data.length
        at += MID.copy(body, at)
        at += body.write(meta, at, "latin1")
        body[at] = 0x7d // }
        return new Reply(200, JSON_ONLY, body, rateLimitBlock(q))
      }
    })

    return { serve } as const
  })
}) {}
