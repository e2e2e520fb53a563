/**
 * Expected failures of the alerts domain: the two its parts share (a tier too low, an input that does not parse), and
 * `AlertErrors`, every part's map in one (registered by the module). Each part declares its own errors beside it:
 * subscriptions/Errors.ts, channels/Errors.ts, wallets/Errors.ts (matching, convergence and delivery have none).
 */
import { Data } from "effect"
import type { ValidationIssue } from "../../../schema/errors"
import { Forbidden, ValidationFailed, errorMap } from "../../platform/http/Errors"
import { ChannelErrors } from "./channels/Errors"
import { SubscriptionErrors } from "./subscriptions/Errors"
import { WalletErrors } from "./wallets/Errors"

/** An alert type, a channel or custom wallets above the caller's tier. */
export class AlertTierRequired extends Data.TaggedError("AlertTierRequired")<{ readonly what: string; readonly required: string; readonly tier: string }> {}
/** Params of a stored alert's type that do not parse (PUT), or an address that is no wallet: 422. */
export class AlertInputInvalid extends Data.TaggedError("AlertInputInvalid")<{ readonly issues: ReadonlyArray<ValidationIssue> }> {}

const SharedErrors = errorMap<AlertTierRequired | AlertInputInvalid>()({
  AlertTierRequired: (e) => new Forbidden({ message: `${e.what} needs the ${e.required} tier or higher`, code: "tier_required", extra: { required_tier: e.required, tier: e.tier } }),
  AlertInputInvalid: (e) => new ValidationFailed({ issues: e.issues })
})

export const AlertErrors = { ...SharedErrors, ...SubscriptionErrors, ...ChannelErrors, ...WalletErrors }
