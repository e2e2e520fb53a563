/**
 * The card webhook receiver against real Stripe event envelopes (../shared/fixtures/stripe-events, captured from
 * Stripe, api_version 2020-03-02), adapted to our ids and signed here with a test secret exactly as Stripe signs:
 * valid, replayed, tampered, stale, future, wrongly signed, shuffled and out of order, unknown customer and type.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { requireFixtures } from "../support/fixtures"
import { count, postCardEvent, signedInUser, startBillingApp, stripeFixture, tierOf, type BillingTestApp, type SignedInUser } from "./support/billingApp"
import { DAY_MS } from "./support/clock"

const fx = requireFixtures("stripe-events/subscription_created.json", "stripe-events/subscription_updated.json", "stripe-events/subscription_deleted.json", "stripe-events/invoice_paid.json")

describe.skipIf(!fx.available)(`card webhook with real event envelopes${fx.skipNote}`, () => {
  let t: BillingTestApp
  let user: SignedInUser
  const CUSTOMER = "cus_ourTestCustomer01"

  beforeAll(async () => {
    t = await startBillingApp({ autoDeliver: false })
    user = await signedInUser(t.app, "webhooks@example.com")
    await t.app.query("INSERT INTO billing_customers (user_id, provider_customer_id) VALUES ($1, $2)", [user.id, CUSTOMER])
  })
  afterAll(async () => {
    await t?.close()
  })

  const nowSec = () => Math.floor(t.clock.now() / 1000)

  /** A fixture adapted to our ids: our customer, our tier in the metadata, a period ending in the future. */
  const adapt = (name: string, opts: { subscription?: string; created?: number; tier?: string; id?: string; status?: string; cancelAtPeriodEnd?: boolean } = {}) => {
    const e = stripeFixture(name)
    const o = e.data.object
    e.id = opts.id ?? `${e.id}_${Math.random().toString(36).slice(2, 8)}`
    e.created = opts.created ?? nowSec()
    o.customer = CUSTOMER
    if (o.object === "subscription") {
      o.id = opts.subscription ?? o.id
      o.metadata = { ...o.metadata, user_id: String(user.id), tier: opts.tier ?? "alpha" }
      o.current_period_end = nowSec() + 30 * 86_400
      if (opts.status) o.status = opts.status
      if (opts.cancelAtPeriodEnd !== undefined) o.cancel_at_period_end = opts.cancelAtPeriodEnd
    }
    if (o.object === "invoice") o.subscription = opts.subscription ?? o.subscription
    return JSON.stringify(e, null, 2)
  }

  const rowOf = async (sub: string) =>
    (await t.app.query<{ status: string; tier: string; cancel_at_period_end: boolean }>("SELECT status, tier, cancel_at_period_end FROM subscriptions WHERE provider_subscription_id = $1", [sub]))[0]

  it("applies a signed subscription event: the tier follows", async () => {
    const payload = adapt("subscription_created.json", { subscription: "sub_first", id: "evt_first_created" })
    const res = await postCardEvent(t.app, payload, { now: t.clock.now() })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ received: true, outcome: "created", duplicate: false })
    expect(await tierOf(t.app, user.headers)).toBe("alpha")
  })

  it("answers a replay 200 with no second effect", async () => {
    const before = await count(t.app, "SELECT count(*) AS n FROM subscription_history")
    const payload = adapt("subscription_created.json", { subscription: "sub_first", id: "evt_first_created" })
    const res = await postCardEvent(t.app, payload, { now: t.clock.now() })
    expect(res.status).toBe(200)
    expect(res.body.duplicate).toBe(true)
    expect(await count(t.app, "SELECT count(*) AS n FROM subscription_history")).toBe(before)
    expect(await count(t.app, "SELECT count(*) AS n FROM billing_events WHERE event_id = 'evt_first_created'")).toBe(1)
  })

  it("refuses tampered bodies, stale or future timestamps, wrong secrets and missing signatures, changing nothing", async () => {
    const events = await count(t.app, "SELECT count(*) AS n FROM billing_events")
    const payload = adapt("subscription_updated.json", { subscription: "sub_first", status: "canceled" })
    const signed = await import("../../server/domains/billing/card/Signature").then((m) => m.stripeSignature(payload, "whsec_test_billing_0123456789abcdef", nowSec()))
    const tampered = payload.replace('"canceled"', '"active"  ')
    const cases = [
      await postCardEvent(t.app, tampered, { now: t.clock.now(), signature: signed }),
      await postCardEvent(t.app, payload, { now: t.clock.now(), timestampSec: nowSec() - 301 }),
      await postCardEvent(t.app, payload, { now: t.clock.now(), timestampSec: nowSec() + 3600 }),
      await postCardEvent(t.app, payload, { now: t.clock.now(), secret: "whsec_someone_else" }),
      await postCardEvent(t.app, payload, { now: t.clock.now(), signature: "t=1,v0=abc" })
    ]
    for (const c of cases) {
      expect(c.status).toBe(400)
      expect(c.body.code).toBe("bad_signature")
    }
    const missing = await fetch(`${t.app.url}/webhooks/cardprocessor`, { method: "POST", headers: { "content-type": "application/json" }, body: payload })
    expect(missing.status).toBe(400)
    expect(await count(t.app, "SELECT count(*) AS n FROM billing_events")).toBe(events)
    expect((await rowOf("sub_first"))!.status).toBe("active")
    // Within the tolerance (299 s old) the same event is taken.
    expect((await postCardEvent(t.app, payload, { now: t.clock.now(), timestampSec: nowSec() - 299 })).status).toBe(200)
    expect((await rowOf("sub_first"))!.status).toBe("canceled")
  })

  it("ends shuffled deliveries in the newest state, whatever the order", async () => {
    const base = nowSec() - 100
    const created = adapt("subscription_created.json", { subscription: "sub_shuffle", created: base, tier: "pro" })
    const updated = adapt("subscription_updated.json", { subscription: "sub_shuffle", created: base + 10, tier: "pro", cancelAtPeriodEnd: true })
    const deleted = adapt("subscription_deleted.json", { subscription: "sub_shuffle", created: base + 20, tier: "pro" })
    for (const p of [deleted, created, updated]) expect((await postCardEvent(t.app, p, { now: t.clock.now() })).status).toBe(200)
    expect((await rowOf("sub_shuffle"))!.status).toBe("canceled")
    const outcomes = (await t.app.query<{ outcome: string }>("SELECT outcome FROM billing_events WHERE object_id = 'sub_shuffle' ORDER BY received_at")).map((r) => r.outcome)
    expect(outcomes).toEqual(["created", "stale", "stale"])

    // An `updated` before its `created`, then an old `updated` after a newer one.
    const c2 = adapt("subscription_created.json", { subscription: "sub_order", created: base, tier: "pro" })
    const u1 = adapt("subscription_updated.json", { subscription: "sub_order", created: base + 10, tier: "pro", cancelAtPeriodEnd: false })
    const u2 = adapt("subscription_updated.json", { subscription: "sub_order", created: base + 20, tier: "pro", cancelAtPeriodEnd: true })
    for (const p of [u2, c2, u1]) expect((await postCardEvent(t.app, p, { now: t.clock.now() })).status).toBe(200)
    expect(await rowOf("sub_order")).toMatchObject({ status: "active", cancel_at_period_end: true })
  })

  it("records an event of an unknown customer and answers 200", async () => {
    const raw = JSON.stringify(stripeFixture("subscription_created.json"))
    const res = await postCardEvent(t.app, raw, { now: t.clock.now() })
    expect(res.status).toBe(200)
    expect(res.body.outcome).toBe("unknown_customer")
    expect(await count(t.app, "SELECT count(*) AS n FROM subscriptions WHERE provider_subscription_id = 'sub_JdIzvfy6o5GZRd'")).toBe(0)
  })

  it("records an unknown event type and answers 200", async () => {
    const raw = JSON.stringify(stripeFixture("charge_succeeded.json"))
    const res = await postCardEvent(t.app, raw, { now: t.clock.now() })
    expect(res.status).toBe(200)
    expect(res.body.outcome).toBe("ignored_type")
    const again = await postCardEvent(t.app, raw, { now: t.clock.now() })
    expect(again.body.duplicate).toBe(true)
  })

  it("records a paid invoice against its subscription", async () => {
    const payload = adapt("invoice_paid.json", { subscription: "sub_order" })
    const res = await postCardEvent(t.app, payload, { now: t.clock.now() })
    expect(res.status).toBe(200)
    expect(res.body.outcome).toBe("applied")
    const [row] = await t.app.query<{ provider_invoice_id: string }>("SELECT provider_invoice_id FROM subscriptions WHERE provider_subscription_id = 'sub_order'")
    expect(row!.provider_invoice_id).toBe("in_1KJqKBJDPojXS6LNJbvLUgEy")
  })

  it("keeps the history append-only", async () => {
    const rows = await count(t.app, "SELECT count(*) AS n FROM subscription_history")
    expect(rows).toBeGreaterThan(0)
    await expect(t.app.query("UPDATE subscription_history SET change = 'x'")).rejects.toThrow()
    await expect(t.app.query("DELETE FROM subscription_history")).rejects.toThrow()
    expect(await count(t.app, "SELECT count(*) AS n FROM subscription_history")).toBe(rows)
    expect(await count(t.app, "SELECT count(*) AS n FROM subscription_history WHERE change = 'x'")).toBe(0)
  })

  it("lets an auto-renewing subscription lapse only after the renewal grace", async () => {
    // sub_first (alpha) was cancelled but is paid for 30 days; sub_order (pro) is made to renew by itself.
    await t.app.query("UPDATE subscriptions SET cancel_at_period_end = false WHERE provider_subscription_id = 'sub_order'")
    expect(await tierOf(t.app, user.headers)).toBe("alpha")
    t.clock.advance(31 * DAY_MS)
    expect(await tierOf(t.app, user.headers)).toBe("pro")
    t.clock.advance(2 * DAY_MS)
    expect(await tierOf(t.app, user.headers)).toBe("free")
  })
})
