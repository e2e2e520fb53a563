/**
 * Routes of the e-mail workspace (§4.6), its webhooks (§4.4) and the dashboard's JSON. Staff only: administrators
 * and the internal `staff` tier. Others get the plain 401/403 every protected route gives, naming nothing.
 * A form posted by a browser (Accept: text/html) is answered with a 303 back to the dashboard; API callers get JSON.
 */
import { Effect, Redacted } from "effect"
import { z } from "zod"
import {
  AttParams, BatchSendForm, ContactForm, ContactParams, CsrfOnlyForm, DeliveryWebhook, InboundWebhook, MsgParams, OutreachForm,
  QuickSendForm, SendForm, StatusForm, TargetParams, Thread, Workspace
} from "../../../schema/http/email"
import { Forbidden } from "../../platform/http/Errors"
import { Guard } from "../../platform/http/Guards"
import { Reply } from "../../platform/http/Reply"
import { type Guard as GuardT, type RequestInfo, route } from "../../platform/http/Route"
import { AuthGuards, type AuthUser } from "../accounts/Guards"
import { esc, sitePage } from "../pages/Site"
import { EmailConfig } from "./Config"
import { makeCsrf } from "./Csrf"
import { type DeliveryType, Email } from "./Email"
import { InboundRejected, WebhookRejected } from "./Errors"
import { decodedSizeOf, decodeRawB64, parseInbound } from "./Inbound"
import { BODY_CSP } from "./Sanitize"
import { purposeKey } from "./Tokens"
import { verifySignature } from "./DeliverySignature"

const TAGS = ["email"]
const wantsHtml = (req: RequestInfo) => /\btext\/html\b/.test(req.header("accept") ?? "")
const PRIVATE = [["cache-control", "no-store"]] as const

/** Raster images a browser may show inline; everything else (HTML, SVG, PDF, …) downloads. */
const INLINE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"])

