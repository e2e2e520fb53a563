/**
 * Route guards of the accounts domain: `user`, `optionalUser`, `tier(min)` and `admin`. A session is presented as
 * `Authorization: Bearer <jwt>` or as the `whale_token` cookie (the header wins when both are sent). Every check
 * verifies the JWT and then the session row, so logout and password changes take effect on the next request.
 *
 * The WebSocket hub authenticates in `upgrade` with `resolveHeaders` (or `resolveToken` with a raw token).
 */
import { Effect } from "effect"
import { TIER_RANK, type Tier } from "../../../schema/tiers"
import { Forbidden, Unauthorized } from "../../platform/http/Errors"
import type { Guard, RequestInfo } from "../../platform/http/Route"
import { cookieValue, SESSION_COOKIE } from "../../platform/http/Principals"
import { crossSite, crossSiteRefused } from "../../platform/http/SameOrigin"
import { AppConfig } from "../../platform/Config"
import { Entitlements } from "./Entitlements"
import { toAuthUser, type AuthUser } from "./Model"
import { AccountsRepo } from "./Repo"
import { Sessions } from "./Sessions"

export type { AuthUser } from "./Model"

export { SESSION_COOKIE, cookieValue }
export const REFRESH_COOKIE = "whale_refresh"

const SECURITY = [{ bearer: [] }, { cookie: [] }] as const

/** The session token a request carries: the bearer token, else the `whale_token` cookie. */
export const sessionTokenFrom = (authorization: string | undefined, cookie: (name: string) => string | undefined): string | undefined => {
  if (authorization !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    return m ? m[1] : ""
  }
  const fromCookie = cookie(SESSION_COOKIE)
  return fromCookie === undefined || fromCookie === "" ? undefined : fromCookie
}

const notAuthenticated = (message: string, code: string) =>
  new Unauthorized({ message, code, headers: { "www-authenticate": `Bearer realm="whale", error="invalid_token"` } })

export class AuthGuards extends Effect.Service<AuthGuards>()("app/AuthGuards", {
  dependencies: [Sessions.Default, Entitlements.Default, AccountsRepo.Default],
  effect: Effect.gen(function* () {
    const sessions = yield* Sessions
    const entitlements = yield* Entitlements
    const repo = yield* AccountsRepo
    const config = yield* AppConfig

    /** The user of a raw session token; 401 (`token_expired`, `invalid_token`, `session_revoked`) otherwise. */
    const resolveToken = Effect.fn("AuthGuards.resolveToken")(function* (token: string) {
      const decoded = yield* sessions.decode(token).pipe(
        Effect.mapError((e) =>
          e.reason === "expired"
            ? notAuthenticated("Session token expired; refresh it", "token_expired")
            : notAuthenticated("Invalid session token", "invalid_token")
        )
      )
      const row = yield* repo.bySession(decoded.sessionId, decoded.userId)
      if (!row) return yield* Effect.fail(notAuthenticated("Session ended; sign in again", "session_revoked"))
      return toAuthUser(row, yield* entitlements.tierOf(row.id), decoded.sessionId)
    })

    /** The user of a request's raw `Authorization` and `Cookie` headers, or null (anonymous or not valid). */
    const resolveHeaders = Effect.fn("AuthGuards.resolveHeaders")(function* (headers: { authorization?: string | undefined; cookie?: string | undefined }) {
      const token = sessionTokenFrom(headers.authorization, (name) => cookieValue(headers.cookie, name))
      if (!token) return null
      return yield* resolveToken(token).pipe(Effect.orElseSucceed(() => null))
    })

    const fromRequest = (req: RequestInfo): Effect.Effect<AuthUser, Unauthorized | Forbidden> => {
      const authorization = req.headers.get("authorization")
      const token = sessionTokenFrom(authorization, (name) => req.cookie(name))
      if (token === undefined) return Effect.fail(notAuthenticated("Not authenticated", "not_authenticated"))
      if (token === "") return Effect.fail(notAuthenticated("Malformed Authorization header", "invalid_token"))
      // The cookie acts only for requests from this site's own pages (platform/http/SameOrigin.ts).
      const refused = authorization === undefined ? crossSite(req, config.publicBaseUrl) : null
      return refused === null ? resolveToken(token) : Effect.fail(crossSiteRefused(refused))
    }

    const user: Guard<AuthUser> = { name: "user", security: SECURITY, run: fromRequest }

    /** Anonymous callers (and stale or invalid credentials) pass as null. */
    const optionalUser: Guard<AuthUser | null> = {
      name: "optional-user",
      security: [...SECURITY, {}],
      run: (req) => fromRequest(req).pipe(Effect.orElseSucceed(() => null))
    }

    const tier = (min: Tier): Guard<AuthUser> => ({
      name: `tier>=${min}`,
      security: SECURITY,
      run: (req) =>
        fromRequest(req).pipe(
          Effect.filterOrFail(
            // Administrators read whatever the admin pages let them edit, whatever their own tier.
            (u) => u.admin || TIER_RANK[u.tier] >= TIER_RANK[min],
            (u) =>
              new Forbidden({
                message: `This needs the ${min} tier or higher`,
                code: "tier_required",
                extra: { required_tier: min, tier: u.tier }
              })
          )
        )
    })

    const admin: Guard<AuthUser> = {
      name: "admin",
      security: SECURITY,
      run: (req) =>
        fromRequest(req).pipe(
          Effect.filterOrFail((u) => u.admin, () => new Forbidden({ message: "Administrators only", code: "admin_required" }))
        )
    }

    return { user, optionalUser, tier, admin, resolveToken, resolveHeaders } as const
  })
}) {}
