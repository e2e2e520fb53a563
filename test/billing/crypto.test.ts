/**
 * Paying by crypto against the local stand-in of a NOWPayments-style processor. No captured IPN bodies exist:
 * the IPNs here follow the provider's documented example (payment_id, invoice_id, payment_status, price_amount,
 * price_currency, pay_amount, actually_paid, pay_currency, order_id, …), signed as documented
 * (`x-nowpayments-sig` = HMAC-SHA512 of the key-sorted JSON body with the IPN secret).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ipnSignature } from "../../server/domains/billing/crypto/Signature"
import { count, IPN_SECRET, post, signedInUser, startBillingApp, tierOf, type BillingTestApp, type SignedInUser } from "./support/billingApp"
import { DAY_MS } from "./support/clock"

let t: BillingTestApp
let user: SignedInUser

beforeAll(async () => {
  t = await startBillingApp()
  user = await signedInUser(t.app, "crypto-payer@example.com")
})
afterAll(async () => {
  await t?.close()
})

const periodEnd = async () => {
  const [row] = await t.app.query<{ current_period_end: Date }>("SELECT current_period_end FROM subscriptions WHERE user_id = $1 AND provider = 'crypto'", [user.id])
  return row?.current_period_end ? new Date(row.current_period_end).getTime() : undefined
}

const invoiceFor = async (tier: string, interval = "monthly", currency?: string) => {
  const res = await post(t.app, "/api/subscribe/crypto", user.headers, { tier, interval, ...(currency ? { currency } : {}) })
  expect(res.status).toBe(200)
  return { ...res.body, providerId: new URL(res.body.invoice_url).pathname.split("/").pop()! }
}

describe("crypto payments", () => {
  it("lists the accepted currencies (cached)", async () => {
    const a = await fetch(`${t.app.url}/api/crypto/currencies`).then((r) => r.json())
    expect(a.currencies).toContain("btc")
    expect(a.test_payments).toBe(false)
  })

  it("creates an invoice for the tier's price and refuses an unknown currency", async () => {
    const inv = await invoiceFor("alpha", "monthly", "eth")
    expect(inv).toMatchObject({ price_usd: 79, tier: "alpha" })
    expect(t.crypto.invoices.get(inv.providerId)).toMatchObject({ price_amount: "79", price_currency: "usd", pay_currency: "eth", order_id: inv.id })
    const bad = await post(t.app, "/api/subscribe/crypto", user.headers, { tier: "alpha", currency: "doge" })
    expect(bad.status).toBe(409)
    expect(bad.body.code).toBe("unknown_currency")
    expect((await post(t.app, "/api/subscribe/crypto", user.headers, { tier: "alpha", currency: "$$" })).status).toBe(422)
  })

  it("does not activate on partially_paid, failed or expired", async () => {
    const inv = await invoiceFor("whale")
    await t.crypto.payPartially(inv.providerId)
    await t.crypto.expire(inv.providerId)
    expect(t.crypto.ipns.every((i) => i.status === 200)).toBe(true)
    expect(await tierOf(t.app, user.headers)).toBe("free")
  })

  it("activates on finished: invoice → IPN → tier up, once per payment id and status", async () => {
    const inv = await invoiceFor("alpha")
    const paymentId = await t.crypto.pay(inv.providerId)
    expect(await tierOf(t.app, user.headers)).toBe("alpha")
    const end = await periodEnd()
    const history = await count(t.app, "SELECT count(*) AS n FROM subscription_history WHERE user_id = $1", [user.id])
    // The same finished IPN again: 200, nothing more.
    const last = t.crypto.ipns.at(-1)!
    const again = await fetch(`${t.app.url}/webhooks/cryptoprocessor`, { method: "POST", headers: { "content-type": "application/json", "x-nowpayments-sig": last.signature }, body: last.body })
    expect(again.status).toBe(200)
    expect((await again.json()).duplicate).toBe(true)
    // Another payment for the same invoice does not extend twice.
    await t.crypto.send(t.crypto.ipnBody(inv.providerId, paymentId + 1, "finished"))
    expect(await periodEnd()).toBe(end)
    expect(await count(t.app, "SELECT count(*) AS n FROM subscription_history WHERE user_id = $1", [user.id])).toBe(history)
    expect(await count(t.app, "SELECT count(*) AS n FROM crypto_payments WHERE payment_id = $1", [String(paymentId)])).toBe(3)
  })

  it("extends the running period by one period on the next paid invoice", async () => {
    const before = (await periodEnd())!
    const inv = await invoiceFor("alpha")
    await t.crypto.pay(inv.providerId)
    const after = (await periodEnd())!
    expect(after - before).toBeGreaterThanOrEqual(28 * DAY_MS)
    expect(after - before).toBeLessThanOrEqual(31 * DAY_MS)
  })

  it("refuses forged or tampered IPNs and amounts that are not the invoice's", async () => {
    const inv = await invoiceFor("whale")
    const body = t.crypto.ipnBody(inv.providerId, 4242, "finished")
    const forged = await t.crypto.send(body, ipnSignature(body, "not-the-secret"))
    expect(forged).toBe(400)
    const tampered = await t.crypto.send({ ...body, price_amount: 1 }, ipnSignature(body, IPN_SECRET))
    expect(tampered).toBe(400)
    expect(await t.crypto.send(body, "")).toBe(400)
    const res = await fetch(`${t.app.url}/webhooks/cryptoprocessor`, { method: "POST", headers: { "content-type": "application/json", "x-nowpayments-sig": "00" }, body: "not json" })
    expect(res.status).toBe(400)
    // Correctly signed but for a different amount than invoiced: recorded, no activation.
    const cheap = t.crypto.ipnBody(inv.providerId, 4343, "finished", 1, { price_amount: 1 })
    expect(await t.crypto.send(cheap)).toBe(200)
    const [p] = await t.app.query<{ outcome: string }>("SELECT outcome FROM crypto_payments WHERE payment_id = '4343'")
    expect(p!.outcome).toBe("amount_mismatch")
    expect(await count(t.app, "SELECT count(*) AS n FROM crypto_payments WHERE payment_id = '4242'")).toBe(0)
    expect(await tierOf(t.app, user.headers)).toBe("alpha")
  })

  it("lets a crypto period run out (no renewal)", async () => {
    const end = (await periodEnd())!
    t.clock.advance(end - t.clock.now() + 60_000)
    expect(await tierOf(t.app, user.headers)).toBe("free")
  })
})
