/**
 * The staff e-mail workspace end to end over HTTP: access (staff only, nothing named to others), every §4.6
 * endpoint with its forms and CSRF refusal, outbox sending with reply addresses and unsubscribe headers, batch
 * sending once, inbound mail from the RFC 822 fixtures (threaded, sanitized, attachments, duplicates once, bad
 * secret, malformed, too large) and signed delivery events (bounce, complaint, forgeries, duplicates).
 */
import { readFileSync } from "node:fs"
import MailComposer from "nodemailer/lib/mail-composer/index.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { signatureHeaders } from "../../server/domains/email/DeliverySignature"
import { createUser, login, type LoggedIn } from "../support/auth"
import { fixturePath, requireFixtures } from "../support/fixtures"
import { startApp, type TestApp } from "../support/harness"

const fx = requireFixtures("emails-rfc822")
const INBOUND_SECRET = "inbound-test-secret-0123456789"
const WEBHOOK_SECRET = `whsec_${Buffer.from("provider-test-secret-32-bytes!!!").toString("base64")}`
const MAX_RAW = 300_000

let app: TestApp
let staff: LoggedIn
let user: LoggedIn
let csrf = ""
/** The headers a browser on this site's pages sends: its cookies, and (on a form POST) this site as its Origin. */
const cookieOf = (l: LoggedIn) => ({ cookie: l.setCookies.map((c) => c.split(";")[0]).join("; "), origin: app.url })

