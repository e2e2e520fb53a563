/**
 * The card journey end to end, through the official SDK against the local stand-in of the provider: checkout →
 * signed webhooks → tier up; portal; switch to yearly on the hosted confirmation page; cancel (access until the
 * period end, then down, under a controlled clock); downgrade with its pending change.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { waitFor } from "../support/wait"
import { count, post, signedInUser, startBillingApp, tierOf, type BillingTestApp, type SignedInUser } from "./support/billingApp"
import { DAY_MS } from "./support/clock"

let t: BillingTestApp
let user: SignedInUser

beforeAll(async () => {
  t = await startBillingApp()
  user = await signedInUser(t.app, "card-buyer@example.com")
})
afterAll(async () => {
  await t?.close()
})

const status = async (u = user) => (await fetch(`${t.app.url}/api/billing/status`, { headers: u.headers }).then((r) => r.json())) as any

describe("card checkout → webhook → tier", () => {
  it("needs a signed-in user and a valid body", async () => {
    expect((await post(t.app, "/api/subscribe/cardprocessor", { "content-type": "application/json" }, { tier: "pro" })).status).toBe(401)
    const bad = await post(t.app, "/api/subscribe/cardprocessor", user.headers, { tier: "platinum" })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0].loc).toEqual(["body", "tier"])
  })

  it("has no portal before a card customer exists", async () => {
    const res = await post(t.app, "/api/billing/portal", user.headers)
    expect(res.status).toBe(409)
    expect(res.body.code).toBe("no_card_customer")
  })

  it("creates a hosted checkout session tied to the user, with one customer per user", async () => {
    const a = await post(t.app, "/api/subscribe/cardprocessor", user.headers, { tier: "pro", interval: "monthly" })
    const b = await post(t.app, "/api/subscribe/cardprocessor", user.headers, { tier: "pro", interval: "monthly" })
    expect(a.status).toBe(200)
    expect(a.body.url).toMatch(/\/checkout\/cs_test_/)
    const sa = t.stripe.sessions.get(a.body.id)!
    const sb = t.stripe.sessions.get(b.body.id)!
    expect(sa.mode).toBe("subscription")
    expect(sa.client_reference_id).toBe(String(user.id))
    expect(sa.metadata).toMatchObject({ user_id: String(user.id), tier: "pro" })
    expect(sa._subscription_metadata).toMatchObject({ user_id: String(user.id), tier: "pro" })
    expect(sa.customer).toBe(sb.customer)
    expect(t.stripe.customers.size).toBe(1)
    // Without STRIPE_PRICES the price comes inline from our pricing table: pro monthly is $29.
    expect(t.stripe.prices.get(sa._price)).toMatchObject({ unit_amount: 2900, recurring: { interval: "month" } })
    expect(await tierOf(t.app, user.headers)).toBe("free")
  })

  it("raises the tier once the provider's signed webhooks arrive", async () => {
    const session = [...t.stripe.sessions.values()][0]!
    t.stripe.completeCheckout(session.id)
    await waitFor(async () => (await tierOf(t.app, user.headers)) === "pro", 10_000)
    const s = await status()
    expect(s.subscription).toMatchObject({ provider: "card", tier: "pro", interval: "monthly", status: "active", price_usd: 29, cancel_at_period_end: false })
    await waitFor(async () => (await count(t.app, "SELECT count(*) AS n FROM billing_events WHERE provider = 'card'")) >= 3, 5_000)
    const outcomes = await t.app.query<{ type: string; outcome: string }>("SELECT type, outcome FROM billing_events ORDER BY type")
    expect(outcomes.map((o) => o.type)).toEqual(["checkout.session.completed", "customer.subscription.created", "invoice.paid"])
    expect(await count(t.app, "SELECT count(*) AS n FROM subscription_history WHERE user_id = $1 AND change = 'created'", [user.id])).toBe(1)
  })

  it("refuses a second checkout while subscribed, and opens the portal", async () => {
    const again = await post(t.app, "/api/subscribe/cardprocessor", user.headers, { tier: "alpha" })
    expect(again.status).toBe(409)
    expect(again.body.code).toBe("already_subscribed")
    const portal = await post(t.app, "/api/billing/portal", user.headers)
    expect(portal.status).toBe(200)
    expect(portal.body.url).toMatch(/\/portal\/bps_/)
  })

  it("switches monthly to yearly at the founding price only through the hosted confirmation", async () => {
    const res = await post(t.app, "/api/billing/switch-yearly", user.headers)
    expect(res.status).toBe(200)
    const portal = t.stripe.portals.get(res.body.id)!
    expect(portal.flow.type).toBe("subscription_update_confirm")
    const price = t.stripe.prices.get(portal.flow.subscription_update_confirm.items[0].price)!
    expect(price).toMatchObject({ unit_amount: 23200, recurring: { interval: "year" } })
    // Nothing changed (and nothing was charged) before the customer confirms.
    expect((await status()).subscription.interval).toBe("monthly")
    t.stripe.confirmPortalUpdate(portal.id)
    await waitFor(async () => (await status()).subscription.interval === "yearly", 10_000)
    expect((await status()).subscription.price_usd).toBe(232)
    const again = await post(t.app, "/api/billing/switch-yearly", user.headers)
    expect(again.body.code).toBe("already_yearly")
  })

  it("cancels at period end: access stays until then, goes after (controlled clock)", async () => {
    const res = await post(t.app, "/api/subscribe/cancel", user.headers, { reason: "too_expensive" })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ cancel_at_period_end: true, cancel_reason: "too_expensive" })
    const sub = [...t.stripe.subscriptions.values()][0]!
    expect(sub.cancel_at_period_end).toBe(true)
    expect(sub.cancellation_details.feedback).toBe("too_expensive")
    expect(await tierOf(t.app, user.headers)).toBe("pro")
    await waitFor(async () => (await count(t.app, "SELECT count(*) AS n FROM email_outbox WHERE kind = 'cancellation' AND user_id = $1", [user.id])) === 1, 5_000)

    const end = new Date(res.body.current_period_end).getTime()
    t.clock.advance(end - t.clock.now() - DAY_MS)
    expect(await tierOf(t.app, user.headers)).toBe("pro")
    t.clock.advance(2 * DAY_MS)
    expect(await tierOf(t.app, user.headers)).toBe("free")
    // The provider ends it at the period end; the row follows.
    t.stripe.reachPeriodEnd(sub.id)
    await waitFor(async () => (await status()).subscription.status === "canceled", 10_000)
    expect(await tierOf(t.app, user.headers)).toBe("free")
  })

  it("downgrades: cancel now, keep access to the period end, a pending change the user sees", async () => {
    const other = await signedInUser(t.app, "downgrader@example.com")
    const checkout = await post(t.app, "/api/subscribe/cardprocessor", other.headers, { tier: "whale", interval: "monthly" })
    t.stripe.completeCheckout(checkout.body.id)
    await waitFor(async () => (await tierOf(t.app, other.headers)) === "whale", 10_000)
    expect((await post(t.app, "/api/subscribe/downgrade", other.headers, { tier: "whale" })).body.code).toBe("not_a_downgrade")
    const res = await post(t.app, "/api/subscribe/downgrade", other.headers, { tier: "pro" })
    expect(res.status).toBe(200)
    expect(res.body.cancel_at_period_end).toBe(true)
    expect(res.body.pending_change).toMatchObject({ tier: "pro", interval: "monthly" })
    expect(await tierOf(t.app, other.headers)).toBe("whale")
    const view = await status(other)
    expect(view.subscription.pending_change.effective_at).toBe(view.subscription.current_period_end)

    // After the period end the drip-mailer re-subscribes at the lower tier on the saved payment method.
    t.clock.advance(new Date(view.subscription.current_period_end).getTime() - t.clock.now() + 60_000)
    const sub = [...t.stripe.subscriptions.values()].find((s) => s.metadata.user_id === String(other.id) && s.metadata.tier === "whale")!
    t.stripe.reachPeriodEnd(sub.id)
    await waitFor(async () => (await tierOf(t.app, other.headers)) === "pro", 10_000)
    const after = await status(other)
    expect(after.subscription).toMatchObject({ tier: "pro", status: "active", pending_change: null, cancel_at_period_end: false })
    // The history row is written with the change; wait for it rather than read it at once (a loaded machine).
    await waitFor(async () => (await count(t.app, "SELECT count(*) AS n FROM subscription_history WHERE user_id = $1 AND change = 'pending_change_applied'", [other.id])) >= 1, 10_000)
    expect(await count(t.app, "SELECT count(*) AS n FROM subscription_history WHERE user_id = $1 AND change = 'pending_change_applied'", [other.id])).toBe(1)
    // The pending change was applied once, whatever the number of rounds since.
    expect([...t.stripe.subscriptions.values()].filter((s) => s.metadata.user_id === String(other.id))).toHaveLength(2)
  })

  it("keeps bookkeeping of an abandoned cancel flow without touching the subscription", async () => {
    const res = await post(t.app, "/api/subscribe/cancel-feedback", user.headers, { reason: "stayed" })
    expect(res.status).toBe(200)
    expect((await post(t.app, "/api/subscribe/cancel-feedback", user.headers, { reason: "bored" })).status).toBe(422)
    expect(await count(t.app, "SELECT count(*) AS n FROM cancel_feedback WHERE user_id = $1 AND kind = 'flow_outcome'", [user.id])).toBe(1)
  })
})
