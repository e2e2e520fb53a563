import { describe, expect, it } from "vitest"
import { signatureHeaders, verifySignature } from "../../server/domains/email/DeliverySignature"
import { csrfToken, purposeKey, replyToken, replyTokenIn, signLink, verifyCsrf, verifyLink, verifyReplyToken } from "../../server/domains/email/Tokens"

const SECRET = `whsec_${Buffer.from("delivery-test-secret-32-bytes!!!").toString("base64")}`
const body = Buffer.from(JSON.stringify({ type: "email.delivered", data: { to: ["a@b.example"] } }))

const check = (headers: Record<string, string>, b = body, now = 1_800_000_000, secrets = [SECRET]) =>
  verifySignature({ secrets, header: (n) => headers[n], body: b, nowSeconds: now })

describe("delivery-event signatures (Standard Webhooks)", () => {
  it("accepts a correctly signed event within five minutes", () => {
    expect(check(signatureHeaders(SECRET, "evt_1", 1_800_000_000 - 299, body))).toEqual({ ok: true, id: "evt_1", timestamp: 1_800_000_000 - 299 })
    expect(check(signatureHeaders(SECRET, "evt_1", 1_800_000_000 + 299, body)).ok).toBe(true)
  })
  it("refuses stale or future timestamps, forged signatures, changed bodies and missing headers", () => {
    expect(check(signatureHeaders(SECRET, "evt_1", 1_800_000_000 - 301, body))).toEqual({ ok: false, problem: "stale_timestamp" })
    expect(check(signatureHeaders(SECRET, "evt_1", 1_800_000_000 + 301, body))).toEqual({ ok: false, problem: "stale_timestamp" })
    const forged = signatureHeaders(`whsec_${Buffer.from("another secret").toString("base64")}`, "evt_1", 1_800_000_000, body)
    expect(check(forged)).toEqual({ ok: false, problem: "bad_signature" })
    expect(check(signatureHeaders(SECRET, "evt_1", 1_800_000_000, body), Buffer.concat([body, Buffer.from(" ")]))).toEqual({ ok: false, problem: "bad_signature" })
    const h = signatureHeaders(SECRET, "evt_1", 1_800_000_000, body)
    expect(check({ ...h, "webhook-id": "evt_2" })).toEqual({ ok: false, problem: "bad_signature" })
    expect(check({ "webhook-id": "x", "webhook-timestamp": "1800000000" })).toEqual({ ok: false, problem: "missing_headers" })
    expect(check({ ...h, "webhook-timestamp": "12e3" })).toEqual({ ok: false, problem: "bad_timestamp" })
  })
  it("accepts any matching entry of a rotated signature list, and svix-* header names", () => {
    const h = signatureHeaders(SECRET, "evt_1", 1_800_000_000, body)
    expect(check({ ...h, "webhook-signature": `v1,AAAA v2,xyz ${h["webhook-signature"]}` }).ok).toBe(true)
    expect(check({ "svix-id": "evt_1", "svix-timestamp": h["webhook-timestamp"], "svix-signature": h["webhook-signature"] }).ok).toBe(true)
    expect(check(h, body, 1_800_000_000, ["old-plain-secret", SECRET]).ok).toBe(true)
  })
})

describe("workspace tokens", () => {
  const key = purposeKey("session-secret-for-tests", "email-reply")
  it("reply tokens name their message, survive case folding and refuse forgeries", () => {
    const t = replyToken(key, 12345)
    expect(t).toMatch(/^m[0-9a-z]+-[0-9a-f]{20}$/)
    expect(verifyReplyToken(key, t)).toBe(12345)
    expect(verifyReplyToken(key, t.toUpperCase())).toBe(12345)
    expect(verifyReplyToken(key, replyToken(key, 12346).replace(/^m[0-9a-z]+/, "m9ix"))).toBeNull()
    expect(verifyReplyToken(purposeKey("session-secret-for-tests", "csrf"), t)).toBeNull()
    expect(replyTokenIn(`Reply <reply+${t}@in.whale.test>`)).toBe(t)
    expect(replyTokenIn("someone@example.org")).toBeNull()
  })
  it("CSRF tokens are bound to the session and expire after 12 hours", () => {
    const k = purposeKey("s", "csrf")
    const t = csrfToken(k, "sid-1", 1_000_000)
    expect(verifyCsrf(k, "sid-1", t, 1_000_000 + 60)).toBe(true)
    expect(verifyCsrf(k, "sid-2", t, 1_000_000 + 60)).toBe(false)
    expect(verifyCsrf(k, "sid-1", t, 1_000_000 + 12 * 3600 + 1)).toBe(false)
    expect(verifyCsrf(k, "sid-1", "", 1_000_000)).toBe(false)
    expect(verifyCsrf(purposeKey("s", "email-reply"), "sid-1", t, 1_000_000)).toBe(false)
  })
  it("link tokens carry a payload, expire, and refuse tampering", () => {
    const k = purposeKey("s", "watchlist-quick-add")
    const t = signLink(k, { t: "0xabc", e: "a@b.c" }, 2000)
    expect(verifyLink(k, t, 1999)).toEqual({ ok: true, payload: { t: "0xabc", e: "a@b.c", exp: 2000 } })
    expect(verifyLink(k, t, 2001)).toEqual({ ok: false, reason: "expired" })
    const [body, sig] = t.split(".")
    const other = Buffer.from(JSON.stringify({ t: "0xdef", e: "a@b.c", exp: 9999 })).toString("base64url")
    expect(verifyLink(k, `${other}.${sig}`, 1000)).toEqual({ ok: false, reason: "invalid" })
    expect(verifyLink(purposeKey("s", "watchlist-interest"), `${body}.${sig}`, 1000)).toEqual({ ok: false, reason: "invalid" })
    expect(verifyLink(k, "garbage", 1000)).toEqual({ ok: false, reason: "invalid" })
  })
})
