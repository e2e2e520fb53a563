/** Expected failures of the alerts domain, each with its HTTP answer (`AlertErrors`, registered by the module). */
import { Data } from "effect"
import type { ValidationIssue } from "../../../schema/errors"
import { Conflict, Forbidden, NotFound, TooManyRequests, ValidationFailed, errorMap } from "../../platform/http/Errors"

export class AlertNotFound extends Data.TaggedError("AlertNotFound")<{ readonly id: number }> {}
/** An alert type, a channel or custom wallets above the caller's tier. */
export class AlertTierRequired extends Data.TaggedError("AlertTierRequired")<{ readonly what: string; readonly required: string; readonly tier: string }> {}
export class TooManyAlerts extends Data.TaggedError("TooManyAlerts")<{ readonly max: number; readonly tier: string }> {}
/** Params of a stored alert's type that do not parse (PUT), or an address that is no wallet: 422. */
export class AlertInputInvalid extends Data.TaggedError("AlertInputInvalid")<{ readonly issues: ReadonlyArray<ValidationIssue> }> {}
/** A webhook URL the service will not call, or an enable without one: 422 on `loc`, `code` as the issue's type. */
export class WebhookUrlRefused extends Data.TaggedError("WebhookUrlRefused")<{
  readonly message: string; readonly code: string; readonly loc: ReadonlyArray<string>; readonly input: unknown
}> {}
export class MessengerNotConfigured extends Data.TaggedError("MessengerNotConfigured")<{}> {}
export class TooManyCodes extends Data.TaggedError("TooManyCodes")<{ readonly max: number; readonly retryAfterSeconds: number }> {}
export class TooManyAttempts extends Data.TaggedError("TooManyAttempts")<{ readonly retryAfterSeconds: number }> {}
export class CodeInvalid extends Data.TaggedError("CodeInvalid")<{}> {}
export class ChannelUnavailable extends Data.TaggedError("ChannelUnavailable")<{ readonly channel: string; readonly reason: string }> {}
export class TooManyWallets extends Data.TaggedError("TooManyWallets")<{ readonly cap: number }> {}
export class WalletExists extends Data.TaggedError("WalletExists")<{}> {}
export class WalletNotFound extends Data.TaggedError("WalletNotFound")<{ readonly id: number }> {}
export class WalletNotMonitored extends Data.TaggedError("WalletNotMonitored")<{ readonly wallet: string }> {}

export type AlertError =
  | AlertNotFound | AlertTierRequired | TooManyAlerts | AlertInputInvalid | WebhookUrlRefused | MessengerNotConfigured | TooManyCodes
  | TooManyAttempts | CodeInvalid | ChannelUnavailable | TooManyWallets | WalletExists | WalletNotFound | WalletNotMonitored

export const AlertErrors = errorMap<AlertError>()({
  AlertNotFound: (e) => new NotFound({ message: `No alert ${e.id}`, code: "alert_not_found" }),
  AlertTierRequired: (e) => new Forbidden({ message: `${e.what} needs the ${e.required} tier or higher`, code: "tier_required", extra: { required_tier: e.required, tier: e.tier } }),
  TooManyAlerts: (e) => new Conflict({ message: `At most ${e.max} alerts on the ${e.tier} tier; delete one first`, code: "too_many_alerts", extra: { max_alerts: e.max } }),
  AlertInputInvalid: (e) => new ValidationFailed({ issues: e.issues }),
  WebhookUrlRefused: (e) => new ValidationFailed({ issues: [{ type: e.code, loc: [...e.loc], msg: e.message, input: e.input }] }),
  MessengerNotConfigured: () => new Conflict({ message: "The messenger bot is not configured on this service", code: "messenger_not_configured" }),
  TooManyCodes: (e) => new TooManyRequests({ message: `At most ${e.max} connect codes per hour`, code: "too_many_codes", retryAfterSeconds: e.retryAfterSeconds }),
  TooManyAttempts: (e) => new TooManyRequests({ message: "Too many connect attempts from this chat; wait a few minutes", code: "too_many_attempts", retryAfterSeconds: e.retryAfterSeconds }),
  CodeInvalid: () => new NotFound({ message: "Unknown or expired code", code: "code_invalid" }),
  ChannelUnavailable: (e) => new Conflict({ message: `Cannot send on ${e.channel}: ${e.reason}`, code: "channel_unavailable" }),
  TooManyWallets: (e) => new Conflict({ message: `At most ${e.cap} custom wallets`, code: "too_many_wallets", extra: { cap: e.cap } }),
  WalletExists: () => new Conflict({ message: "This wallet is already monitored", code: "wallet_exists" }),
  WalletNotFound: (e) => new NotFound({ message: `No custom wallet ${e.id}`, code: "wallet_not_found" }),
  WalletNotMonitored: (e) => new NotFound({ message: `${e.wallet} is not a monitored custom wallet`, code: "wallet_not_monitored" })
})
