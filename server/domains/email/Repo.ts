/** The SQL of the e-mail workspace (migration 0091), and only its SQL. */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { spanned } from "../../platform/ops/Spans"

export type ContactStatus = "pending" | "sent" | "replied" | "bounced" | "unsubscribed"
export type DeliveryStatus = "queued" | "delivered" | "opened" | "bounced" | "complained"

export interface ContactRow {
  readonly id: number
  readonly email: string
  readonly name: string
  readonly company: string
  readonly status: ContactStatus
  readonly notes: string
  readonly last_sent_at: Date | null
  readonly created_at: Date
  readonly unread: number
  readonly messages: number
}

export interface MessageRow {
  readonly id: number
  readonly contact_id: number | null
  readonly direction: "in" | "out"
  readonly thread_id: number | null
  readonly subject: string
  readonly from_address: string
  readonly to_address: string
  readonly snippet: string
  readonly read: boolean
  readonly delivery_status: DeliveryStatus | null
  readonly created_at: Date
  readonly attachments: ReadonlyArray<{ id: number; filename: string; content_type: string; size_bytes: number }>
}

export interface AttachmentRow {
  readonly id: number
  readonly message_id: number
  readonly filename: string
  readonly content_type: string
  readonly content_id: string | null
  readonly size_bytes: number
  readonly content: Uint8Array
}

export interface OutreachRow {
  readonly id: number
  readonly handle: string
  readonly note: string
  readonly sent: boolean
  readonly sent_at: Date | null
  readonly created_at: Date
}

const CONTACT_COLUMNS = `c.id::int AS id, c.email, c.name, c.company, c.status, c.notes, c.last_sent_at, c.created_at,
  (SELECT count(*)::int FROM email_messages m WHERE m.contact_id = c.id AND m.direction = 'in' AND NOT m.read) AS unread,
  (SELECT count(*)::int FROM email_messages m WHERE m.contact_id = c.id) AS messages`

const MESSAGE_COLUMNS = `m.id::int AS id, m.contact_id::int AS contact_id, m.direction, m.thread_id::int AS thread_id, m.subject,
  m.from_address, m.to_address, m.snippet, m.read, m.delivery_status, m.created_at,
  coalesce((SELECT json_agg(json_build_object('id', a.id, 'filename', a.filename, 'content_type', a.content_type, 'size_bytes', a.size_bytes) ORDER BY a.id)
            FROM email_attachments a WHERE a.message_id = m.id), '[]'::json) AS attachments`

