/**
 * The one request pipeline of every route: guard → path, query and body validation → handler, as one Effect fiber
 * started at once (a handler that needs no I/O has answered before `runRoute` returns). Failures become replies
 * through the platform's errors and the modules' error maps; anything unmapped is a logged 500 with the request id.
 * An answer to a caller the guard identified (a session, an API key) is that caller's: without a `cache-control` of
 * its own it goes out `private, no-store`, so no shared cache keeps one user's answer for another.
 */
import { Effect, type Exit, FiberId, Runtime } from "effect"
import { z } from "zod"
import { parseBody, parseForm } from "./Body"
import { UnsupportedMediaType, ValidationFailed, type ErrorMap, type RouteError } from "./Errors"
import { Reply } from "./Reply"
import { replyForCause } from "./Respond"
import type { AnyRoute, RequestInfo } from "./Route"
import { validate } from "./Validate"

/** Runs a matched route; calls `complete` exactly once; returns how to cancel it (interrupting its fiber). */
export type RunRoute = (
  route: AnyRoute, info: RequestInfo, params: Record<string, string>, rawBody: Buffer, complete: (reply: Reply) => void
) => () => void

/** A query the handler validates itself (`rawQuery`) still passes the checks of every value (no NUL character). */
const RAW_QUERY = z.unknown()

const PRIVATE: readonly [string, string] = ["cache-control", "private, no-store"]
const hasCacheControl = (reply: Reply) => reply.headers.some(([name]) => name.length === 13 && name.toLowerCase() === "cache-control")

export const makePipeline = (errorMaps: ErrorMap) => Effect.gen(function* () {
  const runtime = yield* Effect.runtime<never>()
  const runFork = Runtime.runFork(runtime)
  const runSync = Runtime.runSync(runtime)

  const runRoute: RunRoute = (route, info, pathParams, rawBody, complete) => {
    let identified = false
    const program = Effect.gen(function* () {
      const auth = yield* route.guard.run(info)
      identified = auth !== undefined && auth !== null
      const params = route.params ? yield* validate("path", route.params, pathParams) : {}
      const query = route.query ? yield* validate("query", route.rawQuery ? RAW_QUERY : route.query, parseForm(info.query)) : {}
      let body: unknown = {}
      if (route.bodyKind) {
        const parsed = parseBody(route.bodyKind, info.headers.get("content-type"), rawBody)
        if (!parsed.ok) {
          return yield* parsed.reason === "json_invalid"
            ? Effect.fail(new ValidationFailed({ issues: [{ type: "json_invalid", loc: ["body"], msg: parsed.message, input: null }] }))
            : Effect.fail(new UnsupportedMediaType({ message: parsed.message }))
        }
        body = route.body ? yield* validate("body", route.body, parsed.value) : parsed.value
      }
      return yield* route.handler({ params, query, body, auth, req: info, rawBody })
    })
    const onExit = (exit: Exit.Exit<unknown, RouteError>) => {
      if (exit._tag === "Success") {
        const reply = exit.value instanceof Reply ? exit.value : Reply.json(exit.value ?? null)
        return complete(identified && !hasCacheControl(reply) ? reply.withHeaders(PRIVATE) : reply)
      }
      const { reply, fault } = replyForCause(exit.cause, info.id, errorMaps)
      if (fault) runSync(Effect.logError("request failed", exit.cause).pipe(Effect.annotateLogs({ req: info.id, route: route.path })))
      complete(reply)
    }
    // The fiber starts at once and runs as far as it goes: a handler that needs no I/O (cache hits, validation
    // errors) has replied inside the uWS callback when `runFork` returns. (`runSyncExit` would do the same but
    // builds an AsyncFiberException with a stack trace for every request that suspends.)
    const fiber = runFork(program)
    fiber.addObserver(onExit)
    return () => fiber.unsafeInterruptAsFork(FiberId.none)
  }
  return runRoute
})
