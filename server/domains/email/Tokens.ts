/**
 * Short signed tokens of the e-mail workspace, HMAC-SHA256 over a key derived from SESSION_SECRET (HKDF, one
 * key per purpose, so a token of one purpose never passes as another):
 *
 *   reply token   `m<message id base 36>-<20 hex>` in the local part of our reply address (`reply+<token>@domain`).
 *                 Lower-case only: mail systems may fold the case of local parts. 80 bits of MAC.
 *   CSRF token    `<issued at, base 36>.<43 base64url>`, bound to the session id; valid 12 hours. Every workspace
 *                 form carries it in the `_csrf` field (or the `X-CSRF-Token` header for fetches).
 */
import { createHmac, hkdfSync, timingSafeEqual } from "node:crypto"

export type Purpose = "email-reply" | "csrf" | "email-unsubscribe" | "watchlist-quick-add" | "watchlist-interest"

export const purposeKey = (secret: string, purpose: Purpose): Buffer =>
  Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), "whale-link-v1", `purpose:${purpose}`, 32))

const mac = (key: Buffer, text: string) => createHmac("sha256", key).update(text).digest()

const same = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b)

export const replyToken = (key: Buffer, messageId: number): string =>
  `m${messageId.toString(36)}-${mac(key, `reply:${messageId}`).subarray(0, 10).toString("hex")}`

/** The outbound message id a reply token names, or null when forged or malformed. */
export const verifyReplyToken = (key: Buffer, token: string): number | null => {
  const m = /^m([0-9a-z]{1,12})-([0-9a-f]{20})$/.exec(token.toLowerCase())
  if (!m) return null
  const id = parseInt(m[1]!, 36)
  if (!Number.isSafeInteger(id) || id <= 0) return null
  return same(Buffer.from(m[2]!, "hex"), mac(key, `reply:${id}`).subarray(0, 10)) ? id : null
}

/** The reply token in an address such as `reply+m1f-….@in.example.com` (any local part `…+<token>`). */
export const replyTokenIn = (address: string): string | null => {
  const m = /^[^@+\s]+\+([0-9a-zA-Z-]+)@/.exec(address.trim().replace(/^.*</, ""))
  return m ? m[1]!.toLowerCase() : null
}

export const CSRF_TTL_SECONDS = 12 * 60 * 60

export const csrfToken = (key: Buffer, sessionId: string, nowSeconds: number): string => {
  const issued = nowSeconds.toString(36)
  return `${issued}.${mac(key, `csrf:${sessionId}:${issued}`).toString("base64url")}`
}

export const verifyCsrf = (key: Buffer, sessionId: string, token: string, nowSeconds: number): boolean => {
  const m = /^([0-9a-z]{1,10})\.([A-Za-z0-9_-]{43})$/.exec(token)
  if (!m) return false
  const issued = parseInt(m[1]!, 36)
  if (issued > nowSeconds + 60 || nowSeconds - issued > CSRF_TTL_SECONDS) return false
  return same(Buffer.from(m[2]!, "base64url"), mac(key, `csrf:${sessionId}:${m[1]}`))
}

/**
 * A compact signed, expiring link token carrying a small JSON payload: `<base64url payload>.<base64url MAC>`.
 * The payload holds `exp` (Unix seconds). Used by the watchlist's e-mailed links (quick-add `ref`, interest `s`).
 */
export const signLink = (key: Buffer, payload: Readonly<Record<string, string | number>>, expiresAtSeconds: number): string => {
  const body = Buffer.from(JSON.stringify({ ...payload, exp: expiresAtSeconds })).toString("base64url")
  return `${body}.${mac(key, body).subarray(0, 16).toString("base64url")}`
}

export type LinkCheck = { readonly ok: true; readonly payload: Readonly<Record<string, unknown>> } | { readonly ok: false; readonly reason: "invalid" | "expired" }

export const verifyLink = (key: Buffer, token: string, nowSeconds: number): LinkCheck => {
  const m = /^([A-Za-z0-9_-]{1,2000})\.([A-Za-z0-9_-]{22})$/.exec(token.trim())
  if (!m || !same(Buffer.from(m[2]!, "base64url"), mac(key, m[1]!).subarray(0, 16))) return { ok: false, reason: "invalid" }
  let payload: unknown
  try {
    payload = JSON.parse(Buffer.from(m[1]!, "base64url").toString("utf8"))
  } catch {
    return { ok: false, reason: "invalid" }
  }
  if (typeof payload !== "object" || payload === null || typeof (payload as { exp?: unknown }).exp !== "number") return { ok: false, reason: "invalid" }
  if ((payload as { exp: number }).exp < nowSeconds) return { ok: false, reason: "expired" }
  return { ok: true, payload: payload as Record<string, unknown> }
}
