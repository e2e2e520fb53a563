/** Statuses and codes of the accounts domain's errors. */
import { BadRequest, Conflict, Forbidden, TooManyRequests, Unauthorized, type AppError } from "../http/Errors"
import type { TokenRejected } from "../infra/Jwt"
import type { AccountGone, BusinessIsFinal, InvalidCredentials, RefreshRejected, Throttled, TrialUnavailable, WrongPassword } from "./Errors"

export type AuthError = InvalidCredentials | Throttled | RefreshRejected | WrongPassword | BusinessIsFinal | TrialUnavailable | AccountGone | TokenRejected

const TOKEN_MESSAGES = {
  invalid: "This link is not valid",
  expired: "This link has expired; ask for a new one",
  used: "This link was already used"
} as const

const TRIAL_MESSAGES = {
  unverified: "Verify your e-mail address before starting a trial",
  not_free: "Trials are for free accounts; yours already has a paid tier",
  already_used: "This account already had its trial"
} as const

export const toAppError = (e: AuthError): AppError => {
  switch (e._tag) {
    case "InvalidCredentials":
      return new Unauthorized({ message: "Invalid e-mail or password", code: "invalid_credentials" })
    case "Throttled":
      return new TooManyRequests({ message: "Too many attempts; try again later", code: "rate_limited", retryAfterSeconds: e.retryAfterSeconds })
    case "RefreshRejected":
      return new Unauthorized({
        message: e.reason === "reused" ? "Refresh token reuse detected; the session was ended" : "Invalid or expired refresh token",
        code: e.reason === "reused" ? "refresh_token_reused" : "invalid_refresh_token"
      })
    case "WrongPassword":
      return new Forbidden({ message: "The current password is not correct", code: "invalid_password" })
    case "BusinessIsFinal":
      return new Conflict({ message: "A business account cannot be switched back to a personal one", code: "business_account_final" })
    case "TrialUnavailable":
      return e.reason === "unverified"
        ? new Forbidden({ message: TRIAL_MESSAGES[e.reason], code: "email_unverified" })
        : new Conflict({ message: TRIAL_MESSAGES[e.reason], code: e.reason === "not_free" ? "not_free_tier" : "trial_already_used" })
    case "AccountGone":
      return new Unauthorized({ message: "Account no longer exists", code: "session_revoked" })
    case "TokenRejected":
      return new BadRequest({ message: TOKEN_MESSAGES[e.reason], code: `token_${e.reason}` })
  }
}