beforeAll(async () => {
  app = await startApp({
    env: {
      WHALE_ROLES: "http", INBOUND_EMAIL_SECRET: INBOUND_SECRET, EMAIL_WEBHOOK_SECRET: `whsec_b2xk ${WEBHOOK_SECRET}`,
      EMAIL_REPLY_DOMAIN: "in.whale.test", EMAIL_BATCH_COOLDOWN_SECONDS: "0", INBOUND_EMAIL_MAX_BYTES: String(MAX_RAW)
    }
  })
  await createUser(app, { email: "staff@whale.test", admin: true })
  await createUser(app, { email: "member@example.com", tier: "whale" })
  staff = await login(app, "staff@whale.test")
  user = await login(app, "member@example.com")
})
afterAll(async () => {
  await app?.close()
})

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${app.url}${path}`, { headers, redirect: "manual" })
const postForm = (path: string, fields: Record<string, string>, headers: Record<string, string> = cookieOf(staff)) =>
  fetch(`${app.url}${path}`, {
    method: "POST", redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(fields).toString()
  })
const staffForm = (path: string, fields: Record<string, string> = {}) => postForm(path, { ...fields, _csrf: csrf })
const inbound = (body: unknown, secret = INBOUND_SECRET) =>
  fetch(`${app.url}/webhooks/email-inbound`, { method: "POST", headers: { "content-type": "application/json", "x-inbound-secret": secret }, body: JSON.stringify(body) })
const delivery = (event: unknown, opts: { id?: string; ts?: number; secret?: string } = {}) => {
  const body = JSON.stringify(event)
  const headers = signatureHeaders(opts.secret ?? WEBHOOK_SECRET, opts.id ?? `evt_${Math.random().toString(36).slice(2)}`, opts.ts ?? Math.floor(Date.now() / 1000), body)
  return fetch(`${app.url}/webhooks/emailprovider`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body })
}
const compose = (mail: ConstructorParameters<typeof MailComposer>[0]) =>
  new Promise<Buffer>((resolve, reject) => new MailComposer(mail).compile().build((e, m) => (e ? reject(e) : resolve(m))))
const count = async (sql: string, params: Array<unknown> = []) => Number((await app.query<{ n: string }>(sql, params))[0]!.n)

describe("access", () => {
  it("is refused to anonymous callers (401) and to non-staff users (403), naming nothing", async () => {
    for (const path of ["/api/email/workspace", "/email/message/1/body", "/email/attachment/1", "/email/compose/1"]) {
      const anon = await get(path)
      expect(anon.status, path).toBe(401)
      const member = await get(path, { authorization: `Bearer ${user.token}` })
      expect(member.status, path).toBe(403)
      const text = await member.text()
      expect(text, path).not.toMatch(/mail|workspace|staff|admin/i)
    }
    const post = await postForm("/email/contact", { email: "x@example.org" }, cookieOf(user))
    expect(post.status).toBe(403)
  })

  it("gives staff the dashboard with a CSRF token", async () => {
    const res = await get("/api/email/workspace", cookieOf(staff))
    expect(res.status).toBe(200)
    expect(res.headers.get("cache-control")).toBe("no-store")
    const body = (await res.json()) as { csrf_token: string; contacts: Array<unknown> }
    expect(body.csrf_token).toMatch(/\./)
    csrf = body.csrf_token
  })
})

describe("forms and CSRF", () => {
  it("refuses a cookie-authenticated form without a valid token or from another origin", async () => {
    expect((await postForm("/email/contact", { email: "nocsrf@example.org" })).status).toBe(403)
    expect((await postForm("/email/contact", { email: "nocsrf@example.org", _csrf: "1.abc" })).status).toBe(403)
    const otherSession = await login(app, "staff@whale.test")
    expect((await postForm("/email/contact", { email: "nocsrf@example.org", _csrf: csrf }, cookieOf(otherSession))).status).toBe(403)
    expect((await postForm("/email/contact", { email: "nocsrf@example.org", _csrf: csrf }, { ...cookieOf(staff), origin: "https://evil.example" })).status).toBe(403)
    // Another port of the same host is another origin (SameSite=Lax would have sent the cookie).
    const otherPort = `http://127.0.0.1:${app.port + 1}`
    const fromOtherPort = await postForm("/email/contact", { email: "nocsrf@example.org", _csrf: csrf }, { ...cookieOf(staff), origin: otherPort })
    expect(fromOtherPort.status).toBe(403)
    expect(((await fromOtherPort.json()) as { code: string }).code).toBe("cross_site")
    // Neither Origin nor Sec-Fetch-Site: refused, even with a valid token.
    const { origin: _, ...bare } = cookieOf(staff)
    expect((await postForm("/email/contact", { email: "nocsrf@example.org", _csrf: csrf }, bare)).status).toBe(403)
    expect(await count("SELECT count(*) AS n FROM email_contacts WHERE email = 'nocsrf@example.org'")).toBe(0)
  })

  it("adds contacts (422 on a bad address, 409 on a duplicate) and sends browsers back with a 303", async () => {
    const ok = await staffForm("/email/contact", { email: "Alice@Example.org", name: "Alice", company: "Acme" })
    expect(ok.status).toBe(200)
    expect(await ok.json()).toMatchObject({ email: "alice@example.org", name: "Alice", company: "Acme", status: "pending" })
    const dup = await staffForm("/email/contact", { email: "alice@example.org" })
    expect(dup.status).toBe(409)
    const bad = await staffForm("/email/contact", { email: "not-an-address" })
    expect(bad.status).toBe(422)
    expect(((await bad.json()) as { detail: Array<{ loc: Array<string> }> }).detail[0]!.loc).toEqual(["body", "email"])
    const browser = await postForm("/email/contact", { email: "bob@example.org", name: "Bob", _csrf: csrf }, { ...cookieOf(staff), accept: "text/html" })
    expect(browser.status).toBe(303)
    expect(browser.headers.get("location")).toBe("/email")
    // Bearer-authenticated API calls need no token
    const api = await postForm("/email/contact", { email: "carol@example.org" }, { authorization: `Bearer ${staff.token}` })
    expect(api.status).toBe(200)
  })
})

