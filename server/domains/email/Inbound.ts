/**
 * The inbound pipeline as a function, with no storage: `raw_b64` → bytes → RFC 822 message (mailparser) →
 * addresses, threading hints, sanitized HTML, attachments. Every limit is checked here, before anything is stored.
 *
 *   decodeRawB64   strict base64 (standard or URL alphabet, padding optional, whitespace ignored); anything else
 *                  is malformed
 *   parseInbound   size caps → `too_large`; a body that is not an RFC 822 message → `malformed`
 *
 * A message without a Message-ID gets a stable one derived from its bytes (`sha256-<hex>@inbound.invalid`), so the
 * same bytes posted twice are still stored once.
 */
import { createHash } from "node:crypto"
import { type AddressObject, type ParsedMail, simpleParser } from "mailparser"
import { sanitizeEmailHtml, textToHtml } from "./Sanitize"

export interface InboundLimits {
  /** Largest raw message accepted (bytes, after base64 decoding). */
  readonly maxRawBytes: number
  /** Largest single attachment (bytes). */
  readonly maxAttachmentBytes: number
  /** Most attachments kept from one message. */
  readonly maxAttachments: number
}

export const DEFAULT_INBOUND_LIMITS: InboundLimits = { maxRawBytes: 10 * 1024 * 1024, maxAttachmentBytes: 8 * 1024 * 1024, maxAttachments: 20 }

export interface InboundAttachment {
  readonly filename: string
  readonly contentType: string
  readonly contentId: string | null
  readonly content: Buffer
  readonly size: number
  readonly sha256: string
}

export interface InboundMessage {
  /** Without angle brackets. */
  readonly messageId: string
  readonly from: { readonly address: string; readonly name: string }
  /** Every recipient address (To, Cc, Delivered-To, X-Original-To), lower-cased. */
  readonly recipients: ReadonlyArray<string>
  readonly subject: string
  readonly date: Date | null
  readonly inReplyTo: string | null
  readonly references: ReadonlyArray<string>
  /** Sanitized HTML (from the HTML part, or the text part escaped). */
  readonly html: string
  readonly text: string
  readonly snippet: string
  readonly attachments: ReadonlyArray<InboundAttachment>
  readonly size: number
}

export type InboundProblem =
  | { readonly kind: "malformed"; readonly message: string }
  | { readonly kind: "too_large"; readonly message: string }

export type InboundResult = { readonly ok: true; readonly message: InboundMessage } | { readonly ok: false; readonly problem: InboundProblem }

const malformed = (message: string): InboundResult => ({ ok: false, problem: { kind: "malformed", message } })
const tooLarge = (message: string): InboundResult => ({ ok: false, problem: { kind: "too_large", message } })

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/

/** Bytes of a base64 string, or null when it is not valid base64. */
export const decodeRawB64 = (input: string): Buffer | null => {
  const s = input.replace(/[\r\n\t ]/g, "")
  if (s.length === 0) return null
  const url = !BASE64.test(s)
  if (url && !BASE64URL.test(s)) return null
  const unpadded = s.replace(/=+$/, "")
  if (unpadded.length % 4 === 1) return null
  const bytes = Buffer.from(unpadded, url ? "base64url" : "base64")
  // Node ignores trailing garbage bits: re-encoding must give the same text back.
  if (bytes.toString(url ? "base64url" : "base64").replace(/=+$/, "") !== unpadded) return null
  return bytes
}

/** The decoded size of a base64 string of `length` characters (an upper bound, to refuse early). */
export const decodedSizeOf = (length: number) => Math.floor((length * 3) / 4)

/** A header block must open the message: `Name: value` lines up to the first empty line. */
const HEADER_LINE = /^[!-9;-~]+[ \t]*:/
const looksLikeMessage = (raw: Buffer) => {
  const head = raw.subarray(0, Math.min(raw.length, 64 * 1024)).toString("latin1")
  const lines = head.split(/\r?\n/)
  const first = lines.find((l) => l.length > 0)
  if (first === undefined || !(HEADER_LINE.test(first) || /^From /.test(first))) return false
  if (head.includes("\u0000")) return false
  let headers = 0
  for (const line of lines) {
    if (line === "") break
    if (HEADER_LINE.test(line)) headers++
  }
  return headers >= 1
}

const stripBrackets = (id: string) => id.trim().replace(/^<+|>+$/g, "").trim()

const idsOf = (value: string | ReadonlyArray<string> | undefined): Array<string> => {
  if (value === undefined) return []
  const list = typeof value === "string" ? value.split(/\s+/) : value.flatMap((v) => v.split(/\s+/))
  return list.map(stripBrackets).filter((v) => v.length > 0 && v.length <= 998)
}

