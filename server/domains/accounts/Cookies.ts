/**
 * The session cookies: `whale_token` (the session JWT, every path) and `whale_refresh` (the refresh token, only
 * sent to /auth). Both HttpOnly and SameSite=Lax; Secure unless the service is served over plain http on
 * localhost or 127.0.0.1 (development).
 */
import type { Header } from "../../platform/http/Reply"
import type { RequestInfo } from "../../platform/http/Route"
import { REFRESH_COOKIE, SESSION_COOKIE } from "./Guards"
import type { IssuedSession } from "./Sessions"

export const cookieIsSecure = (publicBaseUrl: string) => {
  try {
    const url = new URL(publicBaseUrl)
    return !(url.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname))
  } catch {
    return true
  }
}

const cookie = (name: string, value: string, path: string, maxAge: number, secure: boolean): Header => [
  "set-cookie",
  `${name}=${encodeURIComponent(value)}; Path=${path}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`
]

export const sessionCookies = (session: IssuedSession, refreshTtlSeconds: number, secure: boolean): ReadonlyArray<Header> => [
  cookie(SESSION_COOKIE, session.accessToken, "/", session.expiresIn, secure),
  cookie(REFRESH_COOKIE, session.refreshToken, "/auth", refreshTtlSeconds, secure)
]

export const clearedCookies = (secure: boolean): ReadonlyArray<Header> => [
  cookie(SESSION_COOKIE, "", "/", 0, secure),
  cookie(REFRESH_COOKIE, "", "/auth", 0, secure)
]

/** Answers that carry credentials or personal data are never cached. */
export const NO_STORE: Header = ["cache-control", "no-store"]

/** Who is calling, as recorded on a new session. */
export const clientMeta = (req: RequestInfo) => ({ ip: req.ip || null, userAgent: req.headers.get("user-agent") ?? null })