describe("sending", () => {
  it("batch-send mails every pending contact once, with a signed reply address and unsubscribe headers", async () => {
    const first = await staffForm("/email/batch-send", { subject: "Whale data for Acme", body: "Hello,\n\nwe track whales." })
    expect(first.status).toBe(200)
    expect(await first.json()).toMatchObject({ sent: 3, remaining_pending: 0 })
    const again = await staffForm("/email/batch-send", { subject: "Whale data for Acme", body: "Hello again" })
    expect(await again.json()).toMatchObject({ sent: 0 })
    const rows = await app.query<{ to_address: string; headers: Record<string, string> }>("SELECT to_address, headers FROM email_outbox WHERE kind = 'workspace_batch' ORDER BY id")
    expect(rows.map((r) => r.to_address).sort()).toEqual(["alice@example.org", "bob@example.org", "carol@example.org"])
    for (const r of rows) {
      expect(r.headers["Reply-To"]).toMatch(/^reply\+m[0-9a-z]+-[0-9a-f]{20}@in\.whale\.test$/)
      expect(r.headers["List-Unsubscribe"]).toMatch(/^<http.*\/email\/outreach\/unsubscribe\?token=/)
      expect(r.headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click")
      expect(r.headers["Message-ID"]).toMatch(/^<out\.\d+\.[0-9a-f]+@in\.whale\.test>$/)
    }
    expect(await count("SELECT count(*) AS n FROM email_contacts WHERE status = 'sent'")).toBe(3)
  })

  it("send and quick-send go through the outbox; quick-send creates the contact", async () => {
    const alice = (await app.query<{ id: string }>("SELECT id FROM email_contacts WHERE email = 'alice@example.org'"))[0]!.id
    const sent = await staffForm("/email/send", { contact_id: String(alice), subject: "Follow-up", body: "Any thoughts?" })
    expect(sent.status).toBe(200)
    expect(await staffForm("/email/send", { contact_id: "999999", subject: "x", body: "y" }).then((r) => r.status)).toBe(404)
    expect(await staffForm("/email/send", { contact_id: "abc", subject: "x", body: "y" }).then((r) => r.status)).toBe(422)
    const quick = await staffForm("/email/quick-send", { email: "dave@example.org", name: "Dave", subject: "Hi Dave", body: "Quick note" })
    expect(await quick.json()).toMatchObject({ created_contact: true })
    expect(await count("SELECT count(*) AS n FROM email_contacts WHERE email = 'dave@example.org' AND status = 'sent'")).toBe(1)
    expect(await count("SELECT count(*) AS n FROM email_outbox WHERE to_address = 'dave@example.org'")).toBe(1)
  })

  it("shows the compose view with its thread and a CSRF field", async () => {
    const alice = (await app.query<{ id: string }>("SELECT id FROM email_contacts WHERE email = 'alice@example.org'"))[0]!.id
    const res = await get(`/email/compose/${alice}`, { ...cookieOf(staff), accept: "text/html" })
    expect(res.status).toBe(200)
    const html = await res.text()
    expect(html).toContain('name="_csrf"')
    expect(html).toContain("Follow-up")
    expect(await get("/email/compose/999999", cookieOf(staff)).then((r) => r.status)).toBe(404)
  })
})

describe.skipIf(!fx.available)(`inbound mail${fx.skipNote}`, () => {
  const replyAddressOf = async (email: string) =>
    (await app.query<{ headers: Record<string, string> }>("SELECT headers FROM email_outbox WHERE to_address = $1 ORDER BY id LIMIT 1", [email]))[0]!.headers["Reply-To"]!

  it("refuses a wrong or missing secret (401) and stores nothing", async () => {
    const raw = readFileSync(fixturePath("emails-rfc822/plain_emails/basic_email.eml")).toString("base64")
    expect((await inbound({ from: "a@b.c", to: "x@y.z", raw_b64: raw }, "wrong")).status).toBe(401)
    const none = await fetch(`${app.url}/webhooks/email-inbound`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ from: "a", to: "b", raw_b64: raw }) })
    expect(none.status).toBe(401)
    expect(await count("SELECT count(*) AS n FROM email_messages WHERE direction = 'in'")).toBe(0)
  })

  it("threads a reply to its contact by the token, moves the contact to replied, and stores it once", async () => {
    const to = await replyAddressOf("alice@example.org")
    const raw = readFileSync(fixturePath("emails-rfc822/plain_emails/raw_email_reply.eml")).toString("base64")
    const res = await inbound({ from: "alice@example.org", to, raw_b64: raw })
    expect(res.status).toBe(200)
    const stored = (await res.json()) as { message_id: number; duplicate: boolean; contact_id: number }
    expect(stored.duplicate).toBe(false)
    const again = (await (await inbound({ from: "alice@example.org", to, raw_b64: raw })).json()) as { message_id: number; duplicate: boolean }
    expect(again).toMatchObject({ message_id: stored.message_id, duplicate: true })
    expect(await count("SELECT count(*) AS n FROM email_messages WHERE direction = 'in'")).toBe(1)
    const alice = (await app.query<{ id: string; status: string }>("SELECT id, status FROM email_contacts WHERE email = 'alice@example.org'"))[0]!
    expect(alice.status).toBe("replied")
    expect(stored.contact_id).toBe(Number(alice.id))
    const thread = (await (await get(`/api/email/contacts/${alice.id}/thread`, cookieOf(staff))).json()) as { messages: Array<{ direction: string; thread_id: number }> }
    expect(thread.messages.map((m) => m.direction)).toEqual(["in", "out", "out"])
    expect(new Set(thread.messages.map((m) => m.thread_id)).size).toBe(1)
  })

  it("a forged reply token threads nothing", async () => {
    const raw = readFileSync(fixturePath("emails-rfc822/plain_emails/basic_email.eml")).toString("base64")
    const res = (await (await inbound({ from: "test@lindsaar.net", to: "reply+m1-00000000000000000000@in.whale.test", raw_b64: raw })).json()) as { contact_id: number | null }
    expect(res.contact_id).toBeNull()
  })

  it("stores attachments: raster images inline, anything else as a download", async () => {
    const to = await replyAddressOf("bob@example.org")
    for (const f of ["attachment_emails/attachment_pdf.eml", "attachment_emails/attachment_content_location.eml"]) {
      const raw = readFileSync(fixturePath("emails-rfc822", f)).toString("base64")
      expect((await inbound({ from: "bob@example.org", to, raw_b64: raw })).status, f).toBe(200)
    }
    const atts = await app.query<{ id: string; content_type: string; size_bytes: number }>("SELECT id, content_type, size_bytes FROM email_attachments ORDER BY id")
    const pdf = atts.find((a) => a.content_type === "application/pdf")!
    const jpeg = atts.find((a) => a.content_type === "image/jpeg")!
    const dl = await get(`/email/attachment/${pdf.id}`, cookieOf(staff))
    expect(dl.status).toBe(200)
    expect(dl.headers.get("content-type")).toBe("application/octet-stream")
    expect(dl.headers.get("content-disposition")).toMatch(/^attachment; filename="broken\.pdf"/)
    expect(dl.headers.get("x-content-type-options")).toBe("nosniff")
    expect((await dl.arrayBuffer()).byteLength).toBe(pdf.size_bytes)
    const img = await get(`/email/attachment/${jpeg.id}`, cookieOf(staff))
    expect(img.headers.get("content-type")).toBe("image/jpeg")
    expect(img.headers.get("content-disposition")).toMatch(/^inline;/)
    expect(await get("/email/attachment/999999", cookieOf(staff)).then((r) => r.status)).toBe(404)
  })

  it("serves a hostile HTML body sanitized, under a strict CSP, with cid images pointing at attachments", async () => {
    const raw = await compose({
      from: "Carol <carol@example.org>", to: "someone@in.whale.test", subject: "Look", messageId: "<hostile-1@example.org>",
      html: `<p onclick="x()">Hi</p><script>alert(1)</script><img src="https://tracker.example/p.gif"><img src="cid:pic@x"><form action="https://evil.example"><input></form>`,
      attachments: [{ filename: "pic.png", content: Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), cid: "pic@x" }]
    })
    const res = (await (await inbound({ from: "carol@example.org", to: "inbox@in.whale.test", raw_b64: raw.toString("base64") })).json()) as { message_id: number; contact_id: number }
    expect(res.contact_id).not.toBeNull()
    const body = await get(`/email/message/${res.message_id}/body`, cookieOf(staff))
    expect(body.status).toBe(200)
    expect(body.headers.get("content-security-policy")).toContain("default-src 'none'")
    expect(body.headers.get("content-security-policy")).toContain("sandbox")
    const html = await body.text()
    expect(html).toContain("Hi")
    expect(html).not.toMatch(/<script|onclick|tracker\.example|<form|<input/)
    expect(html).toMatch(/src="\/email\/attachment\/\d+"/)
    const json = (await (await get(`/email/message/${res.message_id}/body`, { ...cookieOf(staff), accept: "application/json" })).json()) as { body_html: string }
    expect(json.body_html).toContain("Hi")
  })

  it("refuses malformed base64 or MIME (422) and oversized messages (413), storing nothing", async () => {
    const before = await count("SELECT count(*) AS n FROM email_messages")
    expect((await inbound({ from: "a@b.c", to: "x@y.z", raw_b64: "***not base64***" })).status).toBe(422)
    expect((await inbound({ from: "a@b.c", to: "x@y.z", raw_b64: Buffer.from("hello, no headers here").toString("base64") })).status).toBe(422)
    expect((await inbound({ from: "a@b.c", to: "x@y.z" })).status).toBe(422)
    const big = await compose({ from: "a@b.example", to: "c@d.example", text: "x", attachments: [{ filename: "big.bin", content: Buffer.alloc(MAX_RAW) }] })
    expect((await inbound({ from: "a@b.c", to: "x@y.z", raw_b64: big.toString("base64") })).status).toBe(413)
    expect(await count("SELECT count(*) AS n FROM email_messages")).toBe(before)
  })

  it("marks read, all read, and deletes messages", async () => {
    const [first] = await app.query<{ id: string }>("SELECT id FROM email_messages WHERE direction = 'in' ORDER BY id LIMIT 1")
    expect((await staffForm(`/email/inbox/${first!.id}/read`)).status).toBe(200)
    expect((await app.query<{ read: boolean }>("SELECT read FROM email_messages WHERE id = $1", [first!.id]))[0]!.read).toBe(true)
    const all = (await (await staffForm("/email/inbox/mark-all-read")).json()) as { updated: number }
    expect(all.updated).toBeGreaterThan(0)
    expect(await count("SELECT count(*) AS n FROM email_messages WHERE direction = 'in' AND NOT read")).toBe(0)
    expect((await staffForm(`/email/messages/${first!.id}/delete`)).status).toBe(200)
    expect((await staffForm(`/email/messages/${first!.id}/delete`)).status).toBe(404)
    expect((await staffForm("/email/inbox/999999/read")).status).toBe(404)
  })
})

