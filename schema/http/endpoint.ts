/**
 * One contract per endpoint: its method, path, path and query parameters, body and JSON answer, declared once in
 * `schema/http/<domain>.ts` and used by everything that speaks it — the server's route table (`route(contract,
 * { guard, handler })`), the console's calls (`call(contract, { params, query, body })`, which builds the path from
 * the contract), the OpenAPI document, and the response check of tests and development (RESPONSE_CHECK).
 *
 * A path names its parameters `{name}`, each a key of `params`; a final `/*` matches any rest of the path. `response`
 * is the body of a 2xx JSON answer; an endpoint answering something else (a page, an image, a redirect) says so in
 * `produces` instead.
 */
import type { z } from "zod"

export type Method = "GET" | "POST" | "PUT" | "DELETE" | "PATCH"

/** How the body is read: JSON, a url-encoded form, either (the default when a body is declared), or the raw bytes. */
export type BodyKind = "json" | "form" | "json-or-form" | "raw"

/** No parameters (or no body) of that kind. */
export type None = z.ZodType<Record<string, never>>

export interface Endpoint<P extends z.ZodType = None, Q extends z.ZodType = None, B extends z.ZodType = None, R extends z.ZodType = z.ZodType<unknown>> {
  readonly method: Method
  /** `/api/alerts/{alert_id}`. */
  readonly path: string
  /** One line for the OpenAPI document: what it does, and its notable refusals. */
  readonly summary: string
  readonly tags?: ReadonlyArray<string>
  readonly params?: P
  readonly query?: Q
  readonly body?: B
  /** How the body is read; default `json-or-form` when `body` is given. */
  readonly bodyKind?: BodyKind
  /** The JSON body of a 2xx answer. */
  readonly response?: R
  /** The content type when the endpoint answers something other than JSON. */
  readonly produces?: string
}

const PARAM = /\{(\w+)\}/g

/**
 * Declares an endpoint. A path parameter without its schema in `params` (or a schema key the path does not name)
 * is refused when the module loads, so a renamed segment cannot drift from its schema.
 */
export const endpoint = <P extends z.ZodType = None, Q extends z.ZodType = None, B extends z.ZodType = None, R extends z.ZodType = z.ZodType<unknown>>(
  def: Endpoint<P, Q, B, R>
): Endpoint<P, Q, B, R> => {
  const named = [...def.path.matchAll(PARAM)].map((m) => m[1]!)
  const shape = (def.params as { shape?: Record<string, unknown> } | undefined)?.shape
  const declared = shape ? Object.keys(shape) : []
  const missing = named.filter((n) => !declared.includes(n))
  const extra = declared.filter((n) => !named.includes(n))
  if (missing.length > 0 || extra.length > 0) {
    throw new Error(`${def.method} ${def.path}: path parameters ${JSON.stringify(named)} and params ${JSON.stringify(declared)} differ`)
  }
  return { ...def, tags: def.tags ?? [] }
}

/** The parameter, query and body types a caller gives (zod inputs: `"5"` and `5` for an integer parameter). */
export type ParamsOf<E> = E extends Endpoint<infer P, any, any, any> ? z.input<P> : never
export type QueryOf<E> = E extends Endpoint<any, infer Q, any, any> ? z.input<Q> : never
export type BodyOf<E> = E extends Endpoint<any, any, infer B, any> ? z.input<B> : never
/** The parsed answer a caller gets. */
export type ResponseOf<E> = E extends Endpoint<any, any, any, infer R> ? z.output<R> : never

/**
 * The path of one request: each `{name}` replaced by its value (URI-encoded), then the query string of the values
 * given (undefined and null left out).
 */
export const pathOf = (
  e: Pick<Endpoint<any, any, any, any>, "path">, params: Record<string, unknown> = {}, query: Record<string, unknown> = {}
): string => {
  const path = e.path.replace(PARAM, (_, name: string) => {
    const value = params[name]
    if (value === undefined || value === null) throw new Error(`${e.path}: no value for {${name}}`)
    return encodeURIComponent(String(value))
  })
  const search = new URLSearchParams()
  for (const [k, v] of Object.entries(query)) {
    if (v === undefined || v === null) continue
    for (const item of Array.isArray(v) ? v : [v]) search.append(k, String(item))
  }
  const text = search.toString()
  return text === "" ? path : `${path}?${text}`
}
