/**
 * Routes of the mailed one-time links: verification, password reset, magic login, trial activation, and the
 * requests that mail them. Answers to requests naming an e-mail are identical whether or not it is registered.
 */
import { Effect } from "effect"
import { z } from "zod"
import { EmailOnlyRequest, OkResponse, ResetPasswordRequest, TokenQuery, TrialResponse } from "../../../schema/http/auth"
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

const TAGS = ["auth"]

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
    route({
      method: "POST", path: "/auth/resend-verification", summary: "Mail a new verification link to the signed-in, unverified account",
      tags: TAGS, guard: guards.user, response: OkResponse,
      handler: ({ auth }) =>
        accounts.resendVerification(auth.id).pipe(
          Effect.map((sent) =>
            Reply.json({ ok: true, message: sent ? "We sent a new verification link." : "Your e-mail address is already verified." }, 200, [NO_STORE])
          )
        )
    }),
    route({
      method: "GET", path: "/auth/verify-email", summary: "Verify the e-mail address with the mailed link",
      tags: TAGS, guard: Guard.anon, query: TokenQuery, response: OkResponse,
      handler: ({ query, req }) =>
        probe(req) ??
        links.verifyEmail(query.token).pipe(
          answer(req, "E-mail verified", { ok: true, message: "Your e-mail address is verified." }, "Your e-mail address is verified.")
        )
    }),
    route({
      method: "POST", path: "/auth/forgot-password", summary: "Mail a password reset link; always 200 with the same answer",
      tags: TAGS, guard: Guard.anon, body: EmailOnlyRequest, response: OkResponse,
      handler: ({ body, req }) =>
        links.requestPasswordReset(body.email).pipe(answer(req, "Check your inbox", { ok: true, message: FORGOT_ANSWER }, FORGOT_ANSWER))
    }),
    route({
      method: "GET", path: "/auth/reset-password", summary: "Page: the new-password form of a reset link (or the forgot-password form)",
      tags: TAGS, guard: Guard.anon, query: z.object({ token: z.string().max(4096).optional() }), produces: "text/html",
      handler: ({ query }) => Effect.succeed(query.token ? resetPasswordForm(query.token) : forgotPasswordForm())
    }),
    route({
      method: "POST", path: "/auth/reset-password", summary: "Set a new password with the mailed token; ends every session",
      tags: TAGS, guard: Guard.anon, body: ResetPasswordRequest, response: OkResponse,
      handler: ({ body, req }) =>
        links.resetPassword(body.token, body.new_password).pipe(
          answer(req, "Password changed", { ok: true, message: "Your password was changed. Sign in with it." }, "Your password was changed. Sign in with it.")
        )
    }),
    route({
      method: "POST", path: "/auth/magic-link", summary: "Mail a one-time sign-in link; always 200 with the same answer",
      tags: TAGS, guard: Guard.anon, body: EmailOnlyRequest, response: OkResponse,
      handler: ({ body, req }) =>
        links.requestMagicLink(body.email).pipe(answer(req, "Check your inbox", { ok: true, message: MAGIC_ANSWER }, MAGIC_ANSWER))
    }),
    route({
      method: "GET", path: "/auth/magic-login",
      summary: "Sign in with a magic_login link: sets the session cookie and redirects to /, or to /login?error=<reason>",
      tags: TAGS, guard: Guard.anon, query: TokenQuery, produces: "text/html",
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
    route({
      method: "GET", path: "/auth/activate-trial", summary: "Start the 7-day Alpha trial of a verified free account (link valid 30 days)",
      tags: TAGS, guard: Guard.anon, query: TokenQuery, response: TrialResponse,
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
