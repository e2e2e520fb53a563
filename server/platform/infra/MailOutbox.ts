/** The SQL of the `email_outbox` table (migration 0022): enqueue, claim with SKIP LOCKED, record results. */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export type OutboxStatus = "queued" | "sending" | "sent" | "failed" | "logged"

export interface OutboxRow {
  readonly id: number
  readonly kind: string
  readonly user_id: number | null
  readonly to_address: string
  readonly subject: string
  readonly text_body: string | null
  readonly html_body: string | null
  readonly attempts: number
  /** Extra headers (Reply-To, Message-ID, List-Unsubscribe, …); null for most mail. */
  readonly headers: Readonly<Record<string, string>> | null
}

export interface NewMail {
  readonly kind: string
  readonly userId: number | null
  readonly to: string
  readonly subject: string
  readonly text: string
  readonly html: string | null
  readonly sensitive: boolean
  readonly headers?: Readonly<Record<string, string>> | null
}

export class MailOutbox extends Effect.Service<MailOutbox>()("app/MailOutbox", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      insert: (m: NewMail) =>
        sql<{ id: number }>`
          INSERT INTO email_outbox (kind, user_id, to_address, subject, text_body, html_body, sensitive, headers)
          VALUES (${m.kind}, ${m.userId}, ${m.to}, ${m.subject}, ${m.text}, ${m.html}, ${m.sensitive},
                  ${m.headers ? JSON.stringify(m.headers) : null}::jsonb)
          RETURNING id`.pipe(Effect.map((rows) => rows[0]!.id), Effect.orDie),

      /**
       * Claims up to `limit` due messages for this sender: queued ones whose time has come, and claimed ones whose
       * lease ran out (their sender died). Rows locked by another sender are skipped, so senders in several
       * processes never claim the same row. A claimed row is `sending` until `leaseSeconds` from now.
       */
      claim: (limit: number, leaseSeconds: number) =>
        sql<OutboxRow>`
          UPDATE email_outbox o
          SET status = 'sending', attempts = o.attempts + 1,
              next_attempt_at = now() + make_interval(secs => ${leaseSeconds})
          WHERE o.id IN (
            SELECT id FROM email_outbox
            WHERE status IN ('queued', 'sending') AND next_attempt_at <= now()
            ORDER BY next_attempt_at, id
            LIMIT ${limit}
            FOR UPDATE SKIP LOCKED)
          RETURNING o.id, o.kind, o.user_id, o.to_address, o.subject, o.text_body, o.html_body, o.attempts, o.headers`.pipe(Effect.orDie),

      markSent: (id: number, messageId: string | null) =>
        sql`
          UPDATE email_outbox
          SET status = 'sent', sent_at = now(), message_id = ${messageId}, last_error = NULL,
              text_body = CASE WHEN sensitive THEN NULL ELSE text_body END,
              html_body = CASE WHEN sensitive THEN NULL ELSE html_body END
          WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

      markLogged: (id: number) =>
        sql`UPDATE email_outbox SET status = 'logged', sent_at = now() WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

      markRetry: (id: number, error: string, delayMs: number) =>
        sql`
          UPDATE email_outbox
          SET status = 'queued', last_error = ${error},
              next_attempt_at = now() + make_interval(secs => ${delayMs / 1000})
          WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

      markFailed: (id: number, error: string) =>
        sql`
          UPDATE email_outbox
          SET status = 'failed', last_error = ${error},
              text_body = CASE WHEN sensitive THEN NULL ELSE text_body END,
              html_body = CASE WHEN sensitive THEN NULL ELSE html_body END
          WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie)
    } as const
  })
}) {}
