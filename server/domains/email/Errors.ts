/**
 * Expected failures of the e-mail workspace, each with its HTTP answer (`EmailErrors`, registered by the module).
 * Messages never name the workspace: a caller who may not use it learns nothing about it.
 */
import { Data } from "effect"
import { Conflict, NotFound, PayloadTooLarge, TooManyRequests, Unauthorized, ValidationFailed, errorMap } from "../../platform/http/Errors"

export class EmailNotFound extends Data.TaggedError("EmailNotFound")<{ readonly what: "contact" | "message" | "attachment" | "target" }> {}
export class ContactExists extends Data.TaggedError("ContactExists")<{ readonly id: number }> {}
export class AddressSuppressed extends Data.TaggedError("AddressSuppressed")<{}> {}
export class BatchCooldown extends Data.TaggedError("BatchCooldown")<{ readonly seconds: number }> {}
/** The inbound webhook's body: not base64, not an RFC 822 message, or over a size cap. */
export class InboundRejected extends Data.TaggedError("InboundRejected")<{ readonly kind: "malformed" | "too_large"; readonly message: string }> {}
/** The delivery webhook's signature or body. */
export class WebhookRejected extends Data.TaggedError("WebhookRejected")<{ readonly problem: string; readonly invalidBody?: boolean }> {}

export const notFound = (what: EmailNotFound["what"]) => new EmailNotFound({ what })

export const EmailErrors = errorMap<EmailNotFound | ContactExists | AddressSuppressed | BatchCooldown | InboundRejected | WebhookRejected>()({
  EmailNotFound: (e) => new NotFound({ message: `No such ${e.what}`, code: `${e.what}_not_found` }),
  ContactExists: (e) => new Conflict({ message: "A contact with this address exists", code: "contact_exists", extra: { contact_id: e.id } }),
  AddressSuppressed: () => new Conflict({ message: "This address unsubscribed, bounced or complained; it is not mailed", code: "address_suppressed" }),
  BatchCooldown: (e) => new TooManyRequests({ message: `A batch was sent moments ago; try again in ${e.seconds} s`, code: "batch_cooldown", retryAfterSeconds: e.seconds }),
  InboundRejected: (e) =>
    e.kind === "too_large"
      ? new PayloadTooLarge({ message: e.message, code: "message_too_large" })
      : new ValidationFailed({ issues: [{ type: "value_error", loc: ["body", "raw_b64"], msg: e.message, input: null }] }),
  WebhookRejected: (e) =>
    e.invalidBody
      ? new ValidationFailed({ issues: [{ type: "value_error", loc: ["body"], msg: e.problem, input: null }] })
      : new Unauthorized({ message: `Webhook signature refused: ${e.problem}`, code: e.problem })
})