describe("delivery events", () => {
  const messageTo = async (email: string) =>
    (await app.query<{ rfc_message_id: string; id: string }>("SELECT id, rfc_message_id FROM email_messages WHERE direction = 'out' AND to_address = $1 ORDER BY id DESC LIMIT 1", [email]))[0]!

  it("records a signed event once and updates the message", async () => {
    const m = await messageTo("carol@example.org")
    const event = { type: "email.delivered", created_at: new Date().toISOString(), data: { to: ["carol@example.org"], message_id: `<${m.rfc_message_id}>` } }
    const res = await delivery(event, { id: "evt_delivered_1" })
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ duplicate: false, message_id: Number(m.id) })
    expect(await (await delivery(event, { id: "evt_delivered_1" })).json()).toMatchObject({ duplicate: true })
    expect((await app.query<{ delivery_status: string }>("SELECT delivery_status FROM email_messages WHERE id = $1", [m.id]))[0]!.delivery_status).toBe("delivered")
    expect(await (await delivery({ type: "email.opened", data: { email: "carol@example.org" } })).json()).toMatchObject({ duplicate: false })
    expect((await app.query<{ delivery_status: string }>("SELECT delivery_status FROM email_messages WHERE id = $1", [m.id]))[0]!.delivery_status).toBe("opened")
  })

  it("refuses forged, stale and unsigned events", async () => {
    const event = { type: "email.bounced", data: { email: "dave@example.org" } }
    expect((await delivery(event, { secret: `whsec_${Buffer.from("forged").toString("base64")}` })).status).toBe(401)
    expect((await delivery(event, { ts: Math.floor(Date.now() / 1000) - 301 })).status).toBe(401)
    expect((await fetch(`${app.url}/webhooks/emailprovider`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(event) })).status).toBe(401)
    expect((await app.query<{ status: string }>("SELECT status FROM email_contacts WHERE email = 'dave@example.org'"))[0]!.status).toBe("sent")
  })

  it("a bounce marks the message and the contact bounced; a complaint unsubscribes the address from all marketing mail", async () => {
    expect((await delivery({ type: "email.bounced", data: { to: "dave@example.org" } })).status).toBe(200)
    expect((await app.query<{ status: string }>("SELECT status FROM email_contacts WHERE email = 'dave@example.org'"))[0]!.status).toBe("bounced")
    expect((await messageTo("dave@example.org")) && (await app.query<{ delivery_status: string }>("SELECT delivery_status FROM email_messages WHERE to_address = 'dave@example.org' ORDER BY id DESC LIMIT 1"))[0]!.delivery_status).toBe("bounced")
    await app.query("INSERT INTO waitlist (email, unsubscribe_token) VALUES ('bob@example.org', 'tok-bob-0123456789abcdef')")
    expect((await delivery({ type: "email.complained", data: { to: ["bob@example.org"] } })).status).toBe(200)
    expect((await app.query<{ status: string }>("SELECT status FROM email_contacts WHERE email = 'bob@example.org'"))[0]!.status).toBe("unsubscribed")
    expect(await count("SELECT count(*) AS n FROM email_suppressions WHERE email = 'bob@example.org' AND reason = 'complaint'")).toBe(1)
    expect(await count("SELECT count(*) AS n FROM waitlist WHERE email = 'bob@example.org' AND unsubscribed_at IS NOT NULL")).toBe(1)
    expect(await count("SELECT count(*) AS n FROM marketing_unsubscribes WHERE email = 'bob@example.org' AND source = 'complaint'")).toBe(1)
    const bob = (await app.query<{ id: string }>("SELECT id FROM email_contacts WHERE email = 'bob@example.org'"))[0]!.id
    expect((await staffForm("/email/send", { contact_id: String(bob), subject: "x", body: "y" })).status).toBe(409)
    expect(await (await delivery({ type: "email.clicked", data: {} })).json()).toMatchObject({ ignored: true })
    expect((await delivery({ nope: true })).status).toBe(422)
  })
})

