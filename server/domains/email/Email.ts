/**
 * The staff e-mail workspace (spec §4.6, §4.4): outreach contacts and their threads, sending through the outbox
 * with a signed reply address, inbound replies threaded to their contact, the provider's delivery events, and
 * X-outreach targets.
 *
 * Threads: an outgoing message names itself in its reply address (`reply+<token>@EMAIL_REPLY_DOMAIN`, token from
 * Tokens.ts) and in its Message-ID; a reply is threaded by the token in the webhook's `to` (or any recipient), else by
 * In-Reply-To/References, else to the contact with the sender's address, else it lands unthreaded in the inbox.
 * Mail happens once: sends are rows written in the transaction that causes them (the mail-outbox actor sends after
 * commit); an inbound message is stored once per Message-ID; a delivery event acts once per event id.
 */
import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { Kv } from "../../platform/infra/Kv"
import { Mailer } from "../../platform/infra/Mailer"
import { Drip } from "../billing/Drip"
import { EmailConfig } from "./Config"
import { AddressSuppressed, BatchCooldown, ContactExists, notFound } from "./Errors"
import { type InboundMessage } from "./Inbound"
import { type ContactStatus, EmailRepo } from "./Repo"
import { purposeKey, replyToken, replyTokenIn, signLink, verifyLink, verifyReplyToken } from "./Tokens"

export interface Draft {
  readonly subject: string
  readonly body: string
}

export type DeliveryType = "delivered" | "opened" | "bounced" | "complained"

