/**
 * Signature scheme of the delivery-event webhook (`POST /webhooks/emailprovider`), Standard Webhooks style
 * (https://www.standardwebhooks.com, the scheme Svix-based providers such as Resend use):
 *
 *   webhook-id         the event's unique id (also the idempotency key)
 *   webhook-timestamp  Unix seconds when it was sent; refused when more than 5 minutes from our clock
 *   webhook-signature  space-separated `v1,<base64 HMAC-SHA256>` entries; one matching entry is enough (key rotation)
 *
 * signed content = `${webhook-id}.${webhook-timestamp}.${raw body bytes}`; the key is the secret's bytes: a
 * `whsec_<base64>` secret is base64-decoded, any other secret is used as its UTF-8 bytes. `svix-id`,
 * `svix-timestamp` and `svix-signature` are accepted as the same headers.
 */
import { createHmac, timingSafeEqual } from "node:crypto"

export const SIGNATURE_TOLERANCE_SECONDS = 5 * 60

export const webhookKey = (secret: string): Buffer =>
  secret.startsWith("whsec_") ? Buffer.from(secret.slice("whsec_".length), "base64") : Buffer.from(secret, "utf8")

export const signPayload = (secret: string, id: string, timestamp: number, body: Buffer | string): string =>
  createHmac("sha256", webhookKey(secret))
    .update(`${id}.${timestamp}.`)
    .update(typeof body === "string" ? Buffer.from(body, "utf8") : body)
    .digest("base64")

/** The three headers of a signed delivery (what the provider sends; tests sign with it). */
export const signatureHeaders = (secret: string, id: string, timestamp: number, body: Buffer | string) => ({
  "webhook-id": id,
  "webhook-timestamp": String(timestamp),
  "webhook-signature": `v1,${signPayload(secret, id, timestamp, body)}`
})

export type SignatureProblem = "missing_headers" | "bad_timestamp" | "stale_timestamp" | "bad_signature"

export type SignatureCheck = { readonly ok: true; readonly id: string; readonly timestamp: number } | { readonly ok: false; readonly problem: SignatureProblem }

export const verifySignature = (input: {
  readonly secrets: ReadonlyArray<string>
  readonly header: (name: string) => string | undefined
  readonly body: Buffer
  readonly nowSeconds: number
  readonly toleranceSeconds?: number
}): SignatureCheck => {
  const get = (name: string) => input.header(`webhook-${name}`) ?? input.header(`svix-${name}`)
  const id = get("id")
  const ts = get("timestamp")
  const sig = get("signature")
  if (!id || !ts || !sig || id.length > 256) return { ok: false, problem: "missing_headers" }
  if (!/^\d{1,12}$/.test(ts)) return { ok: false, problem: "bad_timestamp" }
  const timestamp = Number(ts)
  if (Math.abs(input.nowSeconds - timestamp) > (input.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS)) return { ok: false, problem: "stale_timestamp" }
  const given = sig.split(" ").flatMap((entry) => {
    const [version, value] = entry.split(",", 2)
    return version === "v1" && value ? [Buffer.from(value, "base64")] : []
  })
  for (const secret of input.secrets) {
    const expected = Buffer.from(signPayload(secret, id, timestamp, input.body), "base64")
    if (given.some((g) => g.length === expected.length && timingSafeEqual(g, expected))) return { ok: true, id, timestamp }
  }
  return { ok: false, problem: "bad_signature" }
}
