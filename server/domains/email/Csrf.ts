/**
 * Cross-site request protection of the workspace's forms, on top of SameSite=Lax cookies:
 *  - a request authenticated by the session cookie must carry a CSRF token bound to its session (`_csrf` form
 *    field or `X-CSRF-Token` header; Tokens.ts), valid 12 hours;
 *  - it must come from this site's own pages (the platform's same-origin rule, platform/http/SameOrigin.ts: `Origin`,
 *    else `Sec-Fetch-Site`, neither → refused), whatever the token;
 *  - a request authenticated by `Authorization: Bearer` needs no token: browsers never attach that header by themselves.
 */
import { Effect } from "effect"
import { Forbidden } from "../../platform/http/Errors"
import type { RequestInfo } from "../../platform/http/Route"
import { crossSite, crossSiteRefused } from "../../platform/http/SameOrigin"
import type { AuthUser } from "../accounts/Guards"
import { csrfToken, verifyCsrf } from "./Tokens"

const refuse = (message: string) => new Forbidden({ message, code: "csrf_failed" })

export const makeCsrf = (key: Buffer, publicBaseUrl: string) => {
  const now = () => Math.floor(Date.now() / 1000)
  return {
    token: (user: AuthUser) => csrfToken(key, user.sessionId ?? `user:${user.id}`, now()),
    check: (req: RequestInfo, user: AuthUser, fromBody: string | undefined): Effect.Effect<void, Forbidden> => {
      if (req.header("authorization") !== undefined) return Effect.void
      const cross = crossSite(req, publicBaseUrl)
      if (cross !== null) return Effect.fail(crossSiteRefused(cross))
      const given = fromBody ?? req.header("x-csrf-token")
      if (!given || !verifyCsrf(key, user.sessionId ?? `user:${user.id}`, given, now())) {
        return Effect.fail(refuse("Missing or expired form token; reload the page and try again"))
      }
      return Effect.void
    }
  }
}
