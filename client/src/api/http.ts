/**
 * The console's HTTP agent, grouped by resource. Same-origin requests carry the session cookie; failures become
 * `HttpError` with the server's message (`detail`) and code.
 */
import { z } from "zod"
import { MeResponse, SessionResponse } from "../../../schema/http/auth"
import { PublicMeta, Stats, TopTokens, WhaleIndex } from "../../../schema/http/analytics"
import { TokenDetail } from "../../../schema/http/console"
import { RestartAccepted } from "../../../schema/http/ops"

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

export type Method = "GET" | "POST" | "PUT" | "DELETE"

const request = async <T,>(method: Method, path: string, body?: unknown): Promise<T> => {
  const res = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body)
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
  return parsed as T
}

/**
 * A call whose answer is parsed with the shared zod schema of the endpoint (`schema/http/<domain>.ts`): a feature's
 * `api.ts` is a handful of these. An answer that does not match the schema is an error, never a cast.
 */
export const call = async <S extends z.ZodType>(schema: S, method: Method, path: string, body?: unknown): Promise<z.output<S>> => {
  const raw = await request<unknown>(method, path, body)
  const parsed = schema.safeParse(raw)
  if (!parsed.success) throw new HttpError(502, "unexpected_response", `Unexpected answer from ${path}`)
  return parsed.data
}

const Tier = z.object({ tier: z.string() })
const Ok = z.object({ ok: z.literal(true), message: z.string() })
const LoggedOut = z.object({ ok: z.literal(true) })
const publicOf = <S extends z.ZodType>(data: S) => z.object({ data, meta: PublicMeta })

export const createAgent = () => ({
  auth: {
    tier: () => call(Tier, "GET", "/auth/tier"),
    me: () => call(MeResponse, "GET", "/auth/me"),
    login: (email: string, password: string) => call(SessionResponse, "POST", "/auth/login", { email, password }),
    register: (email: string, password: string, displayName?: string) =>
      call(Ok, "POST", "/auth/register", { email, password, ...(displayName ? { display_name: displayName } : {}) }),
    refresh: () => call(SessionResponse, "POST", "/auth/refresh", {}),
    logout: () => call(LoggedOut, "POST", "/auth/logout", {}),
    /** Both always answer 200 with the same message (no e-mail enumeration). */
    forgotPassword: (email: string) => call(Ok, "POST", "/auth/forgot-password", { email }),
    magicLink: (email: string) => call(Ok, "POST", "/auth/magic-link", { email })
  },
  analytics: {
    stats: () => call(publicOf(Stats), "GET", "/api/v1/public/stats"),
    whaleIndex: () => call(publicOf(WhaleIndex), "GET", "/api/v1/public/whale-index"),
    topTokens: () => call(publicOf(TopTokens), "GET", "/api/v1/public/top-tokens")
  },
  tokens: {
    detail: (token: string) => call(TokenDetail, "GET", `/api/console/tokens/${encodeURIComponent(token)}`)
  },
  ops: {
    restart: (actor: string) => call(RestartAccepted, "POST", `/ops/actors/${encodeURIComponent(actor)}/restart`)
  }
})

export type Agent = ReturnType<typeof createAgent>
