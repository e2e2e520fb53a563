/**
 * Wire contracts of the e-mail workspace (server/domains/email), shared with the console. Forms are
 * `application/x-www-form-urlencoded` (JSON bodies with the same fields are accepted too); every form carries the
 * CSRF token in `_csrf` (or the `X-CSRF-Token` header). A browser posting a form (Accept: text/html) is answered
 * with a 303 back to the dashboard; API callers (and the console) get the JSON answers below.
 */
import { z } from "zod"
import { email, intParam } from "../common"
import { type Endpoint, endpoint, type None } from "./endpoint"

const text = (max: number) => z.string().trim().max(max)
const csrf = { _csrf: z.string().max(200).optional() }

export const CONTACT_STATUSES = ["pending", "sent", "replied", "bounced", "unsubscribed"] as const
export const ContactStatus = z.enum(CONTACT_STATUSES)
export type ContactStatus = z.infer<typeof ContactStatus>

export const MsgParams = z.object({ msg_id: intParam({ min: 1 }) })
export const AttParams = z.object({ att_id: intParam({ min: 1 }) })
export const ContactParams = z.object({ contact_id: intParam({ min: 1 }) })
export const TargetParams = z.object({ target_id: intParam({ min: 1 }) })

export const CsrfOnlyForm = z.object(csrf)
/** POST /email/contact */
export const ContactForm = z.object({ email, name: text(200).default(""), company: text(200).default(""), notes: text(5000).default(""), ...csrf })
/** POST /email/send */
export const SendForm = z.object({ contact_id: intParam({ min: 1 }), subject: text(300).min(1), body: text(100_000).min(1), ...csrf })
/** POST /email/quick-send */
export const QuickSendForm = z.object({ email, name: text(200).default(""), subject: text(300).min(1), body: text(100_000).min(1), ...csrf })
/** POST /email/batch-send */
export const BatchSendForm = z.object({ subject: text(300).min(1), body: text(100_000).min(1), ...csrf })
/** POST /email/contact/{contact_id}/status */
export const StatusForm = z.object({ status: ContactStatus, notes: text(5000).optional(), ...csrf })
/** POST /email/x-outreach/add */
export const OutreachForm = z.object({
  handle: z.string().trim().transform((h) => h.replace(/^@/, "").replace(/^https?:\/\/(x|twitter)\.com\//i, "").toLowerCase())
    .pipe(z.string().regex(/^[a-z0-9_]{1,15}$/, "value is not a valid X handle")),
  note: text(2000).default(""),
  ...csrf
})

/** POST /webhooks/email-inbound */
export const InboundWebhook = z.object({ from: z.string().max(998), to: z.string().min(3).max(998), raw_b64: z.string().min(1) })

/** POST /webhooks/emailprovider (the documented provider payload; unknown types are acknowledged and ignored) */
export const DeliveryWebhook = z.object({
  type: z.string().max(64),
  created_at: z.string().max(64).optional(),
  data: z.object({
    email: z.string().max(254).optional(),
    to: z.union([z.string().max(254), z.array(z.string().max(254)).max(50)]).optional(),
    message_id: z.string().max(998).optional()
  }).passthrough()
}).passthrough()

export const Attachment = z.object({ id: z.number().int(), filename: z.string(), content_type: z.string(), size_bytes: z.number().int() })
export const Contact = z.object({
  id: z.number().int(), email: z.string(), name: z.string(), company: z.string(), status: ContactStatus, notes: z.string(),
  last_sent_at: z.string().nullable(), created_at: z.string(), unread: z.number().int(), messages: z.number().int()
})
export type Contact = z.infer<typeof Contact>
export const Message = z.object({
  id: z.number().int(), contact_id: z.number().int().nullable(), direction: z.enum(["in", "out"]), thread_id: z.number().int().nullable(),
  subject: z.string(), from_address: z.string(), to_address: z.string(), snippet: z.string(), read: z.boolean(),
  delivery_status: z.enum(["queued", "delivered", "opened", "bounced", "complained"]).nullable(), created_at: z.string(),
  attachments: z.array(Attachment)
})
export type Message = z.infer<typeof Message>
export const OutreachTarget = z.object({ id: z.number().int(), handle: z.string(), note: z.string(), sent: z.boolean(), sent_at: z.string().nullable(), created_at: z.string() })
export type OutreachTarget = z.infer<typeof OutreachTarget>

/** GET /api/email/workspace: everything the /email dashboard shows, with the CSRF token for its forms. */
export const Workspace = z.object({
  csrf_token: z.string(),
  unread: z.number().int(),
  contacts: z.array(Contact),
  inbox: z.array(Message),
  outreach: z.array(OutreachTarget)
})
export type Workspace = z.infer<typeof Workspace>

/** GET /api/email/contacts/{contact_id}/thread */
export const Thread = z.object({ contact: Contact, messages: z.array(Message) })
export type Thread = z.infer<typeof Thread>

// ------------------------------------------------------------------------------------------------------------
// Answers of the workspace's actions and webhooks

export const OkAnswer = z.object({ ok: z.literal(true) })
export const MarkAllReadAnswer = z.object({ ok: z.literal(true), updated: z.number().int() })
export const SendAnswer = z.object({ message_id: z.number().int(), contact_id: z.number().int() })
export const QuickSendAnswer = SendAnswer.extend({ created_contact: z.boolean() })
export const BatchSendAnswer = z.object({ batch_id: z.string(), sent: z.number().int(), remaining_pending: z.number().int() })
export const AddOutreachAnswer = z.object({ created: z.boolean(), target: OutreachTarget })
/** A message's sanitized body (JSON for API callers; browsers get it as a page under a strict CSP). */
export const MessageBody = z.object({ id: z.number().int(), body_html: z.string() })
/** The compose view as JSON: the thread and the CSRF token of its form. */
export const ComposeView = Thread.extend({ csrf_token: z.string() })
export const InboundAnswer = z.object({
  message_id: z.number().int(), duplicate: z.boolean(), contact_id: z.number().int().nullable(), thread_id: z.number().int().nullable()
})
/** An event of a type we do not act on is acknowledged as `ignored`. */
export const DeliveryAnswer = z.union([
  z.object({ ok: z.literal(true), ignored: z.literal(true) }),
  z.object({ ok: z.literal(true), duplicate: z.boolean(), message_id: z.number().int().nullable() })
])
export const UnsubscribeQuery = z.object({ token: z.string().max(2000).optional().default("") })

// ------------------------------------------------------------------------------------------------------------
// Endpoints (staff: administrators and the `staff` tier; the webhooks and unsubscribe links: their own checks)

const tags = ["email"]
/** A workspace form: CSRF-checked, url-encoded or JSON. */
const form = <B extends z.ZodType, R extends z.ZodType, P extends z.ZodType = None>(
  path: string, summary: string, body: B, response: R, params?: P
): Endpoint<P, None, B, R> => endpoint<P, None, B, R>({ method: "POST", path, summary, tags, params, body, bodyKind: "json-or-form", response })

export const EmailEndpoints = {
  workspace: endpoint({
    method: "GET", path: "/api/email/workspace", summary: "Everything the /email dashboard shows, with the CSRF token of its forms", tags, response: Workspace
  }),
  thread: endpoint({
    method: "GET", path: "/api/email/contacts/{contact_id}/thread", summary: "One contact with every message of its threads, newest first", tags,
    params: ContactParams, response: Thread
  }),
  messageBody: endpoint({
    method: "GET", path: "/email/message/{msg_id}/body", summary: "One message's sanitized body (HTML under a strict CSP; JSON for API callers)", tags,
    params: MsgParams, produces: "text/html", response: MessageBody
  }),
  attachment: endpoint({
    method: "GET", path: "/email/attachment/{att_id}", summary: "An attachment: inline for raster images, a download for anything else", tags,
    params: AttParams, produces: "application/octet-stream"
  }),
  compose: endpoint({
    method: "GET", path: "/email/compose/{contact_id}", summary: "Compose view for a contact (HTML form with its thread; JSON for API callers)", tags,
    params: ContactParams, produces: "text/html", response: ComposeView
  }),
  markRead: form("/email/inbox/{msg_id}/read", "Mark a message read", CsrfOnlyForm, OkAnswer, MsgParams),
  deleteMessage: form("/email/messages/{msg_id}/delete", "Delete a message and its attachments", CsrfOnlyForm, OkAnswer, MsgParams),
  markAllRead: form("/email/inbox/mark-all-read", "Mark every inbox message read", CsrfOnlyForm, MarkAllReadAnswer),
  send: form("/email/send", "Send a message to a contact (through the outbox, with a signed reply address)", SendForm, SendAnswer),
  addContact: form("/email/contact", "Add a contact (status pending); an existing address answers 409", ContactForm, Contact),
  quickSend: form("/email/quick-send", "Send to any address; creates the contact when missing", QuickSendForm, QuickSendAnswer),
  batchSend: form("/email/batch-send", "Send one message to every pending contact, once (re-running sends nothing twice)", BatchSendForm, BatchSendAnswer),
  setStatus: form("/email/contact/{contact_id}/status", "Set a contact's status by hand", StatusForm, Contact, ContactParams),
  deleteContact: form("/email/contact/{contact_id}/delete", "Delete a contact and its messages", CsrfOnlyForm, OkAnswer, ContactParams),
  addOutreach: form("/email/x-outreach/add", "Add an X-outreach target (an existing handle answers it unchanged)", OutreachForm, AddOutreachAnswer),
  deleteOutreach: form("/email/x-outreach/{target_id}/delete", "Delete an X-outreach target", CsrfOnlyForm, OkAnswer, TargetParams),
  toggleOutreach: form("/email/x-outreach/{target_id}/toggle-sent", "Toggle an X-outreach target's sent flag", CsrfOnlyForm, OutreachTarget, TargetParams),
  unsubscribe: endpoint({
    method: "GET", path: "/email/outreach/unsubscribe", summary: "Unsubscribe from outreach mail (the link in every outreach message)", tags,
    query: UnsubscribeQuery, produces: "text/html"
  }),
  unsubscribeOneClick: endpoint({
    method: "POST", path: "/email/outreach/unsubscribe", summary: "One-click unsubscribe (List-Unsubscribe-Post)", tags,
    query: UnsubscribeQuery, bodyKind: "raw", response: OkAnswer
  }),
  inbound: endpoint({
    method: "POST", path: "/webhooks/email-inbound", summary: "Inbound e-mail forwarded by the e-mail worker (X-Inbound-Secret)", tags: ["webhooks"],
    body: InboundWebhook, bodyKind: "json", response: InboundAnswer
  }),
  /** Delivery events: the signature is over the raw bytes, so the body is read raw and parsed as `DeliveryWebhook` after. */
  delivery: endpoint({
    method: "POST", path: "/webhooks/emailprovider",
    summary: "E-mail delivery events (Standard Webhooks signature: webhook-id, webhook-timestamp, webhook-signature)", tags: ["webhooks"],
    bodyKind: "raw", response: DeliveryAnswer
  })
}
