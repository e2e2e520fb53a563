/**
 * The metered request path, for routes whose every request is counted against a budget before it is answered (the
 * keyed data API): count → refuse past the budget → validate the query (422) → the data from memory when it is
 * there, else produced by an Effect → wrapped → one reply. Written with plain callbacks around the count (which may
 * wait on Redis): an Effect fiber suspended per request cost several times the rest of the request (`npm run
 * bench:api`), so a route's `FastPath` calls `respondTo` directly; `effect` is the same for the ordinary pipeline.
 *
 * What is metered, how, and what an answer looks like is the caller's (`Meter`): this file knows no quota, key or
 * envelope.
 */
import { Cause, Clock, Effect, Exit, Runtime } from "effect"
import type { z } from "zod"
import { parseForm } from "./Body"
import type { AppError } from "./Errors"
import { replyForCause } from "./Respond"
import { Reply, type Header } from "./Reply"
import type { RequestInfo } from "./Route"
import { validateSync } from "./Validate"

/** What a metered handler produces: data already serialised (UTF-8 bytes when at hand), or a value to serialise. */
export type Produced = { readonly json: string; readonly bytes?: Uint8Array } | { readonly value: unknown }

/**
 * How a caller `P`'s requests are counted and answered. `C` is a count's outcome; `X` what every answer's wrapping
 * reads besides the data (e.g. where the data comes from), from memory when it is there.
 */
export interface Meter<P, C, X> {
  /** Counts one request of `principal` at `now` and calls back once with the outcome (at once, or when counted). */
  readonly count: (principal: P, now: number, counted: (c: C) => void) => void
  readonly allowed: (c: C) => boolean
  /** The answer past the budget (e.g. 429 with Retry-After). */
  readonly refuse: (c: C) => Reply
  /** Headers every answer after counting carries (a 422 too). */
  readonly headers: (c: C) => ReadonlyArray<Header>
  /** What `wrap` reads: `peek` when it is in memory now (else undefined), `load` otherwise. */
  readonly context: { readonly peek: () => X | undefined; readonly load: Effect.Effect<X> }
  /** The answer carrying the data (`data`: the produced JSON as UTF-8 bytes). */
  readonly wrap: (data: Uint8Array, principal: P, c: C, endpoint: string, context: X) => Reply
  /** Called once per counted request, before it is answered (usage events). */
  readonly counted?: (principal: P, endpoint: string, c: C) => void
}

export interface MeteredEndpoint<P> {
  /** The request after authentication, with plain callbacks (a route's `FastPath`): `respond` is called once. */
  readonly respondTo: (principal: P, req: RequestInfo, now: number, respond: (reply: Reply) => void) => void
  /** The same as an Effect on the Effect clock (the ordinary path, after the route's guard). */
  readonly effect: (principal: P, req: RequestInfo) => Effect.Effect<Reply>
}

/**
 * The metered endpoints of one meter. `produce` runs when `peek` (the data when it is in memory now) has nothing;
 * a fiber that completes without suspending answers inside the caller's callback.
 */
export const makeMetered = <P, C, X>(runtime: Runtime.Runtime<never>, meter: Meter<P, C, X>) => {
  const runFork = Runtime.runFork(runtime)
  return <S extends z.ZodType>(
    endpoint: string,
    schema: S,
    produce: (query: z.output<S>, principal: P, c: C) => Effect.Effect<Produced, AppError>,
    peek?: (query: z.output<S>, principal: P) => Produced | undefined
  ): MeteredEndpoint<P> => {
    // The outcome of validating an absent query never changes: computed once.
    let noQuery: ReturnType<typeof validateSync<S>> | undefined
    const failed = (cause: Cause.Cause<AppError>, req: RequestInfo): Reply => {
      const { reply, fault } = replyForCause(cause, req.id)
      if (fault) runFork(Effect.logError("metered request failed", cause).pipe(Effect.annotateLogs({ req: req.id, route: endpoint })))
      return reply
    }
    const bytesOf = (produced: Produced) =>
      "json" in produced ? (produced.bytes ?? Buffer.from(produced.json)) : Buffer.from(JSON.stringify(produced.value))

    const answer = (principal: P, req: RequestInfo, c: C, respond: (reply: Reply) => void): void => {
      meter.counted?.(principal, endpoint, c)
      if (!meter.allowed(c)) return respond(meter.refuse(c))
      const parsed = req.query === "" ? (noQuery ??= validateSync("query", schema, {})) : validateSync("query", schema, parseForm(req.query))
      if (!parsed.ok) return respond(Reply.json({ detail: parsed.issues }, 422, meter.headers(c)))
      const context = meter.context.peek()
      const ready = context === undefined ? undefined : peek?.(parsed.value, principal)
      if (ready !== undefined) return respond(meter.wrap(bytesOf(ready), principal, c, endpoint, context!))
      runFork(Effect.zipWith(produce(parsed.value, principal, c), meter.context.load, (produced, x) => meter.wrap(bytesOf(produced), principal, c, endpoint, x)))
        // A failure after the count (a 404) carries the count's headers too.
        .addObserver((exit) => respond(Exit.isSuccess(exit) ? exit.value : failed(exit.cause, req).withHeaders(...meter.headers(c))))
    }

    const respondTo = (principal: P, req: RequestInfo, now: number, respond: (reply: Reply) => void): void =>
      meter.count(principal, now, (c) => {
        try {
          answer(principal, req, c, respond)
        } catch (defect) {
          respond(failed(Cause.die(defect), req))
        }
      })

    return {
      respondTo,
      effect: (principal, req) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.async<Reply>((resume) => respondTo(principal, req, now, (reply) => resume(Effect.succeed(reply)))))
    }
  }
}
