/**
 * Accounts: registration, login, profile, account type and password change. Answers never reveal whether an
 * e-mail is registered: registering a taken address answers like a new one (and mails the owner instead), and a
 * login with an unknown address spends the time of a real password check before failing like a wrong password.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { AccountTypeRequest } from "../../../schema/http/auth"
import { AppConfig } from "../../platform/Config"
import { Mailer } from "../../platform/infra/Mailer"
import { AccountsConfig } from "./Config"
import { accountExistsMail, passwordChangedMail } from "./Emails"
import { Entitlements } from "./Entitlements"
import { AccountGone, BusinessIsFinal, InvalidCredentials, WrongPassword } from "./Errors"
import { AccountLinks } from "./Links"
import { toMe } from "./Model"
import { hashPassword, needsRehash, verifyDummy, verifyPassword } from "./Passwords"
import { AccountsRepo, type UserRow } from "./Repo"
import { Sessions, type ClientMeta } from "./Sessions"
import { AuthThrottle } from "./Throttle"
import { inTransaction } from "../../platform/infra/Sql"

export interface Registration {
  readonly email: string
  readonly password: string
  readonly displayName?: string | undefined
}

const emptyToNull = (s: string | null | undefined) => (s === undefined || s === null || s.trim() === "" ? null : s.trim())

export class Accounts extends Effect.Service<Accounts>()("app/Accounts", {
  dependencies: [AccountsRepo.Default, Sessions.Default, Entitlements.Default, AuthThrottle.Default, Mailer.Default, AccountLinks.Default, AccountsConfig.Default],
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const sql = yield* SqlClient.SqlClient
    const repo = yield* AccountsRepo
    const sessions = yield* Sessions
    const entitlements = yield* Entitlements
    const throttle = yield* AuthThrottle
    const mailer = yield* Mailer
    const links = yield* AccountLinks
    const logN = (yield* AccountsConfig).scryptLogN
    const base = config.publicBaseUrl

    const userOrGone = (id: number) =>
      repo.byId(id).pipe(Effect.flatMap((u) => (u ? Effect.succeed(u) : Effect.fail(new AccountGone()))))

    const me = Effect.fn("Accounts.me")(function* (userId: number) {
      const user = yield* userOrGone(userId)
      return toMe(user, yield* entitlements.summaryOf(user.id))
    })

    const transact = <A, E>(effect: Effect.Effect<A, E>) => inTransaction(sql, effect)

    return {
      me,

      /** Creates the account and mails the verification link; a taken address gets a notice instead. */
      register: Effect.fn("Accounts.register")(function* (input: Registration, meta: ClientMeta) {
        yield* throttle.register(meta.ip ?? "unknown")
        const passwordHash = yield* hashPassword(input.password, logN)
        const created = yield* transact(
          Effect.gen(function* () {
            const id = yield* repo.insert({ email: input.email, passwordHash, displayName: emptyToNull(input.displayName), verified: false, admin: false })
            if (id !== undefined) yield* links.sendVerification(id, input.email)
            return id
          })
        )
        if (created === undefined && (yield* throttle.mailAllowed("account_exists", input.email))) {
          const existing = yield* repo.byEmail(input.email)
          const content = accountExistsMail(`${base}/login`, `${base}/auth/reset-password`)
          yield* mailer.enqueue({ ...content, to: input.email, kind: "account_exists", ...(existing ? { userId: existing.id } : {}) })
        }
        if (created !== undefined) yield* Effect.logInfo("account registered").pipe(Effect.annotateLogs({ user: created }))
      }),

      /** Checks the password (throttled per IP and per account) and opens a session. */
      login: Effect.fn("Accounts.login")(function* (email: string, password: string, meta: ClientMeta) {
        yield* throttle.login(email, meta.ip ?? "unknown")
        const user = yield* repo.byEmail(email)
        if (!user) {
          yield* verifyDummy(password, logN)
          return yield* Effect.fail(new InvalidCredentials())
        }
        if (!(yield* verifyPassword(password, user.password_hash))) return yield* Effect.fail(new InvalidCredentials())
        if (needsRehash(user.password_hash, logN)) yield* repo.upgradeHash(user.id, user.password_hash, yield* hashPassword(password, logN))
        const session = yield* sessions.issue(user.id, meta)
        return { session, me: toMe(user, yield* entitlements.summaryOf(user.id)) }
      }),

      updateProfile: Effect.fn("Accounts.updateProfile")(function* (userId: number, displayName: string | null) {
        yield* repo.setDisplayName(userId, emptyToNull(displayName))
        return yield* me(userId)
      }),

      /**
       * Personal → business (with company details), or new company details for a business account. Business →
       * personal is refused. Only the account-type columns change: no tier, subscription or payment data.
       */
      setAccountType: Effect.fn("Accounts.setAccountType")(function* (userId: number, request: AccountTypeRequest) {
        const user = yield* userOrGone(userId)
        if (request.account_type === "personal") {
          if (user.account_type === "business") return yield* Effect.fail(new BusinessIsFinal())
          return yield* me(userId)
        }
        yield* repo.setBusiness(userId, {
          name: request.company_name!,
          vatId: emptyToNull(request.vat_id),
          address: emptyToNull(request.address),
          country: emptyToNull(request.country)
        })
        return yield* me(userId)
      }),

      /**
       * Replaces the password after checking the current one (throttled like a login), ends every session of the
       * account and opens a fresh one for the caller.
       */
      changePassword: Effect.fn("Accounts.changePassword")(function* (user: Pick<UserRow, "id" | "email">, current: string, next: string, meta: ClientMeta) {
        yield* throttle.login(user.email, meta.ip ?? "unknown")
        const row = yield* userOrGone(user.id)
        if (!(yield* verifyPassword(current, row.password_hash))) return yield* Effect.fail(new WrongPassword())
        const hash = yield* hashPassword(next, logN)
        yield* transact(
          Effect.gen(function* () {
            yield* repo.setPassword(row.id, hash)
            yield* sessions.revokeAll(row.id, "password_change")
            const content = passwordChangedMail(`${base}/auth/reset-password`)
            yield* mailer.enqueue({ ...content, to: row.email, kind: "password_changed", userId: row.id })
          })
        )
        yield* Effect.logInfo("password changed").pipe(Effect.annotateLogs({ user: row.id }))
        const session = yield* sessions.issue(row.id, meta)
        return { session, me: yield* me(row.id) }
      }),

      /** Resends the verification link (logged-in, unverified callers). */
      resendVerification: Effect.fn("Accounts.resendVerification")(function* (userId: number) {
        return yield* links.resendVerification(yield* userOrGone(userId))
      }),

      sendTrialInvite: Effect.fn("Accounts.sendTrialInvite")(function* (userId: number) {
        return yield* links.sendTrialInvite(yield* userOrGone(userId))
      })
    } as const
  })
}) {}