export interface DeliveryEvent {
  readonly id: string
  readonly type: DeliveryType
  readonly email: string | null
  readonly rfcMessageId: string | null
  readonly occurredAt: Date | null
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

/** The HTML of a plain-text body typed in the workspace: paragraphs, line breaks, nothing else. */
export const draftHtml = (body: string, unsubscribeUrl: string | null) =>
  `<div style="font:15px/1.5 sans-serif">${body.trim().split(/\r?\n\s*\r?\n/).map((p) => `<p>${escape(p).replace(/\r?\n/g, "<br>")}</p>`).join("")}${
    unsubscribeUrl ? `<p style="color:#888;font-size:12px">Not interested? <a href="${escape(unsubscribeUrl)}">Unsubscribe</a>.</p>` : ""
  }</div>`

const UNSUBSCRIBE_TTL_SECONDS = 5 * 365 * 24 * 3600
const BATCH_COOLDOWN_KEY = "email:batch-send:cooldown"

export class Email extends Effect.Service<Email>()("app/Email", {
  dependencies: [EmailRepo.Default, EmailConfig.Default, Mailer.Default],
  effect: Effect.gen(function* () {
    const repo = yield* EmailRepo
    const config = yield* EmailConfig
    const mailer = yield* Mailer
    const drip = yield* Drip
    const kv = yield* Kv
    const sql = yield* SqlClient.SqlClient
    const replyKey = purposeKey(config.sessionSecret, "email-reply")
    const unsubscribeKey = purposeKey(config.sessionSecret, "email-unsubscribe")

    const unsubscribeUrl = (contactId: number, now: number) =>
      `${config.publicBaseUrl}/email/outreach/unsubscribe?token=${signLink(unsubscribeKey, { c: contactId }, Math.floor(now / 1000) + UNSUBSCRIBE_TTL_SECONDS)}`

    /** Writes one outgoing message and its outbox row (inside the caller's transaction when there is one). */
    const enqueue = Effect.fn("Email.enqueue")(function* (contact: { id: number; email: string }, draft: Draft, kind: string, batchId: string | null) {
      const now = yield* Clock.currentTimeMillis
      const thread = (yield* repo.messages({ contactId: contact.id, limit: 1 }))[0]?.thread_id ?? null
      const unsubscribe = unsubscribeUrl(contact.id, now)
      const html = draftHtml(draft.body, unsubscribe)
      const text = `${draft.body.trim()}\n\n--\nNot interested? Unsubscribe: ${unsubscribe}\n`
      const id = yield* repo.insertOutbound({ contactId: contact.id, threadId: thread, subject: draft.subject, from: config.from, to: contact.email, html, text, batchId })
      const token = replyToken(replyKey, id)
      const rfcMessageId = `out.${id}.${randomBytes(6).toString("hex")}@${config.replyDomain}`
      const outboxId = yield* mailer.enqueue({
        kind, to: contact.email, subject: draft.subject, text, html,
        headers: {
          "Reply-To": `reply+${token}@${config.replyDomain}`,
          "Message-ID": `<${rfcMessageId}>`,
          "List-Unsubscribe": `<${unsubscribe}>`,
          "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"
        }
      })
      yield* repo.finishOutbound(id, { threadId: thread ?? id, replyToken: token, rfcMessageId, outboxId })
      yield* repo.markSent(contact.id)
      return id
    })

    const requireContact = (id: number) => repo.contact(id).pipe(Effect.flatMap((c) => (c ? Effect.succeed(c) : Effect.fail(notFound("contact")))))

    const send = Effect.fn("Email.send")(function* (contactId: number, draft: Draft) {
      const contact = yield* requireContact(contactId)
      if (contact.status === "unsubscribed" || (yield* repo.isSuppressed(contact.email))) return yield* Effect.fail(new AddressSuppressed())
      const id = yield* enqueue(contact, draft, "workspace", null).pipe(sql.withTransaction, Effect.orDie)
      yield* Effect.logInfo("workspace mail queued").pipe(Effect.annotateLogs({ contact_id: contactId, message_id: id }))
      return { message_id: id, contact_id: contactId }
    })

    const addContact = Effect.fn("Email.addContact")(function* (c: { email: string; name: string; company: string; notes: string }) {
      const id = yield* repo.insertContact(c)
      if (id === null) return yield* Effect.fail(new ContactExists({ id: (yield* repo.contactByEmail(c.email))?.id ?? 0 }))
      return (yield* repo.contact(id))!
    })

    const quickSend = Effect.fn("Email.quickSend")(function* (to: { email: string; name: string }, draft: Draft) {
      const existing = yield* repo.contactByEmail(to.email)
      const contactId = existing?.id ?? (yield* repo.insertContact({ email: to.email, name: to.name, company: "", notes: "" })) ?? (yield* repo.contactByEmail(to.email))!.id
      return { ...(yield* send(contactId, draft)), created_contact: existing === null }
    })

    /**
     * Sends the draft to every `pending` contact not suppressed, at most `batchMax` per run, one message per contact:
     * each contact is locked, mailed and moved to `sent` in one transaction, so a second run (or a concurrent one)
     * finds nothing left to send. Runs at most once per `batchCooldownSeconds` across every process (a counter
     * in the shared key-value store: the first run of a window takes it, the others are told how long to wait).
     */
    const batchSend = Effect.fn("Email.batchSend")(function* (draft: Draft) {
      const now = yield* Clock.currentTimeMillis
      if (config.batchCooldownSeconds > 0 && (yield* kv.incrWindow(BATCH_COOLDOWN_KEY, config.batchCooldownSeconds)) > 1) {
        return yield* Effect.fail(new BatchCooldown({ seconds: Math.max(1, yield* kv.ttl(BATCH_COOLDOWN_KEY)) }))
      }
      const batchId = `b${now.toString(36)}${randomBytes(3).toString("hex")}`
      const sent = yield* Effect.gen(function* () {
        const contacts = yield* repo.claimPending(config.batchMax)
        for (const c of contacts) yield* enqueue(c, draft, "workspace_batch", batchId)
        return contacts.length
      }).pipe(sql.withTransaction, Effect.orDie)
      const remaining = (yield* repo.contacts(10_000)).filter((c) => c.status === "pending").length
      yield* Effect.logInfo(`batch ${batchId}: ${sent} queued, ${remaining} pending left`)
      return { batch_id: batchId, sent, remaining_pending: remaining }
    })

    /** Stores an inbound message once; threads it; the contact moves to `replied`. */
    const receive = Effect.fn("Email.receive")(function* (m: InboundMessage, envelopeTo: string) {
      const existing = yield* repo.inboundByRfcId(m.messageId)
      if (existing !== null) return { message_id: existing, duplicate: true, contact_id: null as number | null, thread_id: null as number | null }
      const tokens = [envelopeTo, ...m.recipients].map(replyTokenIn).filter((t): t is string => t !== null)
      let ref: { contact_id: number | null; thread_id: number | null } | null = null
      for (const t of tokens) {
        const id = verifyReplyToken(replyKey, t)
        if (id !== null) {
          ref = yield* repo.outboundRef(id)
          if (ref) break
        }
      }
      ref ??= yield* repo.threadOfRfcIds([...(m.inReplyTo ? [m.inReplyTo] : []), ...m.references])
      const byAddress = yield* repo.contactByEmail(m.from.address)
      const contactId = ref?.contact_id ?? byAddress?.id ?? null
      const stored = yield* Effect.gen(function* () {
        const id = yield* repo.insertInbound({
          contactId, threadId: ref?.thread_id ?? null, subject: m.subject, from: m.from.address, to: envelopeTo.toLowerCase(),
          html: m.html, text: m.text, snippet: m.snippet, rfcMessageId: m.messageId, inReplyTo: m.inReplyTo, size: m.size
        })
        if (id === null) return null
        if (ref?.thread_id == null) yield* repo.setThread(id, id)
        for (const a of m.attachments) {
          yield* repo.insertAttachment({ messageId: id, filename: a.filename, contentType: a.contentType, contentId: a.contentId, size: a.size, sha256: a.sha256, content: a.content })
        }
        if (contactId !== null) yield* repo.setStatus(contactId, "replied")
        return id
      }).pipe(sql.withTransaction, Effect.orDie)
      if (stored === null) return { message_id: (yield* repo.inboundByRfcId(m.messageId))!, duplicate: true, contact_id: contactId, thread_id: null }
      yield* Effect.logInfo("inbound mail stored").pipe(Effect.annotateLogs({ message_id: stored, contact_id: contactId ?? "-", attachments: m.attachments.length }))
      return { message_id: stored, duplicate: false, contact_id: contactId, thread_id: ref?.thread_id ?? stored }
    })

    /** Acts on a delivery event once per event id. */
    const deliveryEvent = Effect.fn("Email.deliveryEvent")(function* (e: DeliveryEvent) {
      const email = e.email?.trim().toLowerCase() ?? null
      const messageRef = (e.rfcMessageId ? yield* repo.outboundByRfcId(e.rfcMessageId.replace(/^<|>$/g, "")) : null) ?? (email ? yield* repo.latestOutboundTo(email) : null)
      return yield* Effect.gen(function* () {
        const fresh = yield* repo.recordEvent({ id: e.id, type: e.type, email, messageRef, occurredAt: e.occurredAt })
        if (!fresh) return { duplicate: true, message_id: messageRef }
        if (messageRef !== null) yield* repo.setDelivery(messageRef, e.type)
        if (email !== null && e.type === "bounced") {
          yield* repo.setStatusByEmail(email, "bounced", ["pending", "sent", "replied"])
          yield* repo.suppress(email, "bounce")
        }
        if (email !== null && e.type === "complained") {
          yield* repo.setStatusByEmail(email, "unsubscribed", ["pending", "sent", "replied", "bounced"])
          yield* repo.suppress(email, "complaint")
          yield* drip.unsubscribeAddress(email, "complaint")
        }
        return { duplicate: false, message_id: messageRef }
      }).pipe(sql.withTransaction, Effect.orDie)
    })

    /** One-click unsubscribe of an outreach contact (link and List-Unsubscribe-Post). */
    const unsubscribe = Effect.fn("Email.unsubscribe")(function* (token: string) {
      const check = verifyLink(unsubscribeKey, token, Math.floor((yield* Clock.currentTimeMillis) / 1000))
      if (!check.ok || typeof check.payload.c !== "number") return false
      const contact = yield* repo.contact(check.payload.c)
      if (!contact) return false
      yield* Effect.all([repo.setStatus(contact.id, "unsubscribed"), repo.suppress(contact.email, "unsubscribe")]).pipe(sql.withTransaction, Effect.orDie)
      return true
    })

    const setStatus = Effect.fn("Email.setStatus")(function* (id: number, status: ContactStatus, notes?: string) {
      if (!(yield* repo.setStatus(id, status, notes))) return yield* Effect.fail(notFound("contact"))
      if (status === "unsubscribed") yield* repo.suppress((yield* repo.contact(id))!.email, "unsubscribe")
      return (yield* repo.contact(id))!
    })

    const orNotFound = <A>(what: "contact" | "message" | "attachment" | "target") => (found: A | null | false) =>
      found === null || found === false ? Effect.fail(notFound(what)) : Effect.succeed(found as A)

    /** A message's stored body with `cid:` images pointing at the message's attachments. */
    const body = Effect.fn("Email.body")(function* (id: number) {
      const row = yield* repo.body(id).pipe(Effect.flatMap(orNotFound<{ id: number; body_html: string }>("message")))
      const inline = yield* repo.inlineAttachments(id)
      const byCid = new Map(inline.map((a) => [a.content_id.toLowerCase(), a.id]))
      const html = row.body_html.replace(/src="cid:([^"]+)"/gi, (whole, cid: string) => {
        const att = byCid.get(cid.replace(/&amp;/g, "&").toLowerCase())
        return att === undefined ? `src=""` : `src="/email/attachment/${att}"`
      })
      return { id, body_html: html }
    })

    return {
      dashboard: Effect.fn("Email.dashboard")(function* () {
        const [contacts, inbox, outreach, unread] = yield* Effect.all([repo.contacts(500), repo.messages({ direction: "in", limit: 100 }), repo.outreach(500), repo.unreadCount])
        return { contacts, inbox, outreach, unread }
      }),
      thread: Effect.fn("Email.thread")(function* (contactId: number) {
        const contact = yield* requireContact(contactId)
        return { contact, messages: yield* repo.messages({ contactId, limit: 200 }) }
      }),
      contact: requireContact,
      addContact, send, quickSend, batchSend, receive, deliveryEvent, unsubscribe, setStatus, body,
      attachment: (id: number) => repo.attachment(id).pipe(Effect.flatMap(orNotFound<NonNullable<Effect.Effect.Success<ReturnType<typeof repo.attachment>>>>("attachment"))),
      markRead: (id: number) => repo.markRead(id).pipe(Effect.flatMap(orNotFound<true>("message")), Effect.as({ ok: true as const })),
      markAllRead: repo.markAllRead.pipe(Effect.map((updated) => ({ ok: true as const, updated }))),
      deleteMessage: (id: number) => repo.deleteMessage(id).pipe(Effect.flatMap(orNotFound<true>("message")), Effect.as({ ok: true as const })),
      deleteContact: (id: number) => repo.deleteContact(id).pipe(Effect.flatMap(orNotFound<true>("contact")), Effect.as({ ok: true as const })),
      addOutreach: Effect.fn("Email.addOutreach")(function* (handle: string, note: string) {
        const id = yield* repo.addOutreach(handle, note)
        const list = yield* repo.outreach(10_000)
        return { created: id !== null, target: list.find((t) => t.handle === handle)! }
      }),
      deleteOutreach: (id: number) => repo.deleteOutreach(id).pipe(Effect.flatMap(orNotFound<true>("target")), Effect.as({ ok: true as const })),
      toggleOutreach: (id: number) => repo.toggleOutreach(id).pipe(Effect.flatMap(orNotFound<NonNullable<Effect.Effect.Success<ReturnType<typeof repo.toggleOutreach>>>>("target")))
    } as const
  })
}) {}