const addressesOf = (value: AddressObject | ReadonlyArray<AddressObject> | undefined): Array<{ address: string; name: string }> => {
  if (value === undefined) return []
  const objects = Array.isArray(value) ? value : [value as AddressObject]
  const out: Array<{ address: string; name: string }> = []
  const walk = (list: ReadonlyArray<{ address?: string; name: string; group?: ReadonlyArray<any> }>) => {
    for (const a of list) {
      if (a.group) walk(a.group)
      else if (a.address) out.push({ address: a.address.toLowerCase(), name: a.name ?? "" })
    }
  }
  for (const o of objects) walk(o.value)
  return out
}

const headerText = (mail: ParsedMail, name: string): Array<string> => {
  const line = mail.headerLines.filter((h) => h.key === name)
  return line.map((h) => h.line.slice(h.line.indexOf(":") + 1).trim())
}

const SNIPPET = 160
const snippetOf = (text: string) => {
  const flat = text.replace(/\s+/g, " ").trim()
  return flat.length > SNIPPET ? `${flat.slice(0, SNIPPET - 1)}…` : flat
}

/** Attachment names are shown and sent back in `Content-Disposition`: no paths, no control characters. */
export const safeFilename = (name: string | undefined, index: number, contentType: string) => {
  const base = (name ?? "").split(/[\\/]/).pop()!.replace(/[\u0000-\u001f\u007f"]/g, "").trim().slice(0, 200)
  if (base.length > 0) return base
  const ext = contentType.split("/")[1]?.replace(/[^a-z0-9]/gi, "").slice(0, 8) || "bin"
  return `attachment-${index + 1}.${ext}`
}

/** `envelopeFrom`: the sender the forwarding worker saw (the webhook's `from`), used when the From header is unusable. */
export const parseInbound = async (raw: Buffer, limits: InboundLimits = DEFAULT_INBOUND_LIMITS, envelopeFrom?: string): Promise<InboundResult> => {
  if (raw.length > limits.maxRawBytes) return tooLarge(`The message is ${raw.length} bytes; the limit is ${limits.maxRawBytes}`)
  if (!looksLikeMessage(raw)) return malformed("raw_b64 does not hold an RFC 822 message (no header block)")
  let mail: ParsedMail
  try {
    mail = await simpleParser(raw, { skipImageLinks: true, skipTextToHtml: true, maxHtmlLengthToParse: limits.maxRawBytes })
  } catch (e) {
    return malformed(`The MIME structure could not be parsed: ${e instanceof Error ? e.message.slice(0, 200) : "unknown error"}`)
  }
  const envelope = envelopeFrom !== undefined && /^[^\s@<>]+@[^\s@<>]+$/.test(envelopeFrom.trim()) ? { address: envelopeFrom.trim().toLowerCase(), name: "" } : undefined
  const from = addressesOf(mail.from)[0] ?? envelope
  if (from === undefined) return malformed("The message has no usable From address")

  const kept = mail.attachments.filter((a) => a.contentType !== "message/delivery-status" || a.content.length > 0)
  if (kept.length > limits.maxAttachments) return tooLarge(`The message has ${kept.length} attachments; the limit is ${limits.maxAttachments}`)
  const attachments: Array<InboundAttachment> = []
  for (const [i, a] of kept.entries()) {
    if (a.content.length > limits.maxAttachmentBytes) {
      return tooLarge(`Attachment ${i + 1} is ${a.content.length} bytes; the limit is ${limits.maxAttachmentBytes}`)
    }
    const contentType = (a.contentType || "application/octet-stream").toLowerCase().slice(0, 127)
    attachments.push({
      filename: safeFilename(a.filename, i, contentType),
      contentType,
      contentId: a.contentId ? stripBrackets(a.contentId) : a.cid ? stripBrackets(a.cid) : null,
      content: a.content,
      size: a.content.length,
      sha256: createHash("sha256").update(a.content).digest("hex")
    })
  }

  const text = typeof mail.text === "string" ? mail.text : ""
  const html = typeof mail.html === "string" && mail.html.trim() !== "" ? sanitizeEmailHtml(mail.html) : textToHtml(text)
  const recipients = [
    ...addressesOf(mail.to), ...addressesOf(mail.cc),
    ...["delivered-to", "x-original-to", "envelope-to"].flatMap((h) => headerText(mail, h).flatMap((v) => v.split(",")).map((v) => stripBrackets(v).toLowerCase()))
  ].map((a) => (typeof a === "string" ? a : a.address))
  const messageId = idsOf(mail.messageId)[0] ?? `sha256-${createHash("sha256").update(raw).digest("hex")}@inbound.invalid`
  return {
    ok: true,
    message: {
      messageId: messageId.slice(0, 500),
      from,
      recipients: [...new Set(recipients.filter((r) => r.includes("@")))],
      subject: (mail.subject ?? "").replace(/[\r\n]+/g, " ").slice(0, 998),
      date: mail.date && !Number.isNaN(mail.date.getTime()) ? mail.date : null,
      inReplyTo: idsOf(mail.inReplyTo)[0] ?? null,
      references: idsOf(mail.references),
      html,
      text,
      snippet: snippetOf(text !== "" ? text : html.replace(/<[^>]*>/g, " ")),
      attachments,
      size: raw.length
    }
  }
}
