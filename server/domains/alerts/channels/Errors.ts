/** Expected failures of channel settings and the messenger connection, each with its HTTP answer (merged by ../Errors.ts). */
import { Data } from "effect"
import { Conflict, NotFound, TooManyRequests, ValidationFailed, errorMap } from "../../../platform/http/Errors"

/** A webhook URL the service will not call, or an enable without one: 422 on `loc`, `code` as the issue's type. */
export class WebhookUrlRefused extends Data.TaggedError("WebhookUrlRefused")<{
  readonly message: string; readonly code: string; readonly loc: ReadonlyArray<string>; readonly input: unknown
}> {}
export class MessengerNotConfigured extends Data.TaggedError("MessengerNotConfigured")<{}> {}
export class TooManyCodes extends Data.TaggedError("TooManyCodes")<{ readonly max: number; readonly retryAfterSeconds: number }> {}
export class TooManyAttempts extends Data.TaggedError("TooManyAttempts")<{ readonly retryAfterSeconds: number }> {}
export class CodeInvalid extends Data.TaggedError("CodeInvalid")<{}> {}
export class ChannelUnavailable extends Data.TaggedError("ChannelUnavailable")<{ readonly channel: string; readonly reason: string }> {}

export type ChannelError = WebhookUrlRefused | MessengerNotConfigured | TooManyCodes | TooManyAttempts | CodeInvalid | ChannelUnavailable

export const ChannelErrors = errorMap<ChannelError>()({
  WebhookUrlRefused: (e) => new ValidationFailed({ issues: [{ type: e.code, loc: [...e.loc], msg: e.message, input: e.input }] }),
  MessengerNotConfigured: () => new Conflict({ message: "The messenger bot is not configured on this service", code: "messenger_not_configured" }),
  TooManyCodes: (e) => new TooManyRequests({ message: `At most ${e.max} connect codes per hour`, code: "too_many_codes", retryAfterSeconds: e.retryAfterSeconds }),
  TooManyAttempts: (e) => new TooManyRequests({ message: "Too many connect attempts from this chat; wait a few minutes", code: "too_many_attempts", retryAfterSeconds: e.retryAfterSeconds }),
  CodeInvalid: () => new NotFound({ message: "Unknown or expired code", code: "code_invalid" }),
  ChannelUnavailable: (e) => new Conflict({ message: `Cannot send on ${e.channel}: ${e.reason}`, code: "channel_unavailable" })
})
