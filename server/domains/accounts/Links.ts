/**
 * The signed one-time links mailed to account holders — e-mail verification, password reset, magic login and
 * trial activation — and what happens when one is followed. Each link is a typed, expiring JWT (server/platform/infra/Jwt)
 * spent in the same transaction as its effect. Requests that name an e-mail (forgot password, magic link) answer
 * at once and do their work in the background, so neither the answer nor its timing tells whether the address
 * has an account.
 */
import { SqlClient } from "@effect/sql"
import { Effect, FiberSet } from "effect"
import { AppConfig } from "../../platform/Config"
import { Jwt, TokenRejected, type TokenKind, type VerifiedToken } from "../../platform/infra/Jwt"
import { Mailer } from "../../platform/infra/Mailer"
import { AccountsConfig } from "./Config"
import { hashPassword } from "./Passwords"
import { magicLoginMail, passwordResetMail, trialInviteMail, verificationMail } from "./Emails"
import { Entitlements, TRIAL_DAYS } from "./Entitlements"
import { TrialUnavailable } from "./Errors"
import { AccountsRepo, type UserRow } from "./Repo"
import { Sessions, type ClientMeta } from "./Sessions"
import { AuthThrottle } from "./Throttle"
import { inTransaction } from "../../platform/infra/Sql"

/** How long each link works. */
export const LINK_TTL_SECONDS = {
  verify_email: 48 * 3600,
  password_reset: 60 * 60,
  magic_login: 15 * 60,
  activate_trial: 30 * 86_400
} as const satisfies Partial<Record<TokenKind, number>>

