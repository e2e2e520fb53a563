/**
 * The mail-outbox actor: sends the rows of `email_outbox` over SMTP (nodemailer, `SMTP_URL`, from `MAIL_FROM`).
 *
 * Each round claims due rows with `FOR UPDATE SKIP LOCKED` (several processes may run this actor at once), sends
 * them one by one and records the outcome: `sent`; back to `queued` with a doubled delay after a temporary failure;
 * `failed` after a permanent refusal (SMTP 5xx) or too many attempts. With no SMTP_URL (embedded default) a message
 * is written to the log — recipient, subject and kind, never its body with its links — and marked `logged`.
 * A message the SMTP server accepted while the database is away is recorded `sent` once the database is back (the
 * actor waits for it, up to the claim's lease): were it left `sending`, the lease would run out and it would go again.
 * Transient state only: the transport lives for one life of the actor.
 */
import { Clock, Duration, Effect, Exit, Redacted } from "effect"
import nodemailer from "nodemailer"
import type { ActorHandle } from "../../server/platform/actors/Registry"
import { loopActor } from "../../server/platform/actors/Actor"
import { AppConfig } from "../../server/platform/Config"
import { Mailer } from "../../server/platform/infra/Mailer"
import { MailOutbox, type OutboxRow } from "../../server/platform/infra/MailOutbox"
import { causeIsUnavailable } from "../../server/platform/infra/Unavailable"

/** Rows claimed per round trip. */
const BATCH = 10
/** How long a claimed row stays ours; a sender that dies mid-batch loses its rows after this. */
const LEASE_SECONDS = 300
/** Longest wait between two tries to record a sent message while the database is away. */
const RECORD_RETRY_MAX_MS = 2_000
/** Upper bound of one SMTP conversation. */
const SEND_TIMEOUT = Duration.seconds(60)

/** Delay before attempt `attempts + 1`: base·2^(attempts−1), capped. */
export const retryDelayMs = (attempts: number, baseMs: number, maxMs: number) =>
  Math.min(maxMs, baseMs * 2 ** Math.max(0, attempts - 1))

interface SendFailure {
  readonly message: string
  readonly permanent: boolean
}

const describe = (e: unknown): SendFailure => {
  const err = e as { message?: unknown; responseCode?: unknown; code?: unknown }
  const code = typeof err.responseCode === "number" ? err.responseCode : undefined
  const message = [code, typeof err.code === "string" ? err.code : undefined, typeof err.message === "string" ? err.message : String(e)]
    .filter((x) => x !== undefined)
    .join(" ")
    .slice(0, 500)
  return { message, permanent: code !== undefined && code >= 500 && code < 600 }
}

/** nodemailer options of a row's own headers: Reply-To and Message-ID as fields, the rest as headers. */
export const outgoingHeaders = (row: OutboxRow) => {
  const { "Reply-To": replyTo, "Message-ID": messageId, ...rest } = row.headers ?? {}
  return {
    ...(replyTo ? { replyTo } : {}),
    ...(messageId ? { messageId } : {}),
    headers: { ...rest, "X-Whale-Mail-Kind": row.kind, "X-Whale-Outbox-Id": String(row.id) }
  }
}

type Transport = ReturnType<typeof nodemailer.createTransport>

const smtpTransport = (url: string) =>
  Effect.acquireRelease(
    Effect.sync(() => nodemailer.createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 } as never) as Transport),
    (t) => Effect.sync(() => t.close())
  )

const life = (actor: ActorHandle) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const outbox = yield* MailOutbox
    const mailer = yield* Mailer
    const transport = config.smtpUrl ? yield* smtpTransport(Redacted.value(config.smtpUrl)) : null
    if (!transport) yield* Effect.logInfo("no SMTP_URL: e-mail goes to the outbox table and the log only")

    /**
     * Records a message the SMTP server accepted. While the database is unreachable it tries again (with back-off, the
     * heartbeat kept), until the claim's lease would run out; any other failure, or a longer outage, ends the life.
     */
    const recordSent = (row: OutboxRow, messageId: string | null) =>
      Effect.gen(function* () {
        const deadline = (yield* Clock.currentTimeMillis) + LEASE_SECONDS * 1000
        let delay = 50
        while (true) {
          const done = yield* Effect.exit(outbox.markSent(row.id, messageId))
          if (Exit.isSuccess(done)) return
          if (!causeIsUnavailable(done.cause) || (yield* Clock.currentTimeMillis) + delay > deadline) return yield* Effect.failCause(done.cause)
          if (delay === 50) yield* Effect.logWarning(`mail ${row.id} sent while the database is unavailable: recording it once it is back`)
          actor.heartbeat()
          yield* Effect.sleep(Duration.millis(delay))
          delay = Math.min(RECORD_RETRY_MAX_MS, delay * 2)
        }
      })

    const deliver = (row: OutboxRow) =>
      Effect.gen(function* () {
        if (!transport) {
          yield* Effect.logInfo("mail logged (no SMTP)").pipe(
            Effect.annotateLogs({ outbox_id: row.id, kind: row.kind, to: row.to_address, subject: row.subject })
          )
          return yield* outbox.markLogged(row.id)
        }
        const sent = yield* Effect.tryPromise({
          try: () =>
            transport.sendMail({
              from: config.mailFrom,
              to: row.to_address,
              subject: row.subject,
              text: row.text_body ?? "",
              ...(row.html_body ? { html: row.html_body } : {}),
              ...outgoingHeaders(row)
            }),
          catch: describe
        }).pipe(
          Effect.timeoutFail({ duration: SEND_TIMEOUT, onTimeout: () => ({ message: "SMTP send timed out", permanent: false }) }),
          Effect.either
        )
        if (sent._tag === "Right") {
          yield* recordSent(row, typeof sent.right.messageId === "string" ? sent.right.messageId : null)
          return yield* Effect.logDebug("mail sent").pipe(Effect.annotateLogs({ outbox_id: row.id, kind: row.kind }))
        }
        const failure = sent.left
        if (failure.permanent || row.attempts >= config.mail.maxAttempts) {
          yield* outbox.markFailed(row.id, failure.message)
          return yield* Effect.logWarning(`mail failed for good: ${failure.message}`).pipe(
            Effect.annotateLogs({ outbox_id: row.id, kind: row.kind, attempts: row.attempts })
          )
        }
        const delay = retryDelayMs(row.attempts, config.mail.retryBaseMs, config.mail.retryMaxMs)
        yield* outbox.markRetry(row.id, failure.message, delay)
        yield* Effect.logWarning(`mail send failed, retry in ${delay} ms: ${failure.message}`).pipe(
          Effect.annotateLogs({ outbox_id: row.id, kind: row.kind, attempts: row.attempts })
        )
      })

    while (true) {
      const batch = yield* outbox.claim(BATCH, LEASE_SECONDS)
      for (const row of batch) {
        yield* deliver(row)
        actor.handled()
      }
      actor.heartbeat()
      if (batch.length < BATCH) {
        // A doorbell rung before the enqueuing transaction committed finds nothing: poll as well.
        yield* Effect.race(mailer.awaitWork.pipe(Effect.zipRight(Effect.sleep(Duration.millis(20)))), Effect.sleep(Duration.millis(config.mail.pollMs)))
      }
    }
  }).pipe(Effect.scoped)

export const MailOutboxActor = loopActor({ name: "mail-outbox", run: life })
