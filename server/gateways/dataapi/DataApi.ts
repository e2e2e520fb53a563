/**
 * The keyed data API's request path (spec §2.4, §4.14, §5, §7, §8): count the request against the account's daily
 * quota, publish a usage event, refuse past the limit (429 with `Retry-After` and `reset_at`), validate the query
 * (422), produce the data and wrap it in the envelope `{data, meta:{tier, endpoint, generated_at, source, demo}}`.
 * Every answer after authentication carries `X-RateLimit-Limit`, `-Remaining` and `-Reset` (epoch seconds of the
 * next 00:00 UTC). Data comes from `ReadModels` as JSON text, so a cached answer costs one counter round trip.
 * Written with plain callbacks around that round trip (`respondTo`): an Effect fiber suspended on Redis per request
 * cost several times the rest of the request (`npm run bench:api`); Effects remain for producing data.
 */
import { Cause, Clock, Effect, Exit, Runtime } from "effect"
import type { z } from "zod"
import { ReadModels } from "../../domains/analytics/ReadModels"
import { isoWithOffset } from "../../domains/analytics/Windows"
import type { KeyOwner } from "../../domains/apikeys/ApiKeys"
import { parseForm } from "../../platform/http/Body"
import { type AppError, TooManyRequests } from "../../platform/http/Errors"
import { errorReply, replyForCause } from "../../platform/http/Respond"
import { JSON_ONLY, Reply, type Header } from "../../platform/http/Reply"
import type { RequestInfo } from "../../platform/http/Route"
import { validateSync } from "../../platform/http/Validate"
import { Quota, type QuotaState } from "./Quota"
import { UsageEvents } from "./UsageEvents"

/** `isoWithOffset`, remembered for the last millisecond asked (the requests of one turn share it). */
let lastIso = { ms: Number.NaN, iso: "" }
const isoAt = (ms: number) => (lastIso.ms === ms ? lastIso.iso : (lastIso = { ms, iso: isoWithOffset(ms) }).iso)

type Origin = { readonly source: string; readonly demo: boolean }

/** What a keyed handler produces: data already serialised, or a value to serialise. */
export type Produced = { readonly json: string; readonly bytes?: Uint8Array } | { readonly value: unknown }

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

export interface KeyedEndpoint {
  /**
   * The request after authentication, with plain callbacks (the route's hot path, `FastPath`): counts it, then
   * calls `respond` once — at once when counted in process, else when Redis has answered.
   */
  readonly respondTo: (owner: KeyOwner, req: RequestInfo, now: number, respond: (reply: Reply) => void) => void
  /** The same as an Effect on the Effect clock (the ordinary path, after the route's guard). */
  readonly effect: (owner: KeyOwner, req: RequestInfo) => Effect.Effect<Reply>
}

export class DataApi extends Effect.Service<DataApi>()("app/DataApi", {
  dependencies: [Quota.Default, UsageEvents.Default, ReadModels.Default],
  effect: Effect.gen(function* () {
    const quota = yield* Quota
    const usage = yield* UsageEvents
    const models = yield* ReadModels
    const runFork = Runtime.runFork(yield* Effect.runtime<never>())

    const serve = <S extends z.ZodType>(
      endpoint: string,
      schema: S,
      produce: (query: z.output<S>, owner: KeyOwner, quota: QuotaState) => Effect.Effect<Produced, AppError>,
      /** The data when it is in memory now (a cached read model), else undefined; `produce` runs then. */
      peek?: (query: z.output<S>, owner: KeyOwner) => Produced | undefined
    ): KeyedEndpoint => {
      // The outcome of validating an absent query never changes: computed once.
      let noQuery: ReturnType<typeof validateSync<S>> | undefined
      const failed = (cause: Cause.Cause<AppError>, req: RequestInfo): Reply => {
        const { reply, fault } = replyForCause(cause, req.id)
        if (fault) runFork(Effect.logError("keyed request failed", cause).pipe(Effect.annotateLogs({ req: req.id, route: endpoint })))
        return reply
      }

      const answer = (owner: KeyOwner, req: RequestInfo, q: QuotaState, respond: (reply: Reply) => void): void => {
        usage.unsafeRecord(owner, endpoint, q)
        if (!q.allowed) {
          const headers = rateLimitHeaders(q)
          const resetAt = isoWithOffset(q.resetAtMs)
          return respond(errorReply(new TooManyRequests({
            message: `Daily limit of ${q.limit} requests reached; it resets at ${resetAt}`,
            code: "daily_limit_reached",
            retryAfterSeconds: q.retryAfterSeconds,
            headers: Object.fromEntries(headers),
            extra: { limit: q.limit, reset_at: resetAt }
          })))
        }
        const parsed = req.query === "" ? (noQuery ??= validateSync("query", schema, {})) : validateSync("query", schema, parseForm(req.query))
        if (!parsed.ok) return respond(Reply.json({ detail: parsed.issues }, 422, rateLimitHeaders(q)))
        // Bytes, not a string: the data is already UTF-8 (`Cached.bytes`), so a 1 kB envelope is not built, flattened
        // and encoded again per request.
        const envelope = (produced: Produced, origin: Origin) => {
          const data = "json" in produced ? (produced.bytes ?? Buffer.from(produced.json)) : Buffer.from(JSON.stringify(produced.value))
          // Tier, endpoint and source are the server's own identifiers (no escaping needed); the time is ISO 8601.
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
        const origin = models.peek.source()
        const ready = origin === undefined ? undefined : peek?.(parsed.value, owner)
        if (ready !== undefined) return respond(envelope(ready, origin!))
        // A fiber that completes without suspending calls back at once, inside this callback.
        runFork(Effect.zipWith(produce(parsed.value, owner, q), models.source(), envelope))
          .addObserver((exit) => respond(Exit.isSuccess(exit) ? exit.value : failed(exit.cause, req)))
      }

      const respondTo = (owner: KeyOwner, req: RequestInfo, now: number, respond: (reply: Reply) => void): void =>
        quota.count(owner.userId, owner.keyId, now, (q) => {
          try {
            answer(owner, req, q, respond)
          } catch (defect) {
            respond(failed(Cause.die(defect), req))
          }
        })

      return {
        respondTo,
        effect: (owner, req) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.async<Reply>((resume) => respondTo(owner, req, now, (reply) => resume(Effect.succeed(reply)))))
      }
    }

    return { serve } as const
  })
}) {}