export class EmailRepo extends Effect.Service<EmailRepo>()("app/email/EmailRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const die = Effect.orDie

    // contacts
    const contacts = (limit: number) =>
      sql.unsafe<ContactRow>(`SELECT ${CONTACT_COLUMNS} FROM email_contacts c ORDER BY c.id DESC LIMIT $1`, [limit]).pipe(die)
    const contact = (id: number) =>
      sql.unsafe<ContactRow>(`SELECT ${CONTACT_COLUMNS} FROM email_contacts c WHERE c.id = $1`, [id]).pipe(Effect.map((r) => r[0] ?? null), die)
    const contactByEmail = (email: string) =>
      sql.unsafe<ContactRow>(`SELECT ${CONTACT_COLUMNS} FROM email_contacts c WHERE c.email = $1`, [email]).pipe(Effect.map((r) => r[0] ?? null), die)
    /** The new contact's id, or null when the address is taken. */
    const insertContact = (c: { email: string; name: string; company: string; notes: string }) =>
      sql<{ id: number }>`
        INSERT INTO email_contacts (email, name, company, notes) VALUES (${c.email}, ${c.name}, ${c.company}, ${c.notes})
        ON CONFLICT (email) DO NOTHING RETURNING id::int AS id`.pipe(Effect.map((r) => r[0]?.id ?? null), die)
    const setStatus = (id: number, status: ContactStatus, notes?: string) =>
      sql<{ id: number }>`
        UPDATE email_contacts SET status = ${status}, notes = coalesce(${notes ?? null}, notes), updated_at = now()
        WHERE id = ${id} RETURNING id::int AS id`.pipe(Effect.map((r) => r.length > 0), die)
    const setStatusByEmail = (email: string, status: ContactStatus, onlyFrom: ReadonlyArray<ContactStatus>) =>
      sql`UPDATE email_contacts SET status = ${status}, updated_at = now()
          WHERE email = ${email} AND status IN ${sql.in(onlyFrom)}`.pipe(Effect.asVoid, die)
    const markSent = (id: number) =>
      sql`UPDATE email_contacts SET status = CASE WHEN status = 'pending' THEN 'sent' ELSE status END, last_sent_at = now(), updated_at = now()
          WHERE id = ${id}`.pipe(Effect.asVoid, die)
    const deleteContact = (id: number) =>
      sql<{ id: number }>`DELETE FROM email_contacts WHERE id = ${id} RETURNING id::int AS id`.pipe(Effect.map((r) => r.length > 0), die)
    /** Pending contacts of one batch, locked so a concurrent batch skips them. Call inside a transaction. */
    const claimPending = (limit: number) =>
      sql<{ id: number; email: string; name: string }>`
        SELECT c.id::int AS id, c.email, c.name FROM email_contacts c
        WHERE c.status = 'pending' AND NOT EXISTS (SELECT 1 FROM email_suppressions s WHERE s.email = c.email)
        ORDER BY c.id LIMIT ${limit} FOR UPDATE SKIP LOCKED`.pipe(die)

    // messages
    const insertOutbound = (m: { contactId: number; threadId: number | null; subject: string; from: string; to: string; html: string; text: string; batchId: string | null }) =>
      sql<{ id: number }>`
        INSERT INTO email_messages (contact_id, direction, thread_id, subject, from_address, to_address, body_html, body_text, snippet, read, delivery_status, batch_id, size_bytes)
        VALUES (${m.contactId}, 'out', ${m.threadId}, ${m.subject}, ${m.from}, ${m.to}, ${m.html}, ${m.text}, ${m.text.replace(/\s+/g, " ").slice(0, 160)},
                true, 'queued', ${m.batchId}, ${Buffer.byteLength(m.html) + Buffer.byteLength(m.text)})
        RETURNING id::int AS id`.pipe(Effect.map((r) => r[0]!.id), die)
    const finishOutbound = (id: number, f: { threadId: number; replyToken: string; rfcMessageId: string; outboxId: number }) =>
      sql`UPDATE email_messages SET thread_id = ${f.threadId}, reply_token = ${f.replyToken}, rfc_message_id = ${f.rfcMessageId}, outbox_id = ${f.outboxId}
          WHERE id = ${id}`.pipe(Effect.asVoid, die)
    /** The stored inbound message's id, or null when that Message-ID was stored before. */
    const insertInbound = (m: {
      contactId: number | null; threadId: number | null; subject: string; from: string; to: string; html: string; text: string; snippet: string
      rfcMessageId: string; inReplyTo: string | null; size: number
    }) =>
      sql<{ id: number }>`
        INSERT INTO email_messages (contact_id, direction, thread_id, subject, from_address, to_address, body_html, body_text, snippet, rfc_message_id, in_reply_to, size_bytes)
        VALUES (${m.contactId}, 'in', ${m.threadId}, ${m.subject}, ${m.from}, ${m.to}, ${m.html}, ${m.text}, ${m.snippet}, ${m.rfcMessageId}, ${m.inReplyTo}, ${m.size})
        ON CONFLICT (rfc_message_id) WHERE direction = 'in' DO NOTHING
        RETURNING id::int AS id`.pipe(Effect.map((r) => r[0]?.id ?? null), die)
    const setThread = (id: number, threadId: number) => sql`UPDATE email_messages SET thread_id = ${threadId} WHERE id = ${id}`.pipe(Effect.asVoid, die)
    const inboundByRfcId = (rfcMessageId: string) =>
      sql<{ id: number }>`SELECT id::int AS id FROM email_messages WHERE direction = 'in' AND rfc_message_id = ${rfcMessageId}`.pipe(Effect.map((r) => r[0]?.id ?? null), die)
    const outboundRef = (id: number) =>
      sql<{ id: number; contact_id: number | null; thread_id: number | null; reply_token: string | null }>`
        SELECT id::int AS id, contact_id::int AS contact_id, thread_id::int AS thread_id, reply_token FROM email_messages
        WHERE id = ${id} AND direction = 'out'`.pipe(Effect.map((r) => r[0] ?? null), die)
    /** A message of ours by the Message-ID a reply names (In-Reply-To / References). */
    const threadOfRfcIds = (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed(null)
        : sql<{ contact_id: number | null; thread_id: number | null }>`
            SELECT contact_id::int AS contact_id, thread_id::int AS thread_id FROM email_messages
            WHERE rfc_message_id IN ${sql.in(ids)} ORDER BY id DESC LIMIT 1`.pipe(Effect.map((r) => r[0] ?? null), die)
    const latestOutboundTo = (email: string) =>
      sql<{ id: number }>`SELECT id::int AS id FROM email_messages WHERE direction = 'out' AND to_address = ${email} ORDER BY id DESC LIMIT 1`.pipe(
        Effect.map((r) => r[0]?.id ?? null), die)
    const outboundByRfcId = (rfcMessageId: string) =>
      sql<{ id: number }>`SELECT id::int AS id FROM email_messages WHERE direction = 'out' AND rfc_message_id = ${rfcMessageId}`.pipe(
        Effect.map((r) => r[0]?.id ?? null), die)
    const setDelivery = (id: number, status: DeliveryStatus) =>
      // delivered < opened; bounced and complained are final
      sql`UPDATE email_messages SET delivery_status = ${status}
          WHERE id = ${id} AND (delivery_status IS NULL OR delivery_status NOT IN ('bounced', 'complained'))
            AND NOT (${status} = 'delivered' AND delivery_status = 'opened')`.pipe(Effect.asVoid, die)
    const messages = (q: { contactId?: number; threadId?: number; direction?: "in" | "out"; limit: number }) =>
      sql.unsafe<MessageRow>(
        `SELECT ${MESSAGE_COLUMNS} FROM email_messages m
         WHERE ($1::bigint IS NULL OR m.contact_id = $1) AND ($2::bigint IS NULL OR m.thread_id = $2) AND ($3::text IS NULL OR m.direction = $3)
         ORDER BY m.id DESC LIMIT $4`,
        [q.contactId ?? null, q.threadId ?? null, q.direction ?? null, q.limit]
      ).pipe(die)
    const message = (id: number) =>
      sql.unsafe<MessageRow>(`SELECT ${MESSAGE_COLUMNS} FROM email_messages m WHERE m.id = $1`, [id]).pipe(Effect.map((r) => r[0] ?? null), die)
    const body = (id: number) =>
      sql<{ id: number; body_html: string; direction: "in" | "out" }>`
        SELECT id::int AS id, body_html, direction FROM email_messages WHERE id = ${id}`.pipe(Effect.map((r) => r[0] ?? null), die)
    const markRead = (id: number) =>
      sql<{ id: number }>`UPDATE email_messages SET read = true WHERE id = ${id} RETURNING id::int AS id`.pipe(Effect.map((r) => r.length > 0), die)
    const markAllRead = sql<{ id: number }>`UPDATE email_messages SET read = true WHERE direction = 'in' AND NOT read RETURNING id::int AS id`.pipe(
      Effect.map((r) => r.length), die)
    const deleteMessage = (id: number) =>
      sql<{ id: number }>`DELETE FROM email_messages WHERE id = ${id} RETURNING id::int AS id`.pipe(Effect.map((r) => r.length > 0), die)
    const unreadCount = sql<{ n: number }>`SELECT count(*)::int AS n FROM email_messages WHERE direction = 'in' AND NOT read`.pipe(
      Effect.map((r) => r[0]!.n), die)

    // attachments
    const insertAttachment = (a: { messageId: number; filename: string; contentType: string; contentId: string | null; size: number; sha256: string; content: Buffer }) =>
      sql`INSERT INTO email_attachments (message_id, filename, content_type, content_id, size_bytes, sha256, content)
          VALUES (${a.messageId}, ${a.filename}, ${a.contentType}, ${a.contentId}, ${a.size}, ${a.sha256}, ${a.content})`.pipe(Effect.asVoid, die)
    const attachment = (id: number) =>
      sql<AttachmentRow>`SELECT id::int AS id, message_id::int AS message_id, filename, content_type, content_id, size_bytes, content
                         FROM email_attachments WHERE id = ${id}`.pipe(Effect.map((r) => r[0] ?? null), die)
    const inlineAttachments = (messageId: number) =>
      sql<{ id: number; content_id: string }>`SELECT id::int AS id, content_id FROM email_attachments
                                              WHERE message_id = ${messageId} AND content_id IS NOT NULL`.pipe(die)

    // X outreach
    const outreach = (limit: number) =>
      sql<OutreachRow>`SELECT id::int AS id, handle, note, sent, sent_at, created_at FROM email_x_outreach ORDER BY id DESC LIMIT ${limit}`.pipe(die)
    const addOutreach = (handle: string, note: string) =>
      sql<{ id: number }>`INSERT INTO email_x_outreach (handle, note) VALUES (${handle}, ${note}) ON CONFLICT (handle) DO NOTHING RETURNING id::int AS id`.pipe(
        Effect.map((r) => r[0]?.id ?? null), die)
    const deleteOutreach = (id: number) =>
      sql<{ id: number }>`DELETE FROM email_x_outreach WHERE id = ${id} RETURNING id::int AS id`.pipe(Effect.map((r) => r.length > 0), die)
    const toggleOutreach = (id: number) =>
      sql<OutreachRow>`UPDATE email_x_outreach SET sent = NOT sent, sent_at = CASE WHEN sent THEN NULL ELSE now() END WHERE id = ${id}
                       RETURNING id::int AS id, handle, note, sent, sent_at, created_at`.pipe(Effect.map((r) => r[0] ?? null), die)

    // delivery events and suppressions
    /** True when the event id is new (the event must be acted on). */
    const recordEvent = (e: { id: string; type: string; email: string | null; messageRef: number | null; occurredAt: Date | null }) =>
      sql<{ event_id: string }>`
        INSERT INTO email_delivery_events (event_id, type, email, message_ref, occurred_at)
        VALUES (${e.id}, ${e.type}, ${e.email}, ${e.messageRef}, ${e.occurredAt}) ON CONFLICT (event_id) DO NOTHING
        RETURNING event_id`.pipe(Effect.map((r) => r.length > 0), die)
    const suppress = (email: string, reason: "complaint" | "bounce" | "unsubscribe") =>
      sql`INSERT INTO email_suppressions (email, reason) VALUES (${email}, ${reason})
          ON CONFLICT (email) DO UPDATE SET reason = CASE WHEN EXCLUDED.reason = 'complaint' THEN 'complaint' ELSE email_suppressions.reason END`.pipe(
        Effect.asVoid, die)
    const isSuppressed = (email: string) =>
      sql<{ email: string }>`SELECT email FROM email_suppressions WHERE email = ${email}`.pipe(Effect.map((r) => r.length > 0), die)

    return spanned("EmailRepo", {
      contacts, contact, contactByEmail, insertContact, setStatus, setStatusByEmail, markSent, deleteContact, claimPending,
      insertOutbound, finishOutbound, insertInbound, setThread, inboundByRfcId, outboundRef, threadOfRfcIds, latestOutboundTo, outboundByRfcId,
      setDelivery, messages, message, body, markRead, markAllRead, deleteMessage, unreadCount,
      insertAttachment, attachment, inlineAttachments,
      outreach, addOutreach, deleteOutreach, toggleOutreach,
      recordEvent, suppress, isSuppressed
    } as const)
  })
}) {}
