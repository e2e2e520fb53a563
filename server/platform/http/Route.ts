/**
 * Routes: an endpoint's contract (method, path, zod schemas for path/query/body and the answer; declared once in
 * `schema/http`, see endpoint.ts there) with a guard and a handler returning an Effect. Domains build their routes
 * inside an Effect (closing over their services) and hand the list to the server; handlers therefore need no
 * services of their own (`R = never`), and receive the parsed, typed values of the contract's schemas.
 */
import type { Effect } from "effect"
import type { z } from "zod"
import type { BodyKind, Endpoint, Method, None } from "../../../schema/http/endpoint"
import type { RouteError } from "./Errors"
import { type Header, Reply } from "./Reply"

export type { BodyKind, Method }

/** Everything a handler or guard may know about the request; copied out of uWS before the first await. */
export interface RequestInfo {
  readonly id: string
  readonly method: string
  /** Path without query string, trailing slash removed. */
  readonly path: string
  /** Raw query string without `?`. */
  readonly query: string
  /** Lower-case header names. */
  readonly headers: ReadonlyMap<string, string>
  /** One header (lower-case name) without copying the others; undefined when absent. */
  header(name: string): string | undefined
  readonly ip: string
  cookie(name: string): string | undefined
}

export interface Guard<A> {
  /** Shown in the OpenAPI document and the access log (`anon`, `user`, `tier>=alpha`, `admin`, `api-key`, …). */
  readonly name: string
  /** OpenAPI security requirement of this guard. */
  readonly security?: ReadonlyArray<Record<string, ReadonlyArray<string>>>
  readonly run: (req: RequestInfo) => Effect.Effect<A, RouteError>
}

export interface HandlerInput<P, Q, B, A> {
  readonly params: P
  readonly query: Q
  readonly body: B
  readonly auth: A
  readonly req: RequestInfo
  /** The exact request bytes (webhook signatures are computed over them). */
  readonly rawBody: Buffer
}

/**
 * What a handler may answer for a response schema's input type `T`: the values whose JSON is a `T` (read-only arrays
 * and objects, a `Date` where a string goes). The response check (ResponseCheck.ts) checks the JSON itself.
 */
export type Sent<T> = T extends string ? T | Date
  : T extends number | boolean | null | undefined ? T
  : T extends ReadonlyArray<infer U> ? ReadonlyArray<Sent<U>>
  : T extends object ? { readonly [K in keyof T]: Sent<T[K]> }
  : T

/** What a route adds to its endpoint's contract: who may call it, and what answers (a value of the contract's response, or any `Reply`). */
export interface RouteImpl<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, A, R extends z.ZodType = z.ZodType<unknown>> {
  readonly guard: Guard<A>
  readonly handler: (input: HandlerInput<z.output<P>, z.output<Q>, z.output<B>, A>) => Effect.Effect<Sent<z.input<R>> | Reply, RouteError>
  /** Optional hot path of a route without a body (see `FastPath`). */
  readonly fast?: FastPath
  /** This route's own body cap (bytes) instead of MAX_BODY_BYTES (e.g. inbound mail with attachments). */
  readonly maxBodyBytes?: number
  /**
   * The handler reads the query string itself (`req.query`) instead of the pipeline validating it first: the keyed
   * data API counts a request before refusing its query, so its 422 carries the quota headers. The contract's `query`
   * still documents it (and the handler validates with that same schema).
   */
  readonly rawQuery?: boolean
}

/**
 * A route's optional hot path, tried before guard → validation → handler, without building an Effect per request:
 * it answers what it can from memory (a cached body, a cached API key). It returns `true` when it took the request
 * and calls `respond` exactly once, now or later; `false` sends the request down the ordinary path (a cache miss, an
 * unknown key, anything unusual), which must answer the same. Whatever it needs of the request it reads before it
 * returns (headers and the peer address come from uWS on first use, and uWS's request is gone after the callback;
 * `header(name)` reads one header without copying the others). Measured: the Effect pipeline costs a fiber per
 * request and, when it suspends, an `AsyncFiberException` with a stack trace; `npm run bench:api` is the check.
 */
export type FastPath = (req: RequestInfo, respond: (reply: Reply) => void) => boolean

/** The hot path of a body kept in memory: `peek` gives it when it may be served now (see `memo.peek`). */
export const fromMemory = (peek: () => Uint8Array | undefined, headers: ReadonlyArray<Header>): FastPath => (_, respond) => {
  const body = peek()
  if (body === undefined) return false
  respond(new Reply(200, headers, body))
  return true
}

/** A route with its types erased, as the table holds it. */
export interface AnyRoute {
  readonly method: Method
  readonly path: string
  readonly summary: string
  readonly tags: ReadonlyArray<string>
  readonly params?: z.ZodType
  readonly query?: z.ZodType
  readonly body?: z.ZodType
  readonly bodyKind: BodyKind | undefined
  readonly guard: Guard<unknown>
  readonly response?: z.ZodType
  readonly produces?: string
  readonly handler: (input: HandlerInput<any, any, any, any>) => Effect.Effect<unknown | Reply, RouteError>
  readonly fast?: FastPath
  readonly maxBodyBytes?: number
  readonly rawQuery?: boolean
}

/**
 * A route: the endpoint's contract (from schema/http, or local for a page) with its guard and handler; the handler's
 * input is typed by the contract's schemas.
 */
export const route = <P extends z.ZodType = None, Q extends z.ZodType = None, B extends z.ZodType = None, R extends z.ZodType = z.ZodType<unknown>, A = unknown>(
  endpoint: Endpoint<P, Q, B, R>, impl: RouteImpl<P, Q, B, A, R>
): AnyRoute => ({
  ...endpoint,
  ...impl,
  tags: endpoint.tags ?? [],
  bodyKind: endpoint.body ? (endpoint.bodyKind ?? "json-or-form") : endpoint.bodyKind,
  guard: impl.guard as Guard<unknown>,
  handler: impl.handler as AnyRoute["handler"]
})

/** Whether a browser asks (`Accept: text/html`): link pages answer it a page, API clients JSON. */
export const wantsHtml = (req: RequestInfo) => /\btext\/html\b/.test(req.headers.get("accept") ?? "")
