/**
 * Outgoing e-mail. `enqueue` only writes the message to the `email_outbox` table — run it inside the transaction
 * of whatever causes the mail, and the mail exists exactly when that transaction commits. The `mail-outbox` actor
 * (actors/mail-outbox) sends queued rows over SMTP after the commit, retries failures with back-off and records
 * the outcome; a send therefore never fails, slows or reverses the request that caused it.
 */
import { Effect, Queue } from "effect"
import { MailOutbox } from "./MailOutbox"

export interface Mail {
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html?: string
  /** What the message is (`verify_email`, `password_reset`, `drip_1`, …): for the outbox, logs and metrics. */
  readonly kind: string
  readonly userId?: number
  /** The body carries a secret (a one-time link): it is cleared from the outbox once the message is sent. */
  readonly sensitive?: boolean
  /** Extra headers: Reply-To, Message-ID, List-Unsubscribe, List-Unsubscribe-Post. */
  readonly headers?: Readonly<Record<string, string>>
}

export class Mailer extends Effect.Service<Mailer>()("app/Mailer", {
  dependencies: [MailOutbox.Default],
  effect: Effect.gen(function* () {
    const outbox = yield* MailOutbox
    const wake = yield* Queue.sliding<void>(1)
    return {
      /** Queues a message; returns its outbox id. Joins the caller's SQL transaction when there is one. */
      enqueue: Effect.fn("Mailer.enqueue")(function* (mail: Mail) {
        const id = yield* outbox.insert({
          kind: mail.kind,
          userId: mail.userId ?? null,
          to: mail.to.trim(),
          subject: mail.subject,
          text: mail.text,
          html: mail.html ?? null,
          sensitive: mail.sensitive ?? false,
          headers: mail.headers ?? null
        })
        yield* Queue.offer(wake, undefined)
        return id
      }),
      /** Completes when a message was queued in this process since the last call (the sender's doorbell). */
      awaitWork: Queue.take(wake)
    } as const
  })
}) {}
