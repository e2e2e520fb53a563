/**
 * Cross-site request protection of the workspace's forms, on top of SameSite=Lax cookies:
 *  - a request authenticated by the session cookie must carry a CSRF token bound to its session (`_csrf` form
 *    field or `X-CSRF-Token` header; Tokens.ts), valid 12 hours;
 *  - an `Origin` (or, without it, a `Referer`) naming another site is refused whatever the token;
 *  - a request authenticated by `Authorization: Bearer` needs no token: browsers never attach that header by themselves.
 */
import { Effect } from "effect"
import { Forbidden } from "../../platform/http/Errors"
import type { RequestInfo } from "../../platform/http/Route"
import type { AuthUser } from "../accounts/Guards"
import { csrfToken, verifyCsrf } from "./Tokens"

const refuse = (message: string) => new Forbidden({ message, code: "csrf_failed" })

const originOf = (url: string) => {
  try {
    return new URL(url).origin
  } catch {
    return null
  }
}

export const makeCsrf = (key: Buffer, publicBaseUrl: string) => {
  const now = () => Math.floor(Date.now() / 1000)
  const allowedOrigins = (req: RequestInfo) => {
    const host = req.header("host")
    return new Set([originOf(publicBaseUrl), ...(host ? [`http://${host}`, `https://${host}`] : [])].filter((o): o is string => o !== null))
  }
  return {
    token: (user: AuthUser) => csrfToken(key, user.sessionId ?? `user:${user.id}`, now()),
    check: (req: RequestInfo, user: AuthUser, fromBody: string | undefined): Effect.Effect<void, Forbidden> => {
      const origin = req.header("origin") ?? (req.header("referer") ? originOf(req.header("referer")!) ?? "null" : undefined)
      if (origin !== undefined && !allowedOrigins(req).has(origin)) return Effect.fail(refuse("Cross-site request refused"))
      if (req.header("authorization") !== undefined) return Effect.void
      const given = fromBody ?? req.header("x-csrf-token")
      if (!given || !verifyCsrf(key, user.sessionId ?? `user:${user.id}`, given, now())) {
        return Effect.fail(refuse("Missing or expired form token; reload the page and try again"))
      }
      return Effect.void
    }
  }
}
