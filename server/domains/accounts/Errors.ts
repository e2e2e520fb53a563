/** Expected failures of the accounts domain, each with its HTTP answer (`AccountsErrors`, registered by the module). */
import { Data } from "effect"
import { Conflict, Forbidden, TooManyRequests, Unauthorized, errorMap } from "../../platform/http/Errors"

/** Wrong e-mail or password — the same error for both, so it reveals nothing. */
export class InvalidCredentials extends Data.TaggedError("InvalidCredentials")<{}> {}

/** Too many attempts in the window. */
export class Throttled extends Data.TaggedError("Throttled")<{ readonly retryAfterSeconds: number; readonly what: string }> {}

/** A refresh token that is unknown, already rotated (reuse: the family was revoked) or of an ended session. */
export class RefreshRejected extends Data.TaggedError("RefreshRejected")<{ readonly reason: "invalid" | "reused" | "revoked" }> {}

/** The current password given to a password change is wrong. */
export class WrongPassword extends Data.TaggedError("WrongPassword")<{}> {}

/** A business account never becomes personal again. */
export class BusinessIsFinal extends Data.TaggedError("BusinessIsFinal")<{}> {}

/** The trial link is genuine but the account cannot start a trial. */
export class TrialUnavailable extends Data.TaggedError("TrialUnavailable")<{ readonly reason: "unverified" | "not_free" | "already_used" }> {}

/** The account a valid token or session names no longer exists. */
export class AccountGone extends Data.TaggedError("AccountGone")<{}> {}

/** Operator commands: the e-mail is registered already / not registered. */
export class AccountExists extends Data.TaggedError("AccountExists")<{ readonly email: string }> {}
export class AccountNotFound extends Data.TaggedError("AccountNotFound")<{ readonly email: string }> {}

const TRIAL_MESSAGES = {
  unverified: "Verify your e-mail address before starting a trial",
  not_free: "Trials are for free accounts; yours already has a paid tier",
  already_used: "This account already had its trial"
} as const

export const AccountsErrors = errorMap<
  InvalidCredentials | Throttled | RefreshRejected | WrongPassword | BusinessIsFinal | TrialUnavailable | AccountGone
>()({
  InvalidCredentials: () => new Unauthorized({ message: "Invalid e-mail or password", code: "invalid_credentials" }),
  Throttled: (e) => new TooManyRequests({ message: "Too many attempts; try again later", code: "rate_limited", retryAfterSeconds: e.retryAfterSeconds }),
  RefreshRejected: (e) =>
    new Unauthorized({
      message: e.reason === "reused" ? "Refresh token reuse detected; the session was ended" : "Invalid or expired refresh token",
      code: e.reason === "reused" ? "refresh_token_reused" : "invalid_refresh_token"
    }),
  WrongPassword: () => new Forbidden({ message: "The current password is not correct", code: "invalid_password" }),
  BusinessIsFinal: () => new Conflict({ message: "A business account cannot be switched back to a personal one", code: "business_account_final" }),
  TrialUnavailable: (e) =>
    e.reason === "unverified"
      ? new Forbidden({ message: TRIAL_MESSAGES[e.reason], code: "email_unverified" })
      : new Conflict({ message: TRIAL_MESSAGES[e.reason], code: e.reason === "not_free" ? "not_free_tier" : "trial_already_used" }),
  AccountGone: () => new Unauthorized({ message: "Account no longer exists", code: "session_revoked" })
})
