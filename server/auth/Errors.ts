/** Expected failures of the accounts domain; server/auth/HttpErrors.ts gives each its status and code. */
import { Data } from "effect"

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
