/**
 * Routes of the e-mail workspace (§4.6), its webhooks (§4.4) and the dashboard's JSON. Staff only: administrators
 * and the internal `staff` tier. Others get the plain 401/403 every protected route gives, naming nothing.
 * A form posted by a browser (Accept: text/html) is answered with a 303 back to the dashboard; API callers get JSON.
 * Contracts: schema/http/email.ts.
 */
import { Effect, Redacted } from "effect"
import type { z } from "zod"
import { DeliveryWebhook, EmailEndpoints as E, type Thread } from "../../../schema/http/email"
import type { Endpoint, None } from "../../../schema/http/endpoint"
import { Forbidden } from "../../platform/http/Errors"
import { Guard } from "../../platform/http/Guards"
import { Reply } from "../../platform/http/Reply"
import { type Guard as GuardT, type RequestInfo, route, type Sent } from "../../platform/http/Route"
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
  const form = <P extends z.ZodType, B extends z.ZodType, R extends z.ZodType>(contract: Endpoint<P, None, B, R>, def: {
    action: (input: { params: z.output<P>; body: z.output<B>; auth: AuthUser }) => Effect.Effect<Sent<z.input<R>>, any>
    back?: (input: { params: z.output<P>; body: z.output<B> }, result: any) => string
  }) =>
    route(contract, {
      guard: staff,
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
    route(E.workspace, {
      guard: staff,
      handler: ({ auth }) => email.dashboard().pipe(Effect.map((d) => Reply.json({ csrf_token: csrf.token(auth), ...json(d) }, 200, PRIVATE)))
    }),
    route(E.thread, {
      guard: staff,
      handler: ({ params }) => email.thread(params.contact_id).pipe(Effect.map((t) => Reply.json(json(t), 200, PRIVATE)))
    }),
    // ---- §4.6
    route(E.messageBody, {
      guard: staff,
      handler: ({ params, req }) =>
        email.body(params.msg_id).pipe(Effect.map((b) =>
          /\bapplication\/json\b/.test(req.header("accept") ?? "")
            ? Reply.json(b, 200, PRIVATE)
            : Reply.html(`<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="referrer" content="no-referrer"></head><body>${b.body_html}</body></html>`, 200, [
              ["content-security-policy", BODY_CSP], ["referrer-policy", "no-referrer"], ...PRIVATE
            ])))
    }),
    route(E.attachment, {
      guard: staff,
      handler: ({ params }) =>
        email.attachment(params.att_id).pipe(Effect.map((a) => {
          const inline = INLINE_TYPES.has(a.content_type)
          return Reply.bytes(Buffer.from(a.content), inline ? a.content_type : "application/octet-stream", [
            ["content-disposition", disposition(inline ? "inline" : "attachment", a.filename)],
            ["content-security-policy", "default-src 'none'; sandbox"], ...PRIVATE
          ])
        }))
    }),
    form(E.markRead, { action: ({ params }) => email.markRead(params.msg_id) }),
    form(E.deleteMessage, { action: ({ params }) => email.deleteMessage(params.msg_id) }),
    form(E.markAllRead, { action: () => email.markAllRead }),
    route(E.compose, {
      guard: staff,
      handler: ({ params, auth, req }) =>
        email.thread(params.contact_id).pipe(Effect.map((t) => {
          const thread = json(t)
          return wantsHtml(req) ? Reply.html(composePage(thread, csrf.token(auth)), 200, PRIVATE) : Reply.json({ ...thread, csrf_token: csrf.token(auth) }, 200, PRIVATE)
        }))
    }),
    form(E.send, {
      action: ({ body }) => email.send(body.contact_id, { subject: body.subject, body: body.body }),
      back: ({ body }) => `/email/compose/${body.contact_id}`
    }),
    form(E.addContact, {
      action: ({ body }) => email.addContact({ email: body.email, name: body.name, company: body.company, notes: body.notes }).pipe(Effect.map(json))
    }),
    form(E.quickSend, {
      action: ({ body }) => email.quickSend({ email: body.email, name: body.name }, { subject: body.subject, body: body.body })
    }),
    form(E.batchSend, {
      action: ({ body }) => email.batchSend({ subject: body.subject, body: body.body })
    }),
    form(E.setStatus, {
      action: ({ params, body }) => email.setStatus(params.contact_id, body.status, body.notes).pipe(Effect.map(json))
    }),
    form(E.deleteContact, { action: ({ params }) => email.deleteContact(params.contact_id) }),
    form(E.addOutreach, {
      action: ({ body }) => email.addOutreach(body.handle, body.note).pipe(Effect.map(json))
    }),
    form(E.deleteOutreach, { action: ({ params }) => email.deleteOutreach(params.target_id) }),
    form(E.toggleOutreach, {
      action: ({ params }) => email.toggleOutreach(params.target_id).pipe(Effect.map(json))
    }),
    // ---- unsubscribe of outreach mail (link and RFC 8058 one-click POST)
    route(E.unsubscribe, {
      guard: Guard.anon,
      handler: ({ query }) => email.unsubscribe(query.token).pipe(Effect.as(Reply.html(sitePage({ title: "Unsubscribed" },
        `<h1>You're unsubscribed</h1><p>If this link came from one of our messages, that address will receive no more outreach e-mail from us.</p><p><a href="/">Whale Intelligence</a></p>`), 200, PRIVATE)))
    }),
    route(E.unsubscribeOneClick, {
      guard: Guard.anon,
      handler: ({ query }) => email.unsubscribe(query.token).pipe(Effect.as({ ok: true }))
    }),
    // ---- §4.4 webhooks
    route(E.inbound, {
      guard: inboundGuard,
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
    route(E.delivery, {
      guard: Guard.anon,
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

