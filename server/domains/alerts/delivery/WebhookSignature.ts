/**
 * Outbound webhooks signed the Standard Webhooks way (https://www.standardwebhooks.com):
 *   webhook-id        the message's id, the same on every retry (receivers deduplicate on it): `alert_<delivery id>`
 *                     for one alert, `alerts_<first id>_<count>_<hash of the ids>` for a batch
 *   webhook-timestamp unix seconds of this attempt
 *   webhook-signature `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>`, key = base64-decoded secret
 *                     after its `whsec_` prefix
 * plus the address checks that keep a user's URL from reaching private networks (SSRF).
 */
import { createHash, createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from "node:crypto"

export const SECRET_PREFIX = "whsec_"

/** A fresh per-user signing secret: `whsec_` + base64 of 24 random bytes. */
export const newWebhookSecret = () => SECRET_PREFIX + randomBytes(24).toString("base64")

/** Signing keys by secret, decoded once (a round signs thousands of POSTs with a few hundred users' secrets). */
const keys = new Map<string, KeyObject>()
const KEYS_KEPT = 10_000

const keyOf = (secret: string): KeyObject => {
  let key = keys.get(secret)
  if (key === undefined) {
    key = createSecretKey(Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64"))
    if (keys.size >= KEYS_KEPT) keys.clear()
    keys.set(secret, key)
  }
  return key
}

export const sign = (secret: string, id: string, timestamp: number, body: string | Uint8Array): string => {
  const hmac = createHmac("sha256", keyOf(secret))
  hmac.update(`${id}.${timestamp}.`)
  hmac.update(body)
  return `v1,${hmac.digest("base64")}`
}

/**
 * The `webhook-id` of a message of several deliveries: named by its deliveries (`alerts_<first id>_<count>_<hash of
 * the ids>`), so the same set sent again carries the same id. A single delivery's message is `alert_<id>`.
 */
export const batchWebhookId = (deliveryIds: ReadonlyArray<number>) =>
  `alerts_${deliveryIds[0]}_${deliveryIds.length}_${createHash("sha256").update(deliveryIds.join(",")).digest("hex").slice(0, 16)}`

export const signedHeaders = (secret: string, id: string, timestamp: number, body: string) => ({
  "webhook-id": id,
  "webhook-timestamp": String(timestamp),
  "webhook-signature": sign(secret, id, timestamp, body)
})

/**
 * A receiver's check: one of the space-separated `v1,` signatures matches and the timestamp is within
 * `toleranceSeconds` of `nowSeconds`.
 */
export const verify = (
  secret: string,
  headers: { readonly id: string; readonly timestamp: string; readonly signature: string },
  body: string | Uint8Array,
  nowSeconds: number,
  toleranceSeconds = 300
): boolean => {
  const ts = Number(headers.timestamp)
  if (!Number.isInteger(ts) || Math.abs(nowSeconds - ts) > toleranceSeconds) return false
  const expected = Buffer.from(sign(secret, headers.id, ts, body).slice(3), "base64")
  return headers.signature.split(" ").some((part) => {
    if (!part.startsWith("v1,")) return false
    const given = Buffer.from(part.slice(3), "base64")
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
}