const disposition = (kind: "inline" | "attachment", filename: string) => {
  const ascii = filename.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_")
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`
}

const DELIVERY_TYPES: Record<string, DeliveryType> = {
  delivered: "delivered", "email.delivered": "delivered",
  opened: "opened", "email.opened": "opened",
  bounced: "bounced", "email.bounced": "bounced",
  complained: "complained", "email.complained": "complained"
}

export const EmailRoutes = Effect.gen(function* () {
  const email = yield* Email
  const config = yield* EmailConfig
  const guards = yield* AuthGuards
  const csrf = makeCsrf(purposeKey(config.sessionSecret, "csrf"), config.publicBaseUrl)

  const staff: GuardT<AuthUser> = {
    name: "staff",
    security: guards.user.security,
    run: (req) => guards.user.run(req).pipe(
      Effect.filterOrFail((u) => u.admin || u.tier === "staff", () => new Forbidden({ message: "Forbidden", code: "forbidden" }))
    )
  }

  const inboundGuard: GuardT<undefined> = Guard.sharedSecret(config.inboundSecret, "x-inbound-secret")

  /** A staff form: CSRF checked, then the action; browsers are sent back to `back`. */
  const form = <P extends z.ZodType, B extends z.ZodObject<{ _csrf: z.ZodOptional<z.ZodString> }>>(def: {
    path: string; summary: string; params?: P; body: B
    action: (input: { params: z.output<P>; body: z.output<B>; auth: AuthUser }) => Effect.Effect<unknown, any>
    back?: (input: { params: z.output<P>; body: z.output<B> }, result: any) => string
  }) =>
    route({
      method: "POST", path: def.path, summary: def.summary, tags: TAGS, guard: staff, ...(def.params ? { params: def.params } : {}), body: def.body,
      bodyKind: "json-or-form",
      handler: ({ params, body, auth, req }) =>
        Effect.gen(function* () {
          yield* csrf.check(req, auth, (body as { _csrf?: string })._csrf)
          const result = yield* def.action({ params: params as z.output<P>, body: body as z.output<B>, auth })
          return wantsHtml(req) ? Reply.redirect(def.back?.({ params: params as z.output<P>, body: body as z.output<B> }, result) ?? "/email", 303) : result
        })
    })

  const composePage = (thread: Thread, token: string) => sitePage({ title: `Compose · ${thread.contact.email}` }, `
<h1>Write to ${esc(thread.contact.name || thread.contact.email)}</h1>
<p class="muted">${esc(thread.contact.email)}${thread.contact.company ? ` · ${esc(thread.contact.company)}` : ""} · status <strong>${esc(thread.contact.status)}</strong></p>
<form method="post" action="/email/send">
<input type="hidden" name="_csrf" value="${esc(token)}"><input type="hidden" name="contact_id" value="${thread.contact.id}">
<p><label>Subject<br><input name="subject" required maxlength="300" style="width:100%" value="${esc(thread.messages[0] ? `Re: ${thread.messages[0].subject.replace(/^(re:\s*)+/i, "")}` : "")}"></label></p>
<p><label>Message<br><textarea name="body" required rows="10" style="width:100%"></textarea></label></p>
<p><button class="btn" type="submit">Send</button> <a href="/email">Back to the dashboard</a></p>
</form>
<h2>Thread</h2>
${thread.messages.map((m) => `<div class="note" style="margin:.5rem 0"><strong>${m.direction === "in" ? "From" : "To"} ${esc(m.direction === "in" ? m.from_address : m.to_address)}</strong>
 <span class="muted">${esc(new Date(m.created_at).toISOString().slice(0, 16).replace("T", " "))}${m.delivery_status ? ` · ${esc(m.delivery_status)}` : ""}</span><br>${esc(m.subject)}<br><span class="muted">${esc(m.snippet)}</span></div>`).join("") || `<p class="muted">No messages yet.</p>`}`)

  /** Rows as they go on the wire (dates as ISO strings). */
  const json = (value: unknown): any => JSON.parse(JSON.stringify(value))

  return [
    // ---- dashboard JSON
    route({
      method: "GET", path: "/api/email/workspace", summary: "Everything the /email dashboard shows, with the CSRF token of its forms",
      tags: TAGS, guard: staff, response: Workspace,
      handler: ({ auth }) => email.dashboard().pipe(Effect.map((d) => Reply.json({ csrf_token: csrf.token(auth), ...json(d) }, 200, PRIVATE)))
    }),
    route({
      method: "GET", path: "/api/email/contacts/{contact_id}/thread", summary: "One contact with every message of its threads, newest first",
      tags: TAGS, guard: staff, params: ContactParams, response: Thread,
      handler: ({ params }) => email.thread(params.contact_id).pipe(Effect.map((t) => Reply.json(json(t), 200, PRIVATE)))
    }),
    // ---- §4.6
    route({
      method: "GET", path: "/email/message/{msg_id}/body", summary: "One message's sanitized body (HTML under a strict CSP; JSON for API callers)",
      tags: TAGS, guard: staff, params: MsgParams, produces: "text/html",
      handler: ({ params, req }) =>
        email.body(params.msg_id).pipe(Effect.map((b) =>
          /\bapplication\/json\b/.test(req.header("accept") ?? "")
            ? Reply.json(b, 200, PRIVATE)
            : Reply.html(`<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"></head><body>${b.body_html}</body></html>`, 200, [
              ["content-security-policy", BODY_CSP], ["referrer-policy", "no-referrer"], ...PRIVATE
            ])))
    }),
    route({
      method: "GET", path: "/email/attachment/{att_id}", summary: "An attachment: inline for raster images, a download for anything else",
      tags: TAGS, guard: staff, params: AttParams, produces: "application/octet-stream",
      handler: ({ params }) =>
        email.attachment(params.att_id).pipe(Effect.map((a) => {
          const inline = INLINE_TYPES.has(a.content_type)
          return Reply.bytes(Buffer.from(a.content), inline ? a.content_type : "application/octet-stream", [
            ["content-disposition", disposition(inline ? "inline" : "attachment", a.filename)],
            ["content-security-policy", "default-src 'none'; sandbox"], ...PRIVATE
          ])
        }))
    }),
    form({ path: "/email/inbox/{msg_id}/read", summary: "Mark a message read", params: MsgParams, body: CsrfOnlyForm, action: ({ params }) => email.markRead(params.msg_id) }),
    form({ path: "/email/messages/{msg_id}/delete", summary: "Delete a message and its attachments", params: MsgParams, body: CsrfOnlyForm, action: ({ params }) => email.deleteMessage(params.msg_id) }),
    form({ path: "/email/inbox/mark-all-read", summary: "Mark every inbox message read", body: CsrfOnlyForm, action: () => email.markAllRead }),
    route({
      method: "GET", path: "/email/compose/{contact_id}", summary: "Compose view for a contact (HTML form with its thread; JSON for API callers)",
      tags: TAGS, guard: staff, params: ContactParams, produces: "text/html",
      handler: ({ params, auth, req }) =>
        email.thread(params.contact_id).pipe(Effect.map((t) => {
          const thread = json(t)
          return wantsHtml(req) ? Reply.html(composePage(thread, csrf.token(auth)), 200, PRIVATE) : Reply.json({ ...thread, csrf_token: csrf.token(auth) }, 200, PRIVATE)
        }))
    }),
    form({
      path: "/email/send", summary: "Send a message to a contact (through the outbox, with a signed reply address)", body: SendForm,
      action: ({ body }) => email.send(body.contact_id, { subject: body.subject, body: body.body }),
      back: ({ body }) => `/email/compose/${body.contact_id}`
    }),
    form({
      path: "/email/contact", summary: "Add a contact (status pending); an existing address answers 409", body: ContactForm,
      action: ({ body }) => email.addContact({ email: body.email, name: body.name, company: body.company, notes: body.notes }).pipe(Effect.map(json))
    }),
    form({
      path: "/email/quick-send", summary: "Send to any address; creates the contact when missing", body: QuickSendForm,
      action: ({ body }) => email.quickSend({ email: body.email, name: body.name }, { subject: body.subject, body: body.body })
    }),
    form({
      path: "/email/batch-send", summary: "Send one message to every pending contact, once (re-running sends nothing twice)", body: BatchSendForm,
      action: ({ body }) => email.batchSend({ subject: body.subject, body: body.body })
    }),
    form({
      path: "/email/contact/{contact_id}/status", summary: "Set a contact's status by hand", params: ContactParams, body: StatusForm,
      action: ({ params, body }) => email.setStatus(params.contact_id, body.status, body.notes).pipe(Effect.map(json))
    }),
    form({ path: "/email/contact/{contact_id}/delete", summary: "Delete a contact and its messages", params: ContactParams, body: CsrfOnlyForm, action: ({ params }) => email.deleteContact(params.contact_id) }),
    form({
      path: "/email/x-outreach/add", summary: "Add an X-outreach target (an existing handle answers it unchanged)", body: OutreachForm,
      action: ({ body }) => email.addOutreach(body.handle, body.note).pipe(Effect.map(json))
    }),
    form({ path: "/email/x-outreach/{target_id}/delete", summary: "Delete an X-outreach target", params: TargetParams, body: CsrfOnlyForm, action: ({ params }) => email.deleteOutreach(params.target_id) }),
    form({
      path: "/email/x-outreach/{target_id}/toggle-sent", summary: "Toggle an X-outreach target's sent flag", params: TargetParams, body: CsrfOnlyForm,
      action: ({ params }) => email.toggleOutreach(params.target_id).pipe(Effect.map(json))
    }),
    // ---- unsubscribe of outreach mail (link and RFC 8058 one-click POST)
    route({
      method: "GET", path: "/email/outreach/unsubscribe", summary: "Unsubscribe from outreach mail (the link in every outreach message)",
      tags: TAGS, guard: Guard.anon, query: z.object({ token: z.string().max(2000).optional().default("") }), produces: "text/html",
      handler: ({ query }) => email.unsubscribe(query.token).pipe(Effect.as(Reply.html(sitePage({ title: "Unsubscribed" },
        `<h1>You're unsubscribed</h1><p>If this link came from one of our messages, that address will receive no more outreach e-mail from us.</p><p><a href="/">Whale Intelligence</a></p>`), 200, PRIVATE)))
    }),
    route({
      method: "POST", path: "/email/outreach/unsubscribe", summary: "One-click unsubscribe (List-Unsubscribe-Post)",
      tags: TAGS, guard: Guard.anon, query: z.object({ token: z.string().max(2000).optional().default("") }), bodyKind: "raw",
      handler: ({ query }) => email.unsubscribe(query.token).pipe(Effect.as({ ok: true }))
    }),
    // ---- §4.4 webhooks
    route({
      method: "POST", path: "/webhooks/email-inbound", summary: "Inbound e-mail forwarded by the e-mail worker (X-Inbound-Secret)",
      tags: ["webhooks"], guard: inboundGuard, body: InboundWebhook, bodyKind: "json",
      maxBodyBytes: Math.ceil(config.limits.maxRawBytes / 3) * 4 + 64 * 1024,
      handler: ({ body }) =>
        Effect.gen(function* () {
          if (decodedSizeOf(body.raw_b64.replace(/\s/g, "").length) > config.limits.maxRawBytes + 2) {
            return yield* Effect.fail(new InboundRejected({ kind: "too_large", message: `The message exceeds ${config.limits.maxRawBytes} bytes` }))
          }
          const raw = decodeRawB64(body.raw_b64)
          if (raw === null) return yield* Effect.fail(new InboundRejected({ kind: "malformed", message: "raw_b64 is not valid base64" }))
          const parsed = yield* Effect.promise(() => parseInbound(raw, config.limits, body.from))
          if (!parsed.ok) return yield* Effect.fail(new InboundRejected(parsed.problem))
          return yield* email.receive(parsed.message, body.to)
        })
    }),
    route({
      method: "POST", path: "/webhooks/emailprovider", summary: "E-mail delivery events (Standard Webhooks signature: webhook-id, webhook-timestamp, webhook-signature)",
      tags: ["webhooks"], guard: Guard.anon, bodyKind: "raw",
      handler: ({ rawBody, req }) =>
        Effect.gen(function* () {
          const check = verifySignature({ secrets: config.webhookSecrets, header: (n) => req.header(n), body: rawBody, nowSeconds: Math.floor(Date.now() / 1000) })
          if (!check.ok) return yield* Effect.fail(new WebhookRejected({ problem: config.webhookSecrets.length === 0 ? "not_configured" : check.problem }))
          let json: unknown
          try {
            json = JSON.parse(rawBody.toString("utf8"))
          } catch {
            return yield* Effect.fail(new WebhookRejected({ problem: "Body is not valid JSON", invalidBody: true }))
          }
          const event = DeliveryWebhook.safeParse(json)
          if (!event.success) return yield* Effect.fail(new WebhookRejected({ problem: event.error.issues[0]?.message ?? "invalid event", invalidBody: true }))
          const type = DELIVERY_TYPES[event.data.type]
          if (type === undefined) return { ok: true, ignored: true }
          const to = event.data.data.email ?? (Array.isArray(event.data.data.to) ? event.data.data.to[0] : event.data.data.to) ?? null
          const occurredAt = event.data.created_at && !Number.isNaN(Date.parse(event.data.created_at)) ? new Date(event.data.created_at) : null
          const result = yield* email.deliveryEvent({ id: check.id, type, email: to, rfcMessageId: event.data.data.message_id ?? null, occurredAt })
          return { ok: true, ...result }
        })
    })
  ]
})

