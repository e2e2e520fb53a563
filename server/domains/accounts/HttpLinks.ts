/**
 * Routes of the mailed one-time links: verification, password reset, magic login, trial activation, and the
 * requests that mail them. Answers to requests naming an e-mail are identical whether or not it is registered.
 */
import { Effect } from "effect"
import { AuthEndpoints as E } from "../../../schema/http/auth"
import { AppConfig } from "../../platform/Config"
import type { AppError } from "../../platform/http/Errors"
import { Guard } from "../../platform/http/Guards"
import { Reply } from "../../platform/http/Reply"
import { statusOf } from "../../platform/http/Respond"
import { toAppError, type RouteError } from "../../platform/http/Errors"
import { TokenErrors } from "../../platform/infra/Jwt"
import { AccountsConfig } from "./Config"
import { AccountsErrors } from "./Errors"
import { route, type RequestInfo } from "../../platform/http/Route"
import { Accounts } from "./Accounts"
import { clientMeta, cookieIsSecure, NO_STORE, sessionCookies } from "./Cookies"
import { AuthGuards } from "./Guards"
import { AccountLinks } from "./Links"
import { forgotPasswordForm, messagePage, resetPasswordForm, wantsHtml } from "./Pages"

/**
 * Link checkers and mail scanners probe links with HEAD (which the router serves with the GET route): answer
 * without acting, so a probe never spends a one-time link.
 */
const probe = (req: RequestInfo) => (req.method === "HEAD" ? Effect.succeed(Reply.empty(200, [NO_STORE])) : undefined)

const FORGOT_ANSWER = "If an account exists for that address, we sent it a link to reset the password."
const MAGIC_ANSWER = "If an account exists for that address, we sent it a sign-in link."

/** A failure as a browser sees it: a page with the message and status its API answer would have. */
const failurePage = (req: RequestInfo, title: string) => (e: RouteError) => {
  const error = toAppError(e, { ...AccountsErrors, ...TokenErrors })
  return wantsHtml(req) && error && error._tag !== "ValidationFailed" ? Effect.succeed(messagePage(title, error.message, statusOf(error))) : Effect.fail(e)
}

/** JSON for API clients; a page for a browser, including when it fails. */
const answer = (req: RequestInfo, title: string, json: Record<string, unknown>, message: string) => <E extends RouteError>(effect: Effect.Effect<unknown, E>) =>
  effect.pipe(
    Effect.as(wantsHtml(req) ? messagePage(title, message) : Reply.json(json, 200, [NO_STORE])),
    Effect.catchAll(failurePage(req, title))
  )

export const AuthLinkRoutes = Effect.gen(function* () {
  const config = yield* AppConfig
  const { refreshTtlSeconds } = yield* AccountsConfig
  const accounts = yield* Accounts
  const links = yield* AccountLinks
  const guards = yield* AuthGuards
  const secure = cookieIsSecure(config.publicBaseUrl)

  return [
    route(E.resendVerification, {
      guard: guards.user,
      handler: ({ auth }) =>
        accounts.resendVerification(auth.id).pipe(
          Effect.map((sent) =>
            Reply.json({ ok: true, message: sent ? "We sent a new verification link." : "Your e-mail address is already verified." }, 200, [NO_STORE])
          )
        )
    }),
    route(E.verifyEmail, {
      guard: Guard.anon,
      handler: ({ query, req }) =>
        probe(req) ??
        links.verifyEmail(query.token).pipe(
          answer(req, "E-mail verified", { ok: true, message: "Your e-mail address is verified." }, "Your e-mail address is verified.")
        )
    }),
    route(E.forgotPassword, {
      guard: Guard.anon,
      handler: ({ body, req }) =>
        links.requestPasswordReset(body.email).pipe(answer(req, "Check your inbox", { ok: true, message: FORGOT_ANSWER }, FORGOT_ANSWER))
    }),
    route(E.resetPasswordPage, {
      guard: Guard.anon,
      handler: ({ query }) => Effect.succeed(query.token ? resetPasswordForm(query.token) : forgotPasswordForm())
    }),
    route(E.resetPassword, {
      guard: Guard.anon,
      handler: ({ body, req }) =>
        links.resetPassword(body.token, body.new_password).pipe(
          answer(req, "Password changed", { ok: true, message: "Your password was changed. Sign in with it." }, "Your password was changed. Sign in with it.")
        )
    }),
    route(E.magicLink, {
      guard: Guard.anon,
      handler: ({ body, req }) =>
        links.requestMagicLink(body.email).pipe(answer(req, "Check your inbox", { ok: true, message: MAGIC_ANSWER }, MAGIC_ANSWER))
    }),
    route(E.magicLogin, {
      guard: Guard.anon,
      handler: ({ query, req }) =>
        probe(req) ??
        links.magicLogin(query.token, clientMeta(req)).pipe(
          Effect.map((session) => Reply.redirect("/", 302, [...sessionCookies(session, refreshTtlSeconds, secure), NO_STORE, ["referrer-policy", "no-referrer"]])),
          Effect.catchAll((e) => {
            const reason = e._tag === "TokenRejected" ? `token_${e.reason}` : "token_invalid"
            return Effect.succeed(Reply.redirect(`/login?error=${reason}`, 302, [NO_STORE, ["referrer-policy", "no-referrer"]]))
          })
        )
    }),
    route(E.activateTrial, {
      guard: Guard.anon,
      handler: ({ query, req }) =>
        probe(req) ??
        links.activateTrial(query.token).pipe(
          Effect.map((t) => {
            const endsAt = t.endsAt.toISOString()
            return wantsHtml(req)
              ? messagePage("Your Alpha trial has started", `Enjoy Alpha until ${endsAt.slice(0, 10)}.`)
              : Reply.json({ ok: true, tier: t.tier, trial_ends_at: endsAt }, 200, [NO_STORE])
          }),
          Effect.catchAll(failurePage(req, "Trial not started"))
        )
    })
  ]
})
