/** Account and session routes (spec §4.1; contracts in schema/http/auth.ts); the mailed-link routes are in HttpLinks.ts. */
import { Effect } from "effect"
import { AuthEndpoints as E, TierResponse } from "../../../schema/http/auth"
import { AppConfig } from "../../platform/Config"
import { NotFound, Unauthorized } from "../../platform/http/Errors"
import { crossSite, crossSiteRefused } from "../../platform/http/SameOrigin"
import { Guard } from "../../platform/http/Guards"
import { Reply } from "../../platform/http/Reply"
import { route } from "../../platform/http/Route"
import { Accounts } from "./Accounts"
import { AccountsConfig } from "./Config"
import { clearedCookies, clientMeta, cookieIsSecure, NO_STORE, sessionCookies } from "./Cookies"
import { AuthGuards, REFRESH_COOKIE } from "./Guards"
import { AuthLinkRoutes } from "./HttpLinks"
import type { MeResponse as Me } from "../../../schema/http/auth"
import { Sessions, type IssuedSession } from "./Sessions"

export { TierResponse }

export const AuthRoutes = Effect.gen(function* () {
  const config = yield* AppConfig
  const { refreshTtlSeconds } = yield* AccountsConfig
  const accounts = yield* Accounts
  const sessions = yield* Sessions
  const guards = yield* AuthGuards
  const secure = cookieIsSecure(config.publicBaseUrl)

  /** A session answer: tokens in the body (API clients) and in cookies (browsers). */
  const sessionReply = (session: IssuedSession, me: Me) =>
    Reply.json(
      { access_token: session.accessToken, token_type: "bearer", expires_in: session.expiresIn, refresh_token: session.refreshToken, user: me },
      200,
      [...sessionCookies(session, refreshTtlSeconds, secure), NO_STORE]
    )

  const core = [
    route(E.register, {
      guard: Guard.anon,
      handler: ({ body, req }) =>
        accounts.register({ email: body.email, password: body.password, displayName: body.display_name }, clientMeta(req)).pipe(
          Effect.as(Reply.json({ ok: true, message: "Check your inbox: we sent a link to confirm your e-mail address." }, 200, [NO_STORE]))
        )
    }),
    route(E.login, {
      guard: Guard.anon,
      handler: ({ body, req }) =>
        accounts.login(body.email, body.password, clientMeta(req)).pipe(
          Effect.map(({ session, me }) => sessionReply(session, me))
        )
    }),
    route(E.refresh, {
      guard: Guard.anon,
      handler: ({ body, req }) => {
        const raw = body.refresh_token ?? req.cookie(REFRESH_COOKIE)
        if (!raw) return Effect.fail(new Unauthorized({ message: "No refresh token", code: "invalid_refresh_token" }))
        const refused = body.refresh_token === undefined ? crossSite(req, config.publicBaseUrl) : null
        if (refused !== null) return Effect.fail(crossSiteRefused(refused))
        return sessions.refresh(raw).pipe(
          Effect.flatMap((session) => accounts.me(session.userId).pipe(Effect.map((me) => sessionReply(session, me))))
        )
      }
    }),
    route(E.logout, {
      guard: guards.optionalUser,
      handler: ({ body, auth, req }) =>
        Effect.gen(function* () {
          if (auth && body.everywhere) yield* sessions.revokeAll(auth.id, "logout_everywhere")
          else if (auth?.sessionId) yield* sessions.revoke(auth.sessionId, "logout")
          // Another site's request does not end this browser's session through its cookie.
          const refresh = body.refresh_token ?? (crossSite(req, config.publicBaseUrl) === null ? req.cookie(REFRESH_COOKIE) : undefined)
          const sid = refresh ? yield* sessions.sessionOfRefreshToken(refresh) : undefined
          if (sid) yield* sessions.revoke(sid, "logout")
          return Reply.json({ ok: true, message: "Signed out" }, 200, [...clearedCookies(secure), NO_STORE])
        })
    }),
    route(E.sessions, {
      guard: guards.user,
      handler: ({ auth }) => sessions.listOf(auth.id, auth.sessionId).pipe(Effect.map((list) => ({ sessions: list })))
    }),
    route(E.revokeSession, {
      guard: guards.user,
      handler: ({ auth, params }) =>
        sessions.revokeOwn(auth.id, params.session_id).pipe(
          Effect.filterOrFail((revoked) => revoked, () => new NotFound({ message: "No such session of this account", code: "session_not_found" })),
          Effect.map(() => ({ revoked: true as const, id: params.session_id, current: params.session_id === auth.sessionId }))
        )
    }),
    route(E.tier, {
      guard: guards.optionalUser,
      handler: ({ auth }) =>
        Effect.succeed(Reply.json({ tier: auth?.tier ?? "anon" }, 200, [["cache-control", "private, no-store"], ["vary", "authorization, cookie"]]))
    }),
    route(E.me, {
      guard: guards.user,
      handler: ({ auth }) => accounts.me(auth.id).pipe(Effect.map((me) => Reply.json(me, 200, [NO_STORE])))
    }),
    route(E.profile, {
      guard: guards.user,
      handler: ({ auth, body }) =>
        accounts.updateProfile(auth.id, body.display_name).pipe(Effect.map((me) => Reply.json(me, 200, [NO_STORE])))
    }),
    route(E.accountType, {
      guard: guards.user,
      handler: ({ auth, body }) =>
        accounts.setAccountType(auth.id, body).pipe(Effect.map((me) => Reply.json(me, 200, [NO_STORE])))
    }),
    route(E.password, {
      guard: guards.user,
      handler: ({ auth, body, req }) =>
        accounts.changePassword(auth, body.current_password, body.new_password, clientMeta(req)).pipe(
          Effect.map(({ session, me }) => sessionReply(session, me))
        )
    })
  ]
  return [...core, ...(yield* AuthLinkRoutes)]
})
