/** Expected failures of the billing domain, each with its HTTP status and code (`BillingErrors`, declared once). */
import { Data } from "effect"
import { BadRequest, Conflict, errorMap, TooManyRequests, Unavailable, UpstreamFailed } from "../../platform/http/Errors"

/** The card or crypto provider refused or could not be reached. */
export class ProviderFailed extends Data.TaggedError("ProviderFailed")<{ readonly provider: "card" | "crypto"; readonly message: string; readonly status?: number }> {}

/** The provider is not configured here (production without keys). */
export class ProviderUnavailable extends Data.TaggedError("ProviderUnavailable")<{ readonly provider: "card" | "crypto" }> {}

/** The user has no card customer yet (portal), or no subscription to act on. */
export class NoCustomer extends Data.TaggedError("NoCustomer")<{}> {}
export class NoSubscription extends Data.TaggedError("NoSubscription")<{ readonly what: string }> {}

/** The request does not fit the subscription's state (already yearly, downgrade to a higher tier, …). */
export class NotApplicable extends Data.TaggedError("NotApplicable")<{ readonly code: string; readonly message: string }> {}

/** A webhook whose signature, timestamp or body did not verify. */
export class BadSignature extends Data.TaggedError("BadSignature")<{ readonly reason: string }> {}

/** A signed webhook whose body is not what the provider sends. */
export class BadPayload extends Data.TaggedError("BadPayload")<{ readonly reason: string }> {}

/** Too many waitlist confirmations from one client address. */
export class TooManyConfirmations extends Data.TaggedError("TooManyConfirmations")<{ readonly retryAfterSeconds: number }> {}

/** A webhook whose effect needs the provider, which could not be reached: 503, the provider delivers it again. */
export class RetryLater extends Data.TaggedError("RetryLater")<{ readonly provider: "card" | "crypto" }> {}

export const BillingErrors = errorMap<
  ProviderFailed | ProviderUnavailable | NoCustomer | NoSubscription | NotApplicable | BadSignature | BadPayload | TooManyConfirmations | RetryLater
>()({
  ProviderFailed: (e) => new UpstreamFailed({ message: `The ${e.provider} payment provider did not answer as expected; try again`, code: "provider_failed" }),
  ProviderUnavailable: (e) =>
    new Unavailable({ message: `${e.provider === "card" ? "Card" : "Crypto"} payments are not configured on this server`, code: "payments_unavailable" }),
  NoCustomer: () => new Conflict({ message: "You have no card billing account yet; subscribe first", code: "no_card_customer" }),
  NoSubscription: (e) => new Conflict({ message: `You have no ${e.what}`, code: "no_subscription" }),
  NotApplicable: (e) => new Conflict({ message: e.message, code: e.code }),
  BadSignature: (e) => new BadRequest({ message: `Webhook signature rejected: ${e.reason}`, code: "bad_signature" }),
  BadPayload: (e) => new BadRequest({ message: `Webhook body rejected: ${e.reason}`, code: "bad_payload" }),
  TooManyConfirmations: (e) =>
    new TooManyRequests({ message: "Too many sign-ups from your address; try again later", code: "too_many_requests", retryAfterSeconds: e.retryAfterSeconds }),
  RetryLater: (e) => new Unavailable({ message: `Could not reach the ${e.provider} provider; deliver again later`, code: "retry_later", retryAfterSeconds: 60 })
})
