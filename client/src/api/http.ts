/**
 * The console's HTTP agent, grouped by resource. Same-origin requests carry the session cookie; failures become
 * `HttpError` with the server's message (`detail`) and code.
 */
import type { MeResponse, SessionResponse } from "../../../schema/http/auth"
import type { PublicMeta, Stats, TopTokens, WhaleIndex } from "../../../schema/http/analytics"
import type { TokenDetail } from "../../../schema/http/console"

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

const request = async <T,>(method: "GET" | "POST", path: string, body?: unknown): Promise<T> => {
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

export interface Public<T> {
  readonly data: T
  readonly meta: PublicMeta
}

export const createAgent = () => ({
  auth: {
    tier: () => request<{ tier: string }>("GET", "/auth/tier"),
    me: () => request<MeResponse>("GET", "/auth/me"),
    login: (email: string, password: string) => request<SessionResponse>("POST", "/auth/login", { email, password }),
    register: (email: string, password: string, displayName?: string) =>
      request<{ ok: true; message: string }>("POST", "/auth/register", { email, password, ...(displayName ? { display_name: displayName } : {}) }),
    refresh: () => request<SessionResponse>("POST", "/auth/refresh", {}),
    logout: () => request<{ ok: true }>("POST", "/auth/logout", {})
  },
  analytics: {
    stats: () => request<Public<Stats>>("GET", "/api/v1/public/stats"),
    whaleIndex: () => request<Public<WhaleIndex>>("GET", "/api/v1/public/whale-index"),
    topTokens: () => request<Public<TopTokens>>("GET", "/api/v1/public/top-tokens")
  },
  tokens: {
    detail: (token: string) => request<TokenDetail>("GET", `/api/console/tokens/${encodeURIComponent(token)}`)
  },
  ops: {
    restart: (actor: string) => request<{ accepted: true; actor: string; processes: number }>("POST", `/ops/actors/${encodeURIComponent(actor)}/restart`)
  }
})

export type Agent = ReturnType<typeof createAgent>
