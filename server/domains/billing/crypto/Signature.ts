/**
 * The crypto processor's IPN signature (NOWPayments): `x-nowpayments-sig` = hex HMAC-SHA512, keyed with the IPN
 * secret, of the JSON body with its keys sorted (recursively), serialised without spaces. Compared in constant time.
 */
import { createHmac, timingSafeEqual } from "node:crypto"

export const sortKeys = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(sortKeys)
  if (v !== null && typeof v === "object") {
    return Object.fromEntries(Object.keys(v as object).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]))
  }
  return v
}

export const ipnSignature = (body: unknown, secret: string): string =>
  createHmac("sha512", secret).update(JSON.stringify(sortKeys(body))).digest("hex")

export const verifyIpnSignature = (body: unknown, header: string | undefined, secret: string): boolean => {
  if (!header || !/^[0-9a-f]{128}$/i.test(header)) return false
  const expected = Buffer.from(ipnSignature(body, secret), "hex")
  const given = Buffer.from(header.toLowerCase(), "hex")
  return given.length === expected.length && timingSafeEqual(given, expected)
}
