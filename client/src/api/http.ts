/**
 * The console's HTTP agent, grouped by resource. Same-origin requests carry the session cookie; failures become
 * `HttpError` with the server's message (`detail`) and code.
 */
import type { z } from "zod"
import { AuthEndpoints as Auth } from "../../../schema/http/auth"
import { ConsoleEndpoints } from "../../../schema/http/console"
import { type BodyOf, type Endpoint, type ParamsOf, pathOf, type QueryOf, type ResponseOf } from "../../../schema/http/endpoint"
import { OpsEndpoints } from "../../../schema/http/ops"
import { PublicEndpoints as Public } from "../../../schema/http/publicapi"

export class HttpError extends Error {
  constructor(readonly status: number, readonly code: string | undefined, message: string) {
    super(message)
  }
}

const messageOf = (status: number, body: unknown): { message: string; code?: string } => {
  const b = body as { detail?: unknown; code?: string } | null
  if (b && typeof b.detail === "string") return { message: b.detail, code: b.code }
  if (b && Array.isArray(b.detail) && b.detail.length > 0) {
    const first = b.detail[0] as { loc?: Array<string | number>; msg?: string }
    const field = first.loc?.[first.loc.length - 1]
    return { message: `${field ? `${field}: ` : ""}${first.msg ?? "invalid value"}`, code: "validation_failed" }
  }
  return { message: `Request failed (${status})` }
}

/** A form (`application/x-www-form-urlencoded`) instead of JSON, and extra headers (the e-mail workspace's CSRF token). */
export interface CallOptions {
  readonly form?: boolean
  readonly headers?: Readonly<Record<string, string>>
}

/** `params`, `query` and `body` as the contract types them; each may be left out when nothing in it is required. */
type Field<K extends string, T> = {} extends T ? { readonly [P in K]?: T } : { readonly [P in K]: T }
export type CallInput<E> = Field<"params", ParamsOf<E>> & Field<"query", QueryOf<E>> & Field<"body", BodyOf<E>>
type CallArgs<E> = {} extends CallInput<E> ? [input?: CallInput<E>, options?: CallOptions] : [input: CallInput<E>, options?: CallOptions]

/**
 * A call of one endpoint by its contract (`schema/http/<domain>.ts`): the path is built from the contract and the
 * parameters, the body sent as JSON (or as a form), and the answer parsed with the contract's response schema — an
 * answer that does not match it is an error, never a cast. A feature's `api.ts` is a handful of these.
 */
export const call = async <E extends Endpoint<any, any, any, any>>(endpoint: E, ...[input, options]: CallArgs<E>): Promise<ResponseOf<E>> => {
  const { params, query, body } = (input ?? {}) as { params?: Record<string, unknown>; query?: Record<string, unknown>; body?: Record<string, unknown> }
  const path = pathOf(endpoint, params, query)
  const sent = endpoint.body === undefined ? undefined : (body ?? {})
  const headers: Record<string, string> = { accept: "application/json", ...options?.headers }
  if (sent !== undefined) headers["content-type"] = options?.form ? "application/x-www-form-urlencoded" : "application/json"
  const res = await fetch(path, {
    method: endpoint.method,
    credentials: "same-origin",
    headers,
    body: sent === undefined ? undefined : options?.form ? new URLSearchParams(sent as Record<string, string>).toString() : JSON.stringify(sent)
  })
  const text = await res.text()
  let parsed: unknown = null
  try {
    parsed = text ? JSON.parse(text) : null
  } catch {
    parsed = null
  }
  if (!res.ok) {
    const { message, code } = messageOf(res.status, parsed)
    throw new HttpError(res.status, code, message)
  }
  if (endpoint.response === undefined) return parsed as ResponseOf<E>
  const answer = (endpoint.response as z.ZodType).safeParse(parsed)
  if (!answer.success) throw new HttpError(502, "unexpected_response", `Unexpected answer from ${endpoint.method} ${endpoint.path}`)
  return answer.data as ResponseOf<E>
}

export const createAgent = () => ({
  auth: {
    tier: () => call(Auth.tier),
    me: () => call(Auth.me),
    login: (email: string, password: string) => call(Auth.login, { body: { email, password } }),
    register: (email: string, password: string, displayName?: string) =>
      call(Auth.register, { body: { email, password, ...(displayName ? { display_name: displayName } : {}) } }),
    refresh: () => call(Auth.refresh, { body: {} }),
    logout: () => call(Auth.logout, { body: {} }),
    /** Both always answer 200 with the same message (no e-mail enumeration). */
    forgotPassword: (email: string) => call(Auth.forgotPassword, { body: { email } }),
    magicLink: (email: string) => call(Auth.magicLink, { body: { email } })
  },
  analytics: {
    stats: () => call(Public.stats),
    whaleIndex: () => call(Public.whaleIndex),
    topTokens: () => call(Public.topTokens)
  },
  tokens: {
    detail: (token: string) => call(ConsoleEndpoints.token, { params: { token } })
  },
  ops: {
    restart: (actor: string) => call(OpsEndpoints.restart, { params: { name: actor } })
  }
})

export type Agent = ReturnType<typeof createAgent>
