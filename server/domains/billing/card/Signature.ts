/**
 * Webhook signatures exactly as the card provider (Stripe) makes them: `Stripe-Signature: t=<unix s>,v1=<hex>`,
 * where v1 = HMAC-SHA256(secret, `${t}.${payload}`) over the raw payload bytes. The receiver verifies them with the
 * official SDK (`stripe.webhooks.constructEvent`); this module is the sending side (the stand-in and tests).
 */
import { createHmac } from "node:crypto"

export const stripeSignature = (payload: string | Buffer, secret: string, timestampSec: number): string => {
  const mac = createHmac("sha256", secret).update(`${timestampSec}.`).update(payload).digest("hex")
  return `t=${timestampSec},v1=${mac}`
}

/** Decodes an `application/x-www-form-urlencoded` body with bracket keys (`a[b][0][c]=v`), as the SDK sends them. */
export const parseStripeForm = (body: string): Record<string, unknown> => {
  const root: Record<string, unknown> = {}
  if (body.length === 0) return root
  for (const pair of body.split("&")) {
    if (pair === "") continue
    const i = pair.indexOf("=")
    const rawKey = decodeURIComponent((i < 0 ? pair : pair.slice(0, i)).replace(/\+/g, " "))
    const value = i < 0 ? "" : decodeURIComponent(pair.slice(i + 1).replace(/\+/g, " "))
    const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(rawKey)
    if (!m) continue
    const path = [m[1]!, ...[...m[2]!.matchAll(/\[([^[\]]*)\]/g)].map((x) => x[1]!)]
    let node: any = root
    for (let k = 0; k < path.length; k++) {
      const seg = path[k] === "" ? String(Object.keys(node).length) : path[k]!
      if (seg === "__proto__" || seg === "constructor" || seg === "prototype") break
      if (k === path.length - 1) node[seg] = value
      else {
        if (typeof node[seg] !== "object" || node[seg] === null) node[seg] = {}
        node = node[seg]
      }
    }
  }
  return toArrays(root) as Record<string, unknown>
}

/** Objects whose keys are 0..n-1 become arrays. */
const toArrays = (v: unknown): unknown => {
  if (typeof v !== "object" || v === null) return v
  const o = v as Record<string, unknown>
  const keys = Object.keys(o)
  for (const k of keys) o[k] = toArrays(o[k])
  if (keys.length > 0 && keys.every((k, i) => k === String(i))) return keys.map((k) => o[k])
  return o
}