export class AccountLinks extends Effect.Service<AccountLinks>()("app/AccountLinks", {
  dependencies: [AccountsRepo.Default, Sessions.Default, Entitlements.Default, AuthThrottle.Default, Mailer.Default, Jwt.Default, AccountsConfig.Default],
  scoped: Effect.gen(function* () {
    const config = yield* AppConfig
    const { scryptLogN } = yield* AccountsConfig
    const sql = yield* SqlClient.SqlClient
    const repo = yield* AccountsRepo
    const sessions = yield* Sessions
    const entitlements = yield* Entitlements
    const throttle = yield* AuthThrottle
    const mailer = yield* Mailer
    const jwt = yield* Jwt
    const background = yield* FiberSet.make()

    const link = (path: string, token: string) => `${config.publicBaseUrl}${path}?token=${encodeURIComponent(token)}`
    const invalid = (kind: TokenKind) => new TokenRejected({ kind, reason: "invalid" })

    /** Runs detached from the request, logging (never surfacing) a failure. */
    const detached = (name: string, work: Effect.Effect<void>) =>
      FiberSet.run(background, work.pipe(Effect.catchAllCause((cause) => Effect.logError(`${name} failed`, cause)), Effect.withSpan(name))).pipe(
        Effect.asVoid
      )

    /** A genuine link of this kind that was not spent yet (`consume` in the acting transaction stays the authority). */
    const verifyUnused = (kind: TokenKind, raw: string) =>
      jwt.verify(kind, raw).pipe(
        Effect.tap((token) => Effect.flatMap(jwt.isUsed(token), (used) => (used ? Effect.fail(new TokenRejected({ kind, reason: "used" })) : Effect.void)))
      )

    /** The account a verified link names, if it still matches (same address, same password version). */
    const accountOf = (token: VerifiedToken, checkPasswordVersion: boolean) =>
      Effect.gen(function* () {
        const id = Number(token.sub)
        const user = Number.isSafeInteger(id) ? yield* repo.byId(id) : undefined
        if (!user || token.claims.email !== user.email) return yield* Effect.fail(invalid(token.kind))
        if (checkPasswordVersion && token.claims.pwv !== user.password_version) return yield* Effect.fail(invalid(token.kind))
        return user
      })

    const sendVerification = Effect.fn("AccountLinks.sendVerification")(function* (userId: number, email: string) {
      const { token } = yield* jwt.sign("verify_email", { sub: String(userId), ttlSeconds: LINK_TTL_SECONDS.verify_email, claims: { email } })
      const content = verificationMail(link("/auth/verify-email", token), LINK_TTL_SECONDS.verify_email / 3600)
      yield* mailer.enqueue({ ...content, to: email, kind: "verify_email", userId, sensitive: true })
    })

    const mailByAddress = (kind: "password_reset" | "magic_login", email: string) =>
      Effect.gen(function* () {
        if (!(yield* throttle.mailAllowed(kind, email))) return yield* Effect.logInfo(`${kind} mail budget spent for an address`)
        const user = yield* repo.byEmail(email)
        if (!user) return
        const claims = { email: user.email, pwv: user.password_version }
        const { token } = yield* jwt.sign(kind, { sub: String(user.id), ttlSeconds: LINK_TTL_SECONDS[kind], claims })
        const content = kind === "password_reset"
          ? passwordResetMail(link("/auth/reset-password", token), LINK_TTL_SECONDS.password_reset / 60)
          : magicLoginMail(link("/auth/magic-login", token), LINK_TTL_SECONDS.magic_login / 60)
        yield* mailer.enqueue({ ...content, to: user.email, kind, userId: user.id, sensitive: true })
      })

    return {
      sendVerification,

      /** Sends a new verification link to an unverified account; false when it is verified already. */
      resendVerification: Effect.fn("AccountLinks.resendVerification")(function* (user: UserRow) {
        if (user.email_verified_at !== null) return false
        yield* throttle.mail("verify_email", user.email)
        yield* sendVerification(user.id, user.email)
        return true
      }),

      verifyEmail: Effect.fn("AccountLinks.verifyEmail")(function* (raw: string) {
        const token = yield* verifyUnused("verify_email", raw)
        const user = yield* accountOf(token, false)
        yield* inTransaction(sql, jwt.consume(token, user.id).pipe(Effect.zipRight(repo.markVerified(user.id, user.email))))
        return user.id
      }),

      requestPasswordReset: Effect.fn("AccountLinks.requestPasswordReset")(function* (email: string) {
        yield* detached("AccountLinks.passwordResetMail", mailByAddress("password_reset", email))
      }),

      resetPassword: Effect.fn("AccountLinks.resetPassword")(function* (raw: string, newPassword: string) {
        const token = yield* verifyUnused("password_reset", raw)
        const user = yield* accountOf(token, true)
        const hash = yield* hashPassword(newPassword, scryptLogN)
        yield* inTransaction(sql,
          Effect.gen(function* () {
            yield* jwt.consume(token, user.id)
            yield* repo.setPassword(user.id, hash)
            // Following the mailed link proves the address.
            yield* repo.markVerified(user.id, user.email)
            yield* sessions.revokeAll(user.id, "password_reset")
          })
        )
        yield* Effect.logInfo("password reset").pipe(Effect.annotateLogs({ user: user.id }))
      }),

      requestMagicLink: Effect.fn("AccountLinks.requestMagicLink")(function* (email: string) {
        yield* detached("AccountLinks.magicLoginMail", mailByAddress("magic_login", email))
      }),

      magicLogin: Effect.fn("AccountLinks.magicLogin")(function* (raw: string, meta: ClientMeta) {
        const token = yield* verifyUnused("magic_login", raw)
        const user = yield* accountOf(token, true)
        yield* inTransaction(sql, jwt.consume(token, user.id).pipe(Effect.zipRight(repo.markVerified(user.id, user.email))))
        return yield* sessions.issue(user.id, meta)
      }),

      /** A link starting the 7-day trial, valid 30 days (the drip mailer and operators send it). */
      trialLink: Effect.fn("AccountLinks.trialLink")(function* (userId: number) {
        const { token } = yield* jwt.sign("activate_trial", { sub: String(userId), ttlSeconds: LINK_TTL_SECONDS.activate_trial })
        return link("/auth/activate-trial", token)
      }),

      sendTrialInvite: Effect.fn("AccountLinks.sendTrialInvite")(function* (user: UserRow) {
        const { token } = yield* jwt.sign("activate_trial", { sub: String(user.id), ttlSeconds: LINK_TTL_SECONDS.activate_trial })
        const content = trialInviteMail(link("/auth/activate-trial", token), LINK_TTL_SECONDS.activate_trial / 86_400)
        return yield* mailer.enqueue({ ...content, to: user.email, kind: "trial_invite", userId: user.id, sensitive: true })
      }),

      /** Starts the 7-day trial for a verified free account that never had one. */
      activateTrial: Effect.fn("AccountLinks.activateTrial")(function* (raw: string) {
        const token = yield* verifyUnused("activate_trial", raw)
        const id = Number(token.sub)
        const user = Number.isSafeInteger(id) ? yield* repo.byId(id) : undefined
        if (!user) return yield* Effect.fail(invalid("activate_trial"))
        if (user.email_verified_at === null) return yield* Effect.fail(new TrialUnavailable({ reason: "unverified" }))
        const summary = yield* entitlements.summaryOf(user.id)
        if (summary.trialUsed) return yield* Effect.fail(new TrialUnavailable({ reason: "already_used" }))
        if (summary.tier !== "free") return yield* Effect.fail(new TrialUnavailable({ reason: "not_free" }))
        const endsAt = yield* inTransaction(sql,
          Effect.gen(function* () {
            yield* jwt.consume(token, user.id)
            const ends = yield* entitlements.startTrial(user.id)
            // The insert lost a race with another activation: roll the spent token back with it.
            if (!ends) return yield* Effect.fail(new TrialUnavailable({ reason: "already_used" }))
            return ends
          })
        )
        yield* Effect.logInfo("trial started").pipe(Effect.annotateLogs({ user: user.id }))
        return { tier: yield* entitlements.tierOf(user.id), endsAt, days: TRIAL_DAYS }
      })
    } as const
  })
}) {}