describe("contacts and X outreach", () => {
  it("updates status by hand, deletes contacts, and manages outreach targets", async () => {
    const carol = (await app.query<{ id: string }>("SELECT id FROM email_contacts WHERE email = 'carol@example.org'"))[0]!.id
    expect(await (await staffForm(`/email/contact/${carol}/status`, { status: "replied", notes: "call Tuesday" })).json()).toMatchObject({ status: "replied", notes: "call Tuesday" })
    expect((await staffForm(`/email/contact/${carol}/status`, { status: "maybe" })).status).toBe(422)
    expect((await staffForm(`/email/contact/${carol}/delete`)).status).toBe(200)
    expect((await staffForm(`/email/contact/${carol}/delete`)).status).toBe(404)
    const added = (await (await staffForm("/email/x-outreach/add", { handle: "@WhaleWatcher", note: "big account" })).json()) as { created: boolean; target: { id: number; handle: string; sent: boolean } }
    expect(added).toMatchObject({ created: true, target: { handle: "whalewatcher", sent: false } })
    expect(await (await staffForm("/email/x-outreach/add", { handle: "https://x.com/whalewatcher" })).json()).toMatchObject({ created: false })
    expect((await staffForm("/email/x-outreach/add", { handle: "not a handle!" })).status).toBe(422)
    expect(await (await staffForm(`/email/x-outreach/${added.target.id}/toggle-sent`)).json()).toMatchObject({ sent: true })
    expect(await (await staffForm(`/email/x-outreach/${added.target.id}/toggle-sent`)).json()).toMatchObject({ sent: false })
    expect((await staffForm(`/email/x-outreach/${added.target.id}/delete`)).status).toBe(200)
    expect((await staffForm(`/email/x-outreach/${added.target.id}/toggle-sent`)).status).toBe(404)
  })

  it("the unsubscribe link in outreach mail unsubscribes the contact", async () => {
    const [row] = await app.query<{ headers: Record<string, string> }>("SELECT headers FROM email_outbox WHERE to_address = 'alice@example.org' ORDER BY id LIMIT 1")
    const url = new URL(row!.headers["List-Unsubscribe"]!.slice(1, -1))
    const res = await fetch(`${app.url}${url.pathname}${url.search}`, { method: "POST", body: "List-Unsubscribe=One-Click" })
    expect(res.status).toBe(200)
    expect((await app.query<{ status: string }>("SELECT status FROM email_contacts WHERE email = 'alice@example.org'"))[0]!.status).toBe("unsubscribed")
    expect((await get("/email/outreach/unsubscribe?token=forged")).status).toBe(200)
  })
})
