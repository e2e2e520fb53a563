/**
 * Wire contracts of the e-mail workspace (server/domains/email), shared with the console. Forms are
 * `application/x-www-form-urlencoded` (JSON bodies with the same fields are accepted too); every form carries the
 * CSRF token in `_csrf` (or the `X-CSRF-Token` header).
 */
import { z } from "zod"
import { email, intParam } from "../common"

const text = (max: number) => z.string().trim().max(max)
const csrf = { _csrf: z.string().max(200).optional() }

export const CONTACT_STATUSES = ["pending", "sent", "replied", "bounced", "unsubscribed"] as const
export const ContactStatus = z.enum(CONTACT_STATUSES)

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
