/** The pure parts: the status machine, crypto extension, provider-shaped signatures and form decoding. */
import Stripe from "stripe"
import { describe, expect, it } from "vitest"
import { parseStripeForm, stripeSignature } from "../../server/domains/billing/card/Signature"
import { snapshotOf, StripeSubscription } from "../../server/domains/billing/card/Snapshot"
import { ipnSignature, verifyIpnSignature } from "../../server/domains/billing/crypto/Signature"
import { addPeriod, planOfPrice } from "../../server/domains/billing/Plans"
import { extendByPayment, NEXT, reconcile, SUB_STATUSES, type Snapshot, type Stored } from "../../server/domains/billing/Status"

const T0 = new Date("2026-01-01T00:00:00Z")
const base = {
  status: "active" as const, tier: "pro", interval: "month" as const, priceUsd: 29, currentPeriodEnd: new Date("2026-02-01T00:00:00Z"),
  cancelAtPeriodEnd: false, trialEnd: null, canceledAt: null, endedAt: null
}
const stored = (over: Partial<Stored> = {}): Stored => ({ ...base, stateAt: T0, ...over })
const snap = (over: Partial<Snapshot> = {}): Snapshot => ({ ...base, at: new Date(T0.getTime() + 1000), ...over })

describe("status machine", () => {
  it("creates from nothing and applies newer states", () => {
    expect(reconcile(undefined, snap()).kind).toBe("apply")
    const v = reconcile(stored(), snap({ cancelAtPeriodEnd: true }))
    expect(v).toMatchObject({ kind: "apply", changes: ["cancelAtPeriodEnd"] })
  })

  it("ignores a state older than the stored one, and an identical one", () => {
    expect(reconcile(stored(), snap({ at: new Date(T0.getTime() - 1000), status: "canceled" })).kind).toBe("stale")
    expect(reconcile(stored(), snap()).kind).toBe("unchanged")
  })

  it("never leaves a terminal status, and refuses moves outside the table", () => {
    expect(reconcile(stored({ status: "canceled" }), snap({ status: "active" }))).toMatchObject({ kind: "terminal" })
    expect(reconcile(stored({ status: "active" }), snap({ status: "incomplete" }))).toMatchObject({ kind: "illegal" })
    expect(reconcile(stored({ status: "past_due" }), snap({ status: "active" })).kind).toBe("apply")
    for (const s of SUB_STATUSES) for (const n of NEXT[s]) expect(SUB_STATUSES).toContain(n)
  })

  it("extends a crypto period from its end for the same tier, restarts it for another", () => {
    const paidAt = new Date("2026-01-20T00:00:00Z")
    expect(extendByPayment(base, { tier: "pro", interval: "month", priceUsd: 29, paidAt }).currentPeriodEnd).toEqual(new Date("2026-03-01T00:00:00Z"))
    expect(extendByPayment(base, { tier: "whale", interval: "month", priceUsd: 199, paidAt }).currentPeriodEnd).toEqual(new Date("2026-02-20T00:00:00Z"))
    expect(extendByPayment(undefined, { tier: "pro", interval: "year", priceUsd: 232, paidAt }).currentPeriodEnd).toEqual(new Date("2027-01-20T00:00:00Z"))
    expect(addPeriod(new Date("2026-01-31T00:00:00Z"), "month").toISOString()).toBe("2026-03-03T00:00:00.000Z")
  })
})

describe("provider shapes", () => {
  it("signs webhooks so that the official SDK verifies them, and only them", () => {
    const payload = JSON.stringify({ id: "evt_1", object: "event" })
    const now = Math.floor(Date.now() / 1000)
    const header = stripeSignature(payload, "whsec_x", now)
    expect(Stripe.webhooks.constructEvent(payload, header, "whsec_x")).toMatchObject({ id: "evt_1" })
    expect(() => Stripe.webhooks.constructEvent(payload + " ", header, "whsec_x")).toThrow()
    expect(() => Stripe.webhooks.constructEvent(payload, stripeSignature(payload, "whsec_x", now - 301), "whsec_x", 300)).toThrow(/tolerance/)
  })

  it("signs IPNs over the key-sorted body, whatever the key order sent", () => {
    const a = { b: 1, a: { d: 2, c: [3, { f: 1, e: 0 }] } }
    const b = { a: { c: [3, { e: 0, f: 1 }], d: 2 }, b: 1 }
    expect(ipnSignature(a, "s")).toBe(ipnSignature(b, "s"))
    expect(verifyIpnSignature(b, ipnSignature(a, "s"), "s")).toBe(true)
    expect(verifyIpnSignature(b, ipnSignature(a, "t"), "s")).toBe(false)
    expect(verifyIpnSignature(b, undefined, "s")).toBe(false)
  })

  it("decodes the SDK's bracketed form bodies", () => {
    expect(parseStripeForm("line_items[0][price_data][recurring][interval]=month&line_items[0][quantity]=1&metadata[user_id]=7&expand[0]=x&email=a%40b.co"))
      .toEqual({ line_items: [{ price_data: { recurring: { interval: "month" } }, quantity: "1" }], metadata: { user_id: "7" }, expand: ["x"], email: "a@b.co" })
    expect(parseStripeForm("__proto__[polluted]=1")).toEqual({})
  })

  it("reads both API shapes of a subscription and names our tier", () => {
    const old = StripeSubscription.parse({ id: "sub_1", object: "subscription", customer: "cus_1", status: "active", current_period_end: 1_800_000_000, plan: { id: "price_x", recurring: null, interval: "month" }, items: { data: [{ id: "si_1", price: { id: "price_x", unit_amount: 2900, recurring: { interval: "month" } } }] }, metadata: { tier: "pro" } })
    const fresh = StripeSubscription.parse({ id: "sub_2", object: "subscription", customer: { id: "cus_1" }, status: "trialing", items: { data: [{ id: "si_2", current_period_end: 1_800_000_000, price: { id: "price_y", unit_amount: 23200, lookup_key: "whale_alpha_year", recurring: { interval: "year" } } }] } })
    const a = snapshotOf(old, T0, {})
    const b = snapshotOf(fresh, T0, {})
    expect(a.ok && a.snapshot).toMatchObject({ tier: "pro", interval: "month", priceUsd: 29, currentPeriodEnd: new Date(1_800_000_000_000) })
    expect(b.ok && b.snapshot).toMatchObject({ tier: "alpha", interval: "year", status: "trialing", currentPeriodEnd: new Date(1_800_000_000_000) })
    expect(planOfPrice({ id: "price_z" }, { whale_monthly: "price_z" })).toEqual({ tier: "whale" })
    expect(snapshotOf({ ...fresh, items: { data: [{ id: "si", price: { id: "p", recurring: { interval: "year" } } }] } } as any, T0, {}).ok).toBe(false)
  })
})
