/**
 * Echo's expected failures, each declared once with its HTTP answer (`EchoErrors`, registered by the module).
 * Rejections carry what was available; nothing changed when one is raised.
 */
import { Data } from "effect"
import { Conflict, NotFound, ValidationFailed, errorMap } from "../../platform/http/Errors"

export class InsufficientCash extends Data.TaggedError("InsufficientCash")<{ readonly available_cash: number; readonly required_usd: number }> {}
export class InsufficientHoldings extends Data.TaggedError("InsufficientHoldings")<{ readonly token: string; readonly available_quantity: number; readonly requested_quantity: number }> {}
/** 422 on the named field: an unknown token, one without a price, a stablecoin, a record that cannot be copied. */
export class NotTradable extends Data.TaggedError("NotTradable")<{ readonly field: string; readonly input: unknown; readonly message: string; readonly reason: string; readonly where?: "body" | "query" | "path" }> {}
export class RecordNotFound extends Data.TaggedError("RecordNotFound")<{ readonly tx_hash: string }> {}
export class TokenNotFound extends Data.TaggedError("TokenNotFound")<{ readonly address: string }> {}
/** A command id already used for a different command (another user's, or another kind). */
export class CommandConflict extends Data.TaggedError("CommandConflict")<{ readonly command_id: string }> {}
export class TooManyRules extends Data.TaggedError("TooManyRules")<{ readonly max: number }> {}
export class RuleNotFound extends Data.TaggedError("RuleNotFound")<{ readonly wallet: string }> {}

export type EchoError = InsufficientCash | InsufficientHoldings | NotTradable | RecordNotFound | TokenNotFound | CommandConflict | TooManyRules | RuleNotFound

export const EchoErrors = errorMap<EchoError>()({
  InsufficientCash: (e) => new Conflict({
    message: `Not enough cash: ${e.available_cash.toFixed(2)} USD available, ${e.required_usd.toFixed(2)} USD needed (gas included)`,
    code: "insufficient_cash", extra: { available_cash: e.available_cash, required_usd: e.required_usd }
  }),
  InsufficientHoldings: (e) => new Conflict({
    message: `Not enough of the token: ${e.available_quantity} held, ${e.requested_quantity} asked`,
    code: "insufficient_holdings", extra: { token: e.token, available_quantity: e.available_quantity, requested_quantity: e.requested_quantity }
  }),
  NotTradable: (e) => new ValidationFailed({ issues: [{ type: e.reason, loc: [e.where ?? "body", e.field], msg: e.message, input: e.input }] }),
  RecordNotFound: (e) => new NotFound({ message: `No whale trade recorded in transaction ${e.tx_hash}`, code: "record_not_found" }),
  TokenNotFound: (e) => new NotFound({ message: `Unknown token ${e.address}`, code: "token_not_found" }),
  CommandConflict: (e) => new Conflict({ message: `command_id ${e.command_id} was already used for another command`, code: "command_id_reused" }),
  TooManyRules: (e) => new Conflict({ message: `At most ${e.max} auto-copied wallets`, code: "too_many_autocopy_wallets", extra: { max: e.max } }),
  RuleNotFound: (e) => new NotFound({ message: `No auto-copy rule for ${e.wallet}`, code: "autocopy_rule_not_found" })
})
