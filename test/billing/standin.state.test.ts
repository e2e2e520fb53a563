/**
 * The embedded default's card and crypto stand-ins remember what the real providers would across a restart of the
 * service (one JSON file under DATA_DIR): a customer created before the restart still opens the portal after it,
 * through the official SDK, and a crypto invoice is still there to pay.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import Stripe from "stripe"
import { afterAll, describe, expect, it } from "vitest"
import { StripeStandIn } from "../../server/domains/billing/card/StandIn"
import { CryptoStandIn } from "../../server/domains/billing/crypto/StandIn"

const dir = mkdtempSync(join(tmpdir(), "whale-standin-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const sdk = (url: string) => new Stripe("sk_test_state", { host: "127.0.0.1", port: Number(new URL(url).port), protocol: "http", telemetry: false })

describe("payment stand-ins across a restart", () => {
  it("keeps card customers, subscriptions and prices, so the portal opens after a restart", async () => {
    const file = join(dir, "card.json")
    const options = { apiKey: "sk_test_state", webhookSecret: "whsec_state", pageBase: "/billing/test-payments", stateFile: file }
    const first = new StripeStandIn(options)
    const stripe = sdk(await first.start())
    const customer = await stripe.customers.create({ email: "kept@example.com" })
    const session = await stripe.checkout.sessions.create({
      mode: "subscription", customer: customer.id, success_url: "http://x/ok", cancel_url: "http://x/no",
      line_items: [{ quantity: 1, price_data: { currency: "usd", unit_amount: 2900, recurring: { interval: "month" }, product_data: { name: "Pro" } } }]
    })
    const sub = first.completeCheckout(session.id)
    await first.stop()

    const second = new StripeStandIn(options)
    const again = sdk(await second.start())
    try {
      const portal = await again.billingPortal.sessions.create({ customer: customer.id, return_url: "http://x/billing" })
      expect(portal.url).toContain("/portal/bps_")
      const kept = await again.subscriptions.retrieve(sub.id)
      expect(kept).toMatchObject({ customer: customer.id, status: "active" })
      expect(kept.items.data[0]!.price.unit_amount).toBe(2900)
      await expect(again.customers.retrieve("cus_unknown")).rejects.toMatchObject({ statusCode: 404 })
    } finally {
      await second.stop()
    }
  })

  it("keeps crypto invoices", async () => {
    const file = join(dir, "crypto.json")
    const options = { apiKey: "k", ipnSecret: "s", pageBase: "/billing/test-payments", stateFile: file }
    const first = new CryptoStandIn(options)
    const url = await first.start()
    const res = await fetch(`${url}/v1/invoice`, { method: "POST", headers: { "x-api-key": "k", "content-type": "application/json" }, body: JSON.stringify({ price_amount: 29, order_id: "u1" }) })
    const invoice = (await res.json()) as { id: string }
    await first.stop()
    const second = new CryptoStandIn(options)
    await second.start()
    try {
      expect(second.invoices.get(invoice.id)).toMatchObject({ price_amount: "29", order_id: "u1" })
    } finally {
      await second.stop()
    }
  })
})
