/**
 * The founding waitlist's double opt-in and drip, one-click unsubscribe, and trial reminders, sent by the
 * drip-mailer actor through the outbox under a controlled clock.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { waitFor } from "../support/wait"
import { count, post, signedInUser, startBillingApp, type BillingTestApp } from "./support/billingApp"
import { DAY_MS } from "./support/clock"

let t: BillingTestApp
const JSON_HEADERS = { "content-type": "application/json" }

beforeAll(async () => {
  t = await startBillingApp({ env: { DRIP_INTERVAL_HOURS: "72", WAITLIST_CONFIRMS_PER_IP_PER_HOUR: "6" } })
})
afterAll(async () => {
  await t?.close()
})

const mails = (to: string, kind: string) =>
  t.app.query<{ text_body: string; headers: Record<string, string> | null; subject: string }>(
    "SELECT text_body, headers, subject FROM email_outbox WHERE to_address = $1 AND kind = $2 ORDER BY id", [to, kind])
const linkIn = (text: string, path: string) => {
  const found = (text.match(/https?:\/\/[^\s<>"]+/g) ?? []).map((l) => new URL(l)).find((u) => u.pathname === path)
  if (!found) throw new Error(`no ${path} link in: ${text}`)
  return `${t.app.url}${found.pathname}${found.search}`
}
const join = (email: string) => post(t.app, "/api/founding-waitlist", JSON_HEADERS, { email })

describe("waitlist drip with double opt-in", () => {
  it("mails a confirmation link, once per address per day, and starts nothing before it is followed", async () => {
    expect((await join("drip@example.com")).status).toBe(200)
    expect((await join("drip@example.com")).status).toBe(200)
    expect(await mails("drip@example.com", "waitlist_confirm")).toHaveLength(1)
    const [row] = await t.app.query<{ confirmed_at: Date | null; next_drip_at: Date | null }>("SELECT confirmed_at, next_drip_at FROM waitlist WHERE email = 'drip@example.com'")
    expect(row).toEqual({ confirmed_at: null, next_drip_at: null })
    // A forged link confirms nothing.
    const forged = await fetch(`${t.app.url}/api/founding-waitlist/confirm?token=eyJhbGciOiJIUzI1NiJ9.e30.x`)
    expect(forged.status).toBe(400)
  })

  it("starts the drip once confirmed; each mail carries a signed one-click unsubscribe", async () => {
    const [confirm] = await mails("drip@example.com", "waitlist_confirm")
    const res = await fetch(linkIn(confirm!.text_body, "/api/founding-waitlist/confirm"))
    expect(res.status).toBe(200)
    await waitFor(async () => (await mails("drip@example.com", "drip_1")).length === 1, 10_000)
    const [first] = await mails("drip@example.com", "drip_1")
    expect(first!.headers!["List-Unsubscribe"]).toMatch(/^<https?:\/\/.+\/email\/unsubscribe\?token=.+>$/)
    expect(first!.headers!["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click")
    expect(first!.text_body).toContain("/email/unsubscribe?token=")
    expect(await mails("drip@example.com", "drip_2")).toHaveLength(0)

    t.clock.advance(72 * 3_600_000 + 60_000)
    await waitFor(async () => (await mails("drip@example.com", "drip_2")).length === 1, 10_000)
  })

  it("unsubscribes at once through the one-click POST; nothing more is sent", async () => {
    // A control address that stays subscribed proves the drip-mailer ran after the unsubscribe.
    await join("control@example.com")
    const [c] = await mails("control@example.com", "waitlist_confirm")
    await fetch(linkIn(c!.text_body, "/api/founding-waitlist/confirm"))
    await waitFor(async () => (await mails("control@example.com", "drip_1")).length === 1, 10_000)

    const [second] = await mails("drip@example.com", "drip_2")
    const url = second!.headers!["List-Unsubscribe"]!.slice(1, -1)
    const oneClick = await fetch(`${t.app.url}${new URL(url).pathname}${new URL(url).search}`, {
      method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "List-Unsubscribe=One-Click"
    })
    expect(oneClick.status).toBe(200)
    expect(await count(t.app, "SELECT count(*) AS n FROM marketing_unsubscribes WHERE email = 'drip@example.com'")).toBe(1)

    t.clock.advance(72 * 3_600_000 + 60_000)
    await waitFor(async () => (await mails("control@example.com", "drip_2")).length === 1, 10_000)
    expect(await mails("drip@example.com", "drip_3")).toHaveLength(0)
    // Joining again sends no confirmation to an unsubscribed address.
    await join("drip@example.com")
    t.clock.advance(DAY_MS + 60_000)
    await join("drip@example.com")
    expect(await mails("drip@example.com", "waitlist_confirm")).toHaveLength(1)
  })

  it("limits confirmation mails per client address (429)", async () => {
    const statuses: Array<number> = []
    for (let i = 0; i < 8; i++) statuses.push((await join(`many-${i}@example.com`)).status)
    // The earlier confirmations were sent more than an hour ago (by the controlled clock): six more pass.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429])
    expect(await count(t.app, "SELECT count(*) AS n FROM email_outbox WHERE kind = 'waitlist_confirm' AND to_address LIKE 'many-%'")).toBe(6)
    t.clock.advance(3_600_000 + 60_000)
    expect((await join("many-later@example.com")).status).toBe(200)
  })
})

describe("trial reminders", () => {
  it("mails once, two days before the trial ends, not to paying users", async () => {
    const user = await signedInUser(t.app, "trialist@example.com")
    await t.app.query("INSERT INTO trials (user_id, tier, ends_at) VALUES ($1, 'alpha', $2)", [user.id, new Date(t.clock.now() + 3 * DAY_MS)])
    const reminders = () => count(t.app, "SELECT count(*) AS n FROM email_outbox WHERE kind = 'trial_reminder' AND user_id = $1", [user.id])
    // A control trial already inside the window proves rounds ran before the clock moved.
    const other = await signedInUser(t.app, "trialist2@example.com")
    await t.app.query("INSERT INTO trials (user_id, tier, ends_at) VALUES ($1, 'alpha', $2)", [other.id, new Date(t.clock.now() + DAY_MS)])
    await waitFor(async () => (await count(t.app, "SELECT count(*) AS n FROM email_outbox WHERE kind = 'trial_reminder' AND user_id = $1", [other.id])) === 1, 10_000)
    expect(await reminders()).toBe(0)
    t.clock.advance(1.5 * DAY_MS)
    await waitFor(async () => (await reminders()) === 1, 10_000)
    const [mail] = await mails("trialist@example.com", "trial_reminder")
    expect(mail!.subject).toMatch(/trial ends on/)
    t.clock.advance(0.25 * DAY_MS)
    await waitFor(async () => (await count(t.app, "SELECT count(*) AS n FROM billing_mail_sent WHERE kind = 'trial_reminder'")) === 2, 5_000)
    expect(await reminders()).toBe(1)
  })
})
