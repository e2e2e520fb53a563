/**
 * The "done when" of the accounts issue, end to end against the running service with every e-mail delivered over
 * SMTP to a local server and its links followed: register → verification mail → verify → log in → /auth/me →
 * change name and password → forgotten password reset by mailed link → magic-link login → trial activation.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { AccountLinks } from "../../server/domains/accounts/Links"
import { AccountsRepo } from "../../server/domains/accounts/Repo"
import { bearer, cookieHeader, cookiesOf, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { linkTo, startSmtp, type TestSmtp } from "../support/smtp"

// A whole app plus real SMTP per file: leave room for a loaded machine.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 180_000 })

const BASE = "http://localhost:8080"
let app: TestApp
let smtp: TestSmtp

beforeAll(async () => {
  smtp = await startSmtp()
  app = await startApp({ env: { SMTP_URL: smtp.url, MAIL_POLL_MS: "100", PUBLIC_BASE_URL: BASE, MAIL_FROM: "Whale Test <robot@whale.test>" } })
})
afterAll(async () => {
  await app?.close()
  await smtp?.close()
})

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(app.url + path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })
const get = (path: string, headers: Record<string, string> = {}) => fetch(app.url + path, { headers, redirect: "manual" })
/** A mailed link, requested from the app under test (links carry PUBLIC_BASE_URL). */
const follow = (url: URL, headers: Record<string, string> = {}) => get(url.pathname + url.search, headers)

describe("a person's journey through accounts", () => {
  const email = "Ahab.Journey@Example.com"
  const address = email.toLowerCase()
  let password = "first password 123"
  let token = ""

  it("registers and receives the verification mail over SMTP", async () => {
    const res = await post("/auth/register", { email, password, display_name: "Ahab" })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ ok: true, message: expect.stringContaining("inbox") })
    const mail = await smtp.next(address, (m) => m.subject.includes("Confirm"))
    expect(mail.from).toBe("robot@whale.test")
    const link = linkTo(mail, "/auth/verify-email")
    expect(link.origin).toBe(BASE)
    expect(mail.html).toContain(link.pathname)
    // The SMTP server has the message; the outbox records the result just after the server's answer.
    const outboxRow = async () =>
      (await app.query<{ status: string; text_body: string | null }>(
        "SELECT status, text_body FROM email_outbox WHERE to_address = $1 AND kind = 'verify_email'",
        [address]
      ))[0]
    await waitFor(async () => (await outboxRow())?.status !== "sending", 15_000)
    expect(await outboxRow()).toEqual({ status: "sent", text_body: null })
  })

  it("can log in before verifying, as an unverified free user", async () => {
    const session = await login(app, address, password)
    expect(session.body.user).toMatchObject({ email: address, email_verified: false, tier: "free" })
  })

  it("verifies the address by following the mailed link", async () => {
    const mail = smtp.to(address).find((m) => m.subject.includes("Confirm"))!
    const res = await follow(linkTo(mail, "/auth/verify-email"))
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ ok: true })
    // A browser gets a page.
    const again = await follow(linkTo(mail, "/auth/verify-email"), { accept: "text/html" })
    expect(again.status).toBe(400)
    expect(again.headers.get("content-type")).toContain("text/html")
  })

  it("logs in with mixed-case e-mail and sees /auth/me", async () => {
    const session = await login(app, email.toUpperCase(), password)
    token = session.token
    expect(session.body).toMatchObject({ token_type: "bearer", expires_in: 900 })
    const cookies = session.setCookies.join("\n")
    expect(cookies).toMatch(/whale_token=[^;]+; Path=\/; Max-Age=900; HttpOnly; SameSite=Lax/)
    expect(cookies).toMatch(/whale_refresh=[^;]+; Path=\/auth; Max-Age=\d+; HttpOnly; SameSite=Lax/)
    expect(cookies).not.toContain("Secure")
    const me = await (await get("/auth/me", bearer(token))).json()
    expect(me).toMatchObject({ email: address, display_name: "Ahab", email_verified: true, tier: "free", admin: false, account_type: "personal", company: null })
    expect(await (await get("/auth/tier", bearer(token))).json()).toEqual({ tier: "free" })
  })

  it("changes the display name", async () => {
    const res = await post("/auth/profile", { display_name: "Captain Ahab" }, bearer(token))
    expect(res.status).toBe(200)
    expect((await res.json()).display_name).toBe("Captain Ahab")
    expect((await (await get("/auth/me", bearer(token))).json()).display_name).toBe("Captain Ahab")
  })

  it("changes the password: old sessions end, a fresh one is returned, a notice is mailed", async () => {
    const other = await login(app, address, password)
    const res = await post("/auth/password", { current_password: password, new_password: "second password 456" }, bearer(token))
    expect(res.status).toBe(200)
    const body = await res.json()
    password = "second password 456"
    expect((await get("/auth/me", bearer(token))).status).toBe(401)
    expect((await get("/auth/me", bearer(other.token))).status).toBe(401)
    expect((await get("/auth/me", bearer(body.access_token))).status).toBe(200)
    token = body.access_token
    expect((await post("/auth/login", { email: address, password: "first password 123" })).status).toBe(401)
    await login(app, address, password)
    await smtp.next(address, (m) => m.subject.includes("password was changed"))
  })

  it("resets a forgotten password through the mailed link", async () => {
    const res = await post("/auth/forgot-password", { email: address })
    expect(res.status).toBe(200)
    const mail = await smtp.next(address, (m) => m.subject.includes("Reset"))
    const link = linkTo(mail, "/auth/reset-password")
    // The link opens a form in a browser.
    const page = await follow(link, { accept: "text/html" })
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('name="new_password"')
    // The last policy given wins: the token in the URL never leaks to another site.
    expect(page.headers.get("referrer-policy")).toMatch(/(^|, )no-referrer$/)
    // The form posts url-encoded.
    const reset = await fetch(app.url + "/auth/reset-password", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: link.searchParams.get("token")!, new_password: "third password 789" }).toString()
    })
    expect(reset.status).toBe(200)
    expect((await get("/auth/me", bearer(token))).status).toBe(401)
    expect((await post("/auth/login", { email: address, password })).status).toBe(401)
    password = "third password 789"
    token = (await login(app, address, password)).token
  })

  it("logs in by magic link: cookie set, redirected to /", async () => {
    expect((await post("/auth/magic-link", { email: address })).status).toBe(200)
    const mail = await smtp.next(address, (m) => m.subject.includes("sign-in link"))
    const res = await follow(linkTo(mail, "/auth/magic-login"))
    expect(res.status).toBe(302)
    expect(res.headers.get("location")).toBe("/")
    const cookies = cookiesOf(res.headers.getSetCookie())
    expect(cookies.whale_token).toBeTruthy()
    const me = await get("/auth/me", cookieHeader({ whale_token: cookies.whale_token! }))
    expect(me.status).toBe(200)
    expect((await me.json()).email).toBe(address)
  })

  it("activates the 7-day Alpha trial from its mailed link", async () => {
    const [user] = await app.query<{ id: number }>("SELECT id FROM users WHERE email = $1", [address])
    await app.runtime.runPromise(
      Effect.gen(function* () {
        const row = yield* (yield* AccountsRepo).byId(user!.id)
        yield* (yield* AccountLinks).sendTrialInvite(row!)
      }).pipe(Effect.provide(AccountLinks.Default), Effect.provide(AccountsRepo.Default))
    )
    const mail = await smtp.next(address, (m) => m.subject.includes("Alpha"))
    const res = await follow(linkTo(mail, "/auth/activate-trial"))
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.tier).toBe("alpha")
    const days = (Date.parse(body.trial_ends_at) - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(6.99)
    expect(days).toBeLessThan(7.01)
    expect(await (await get("/auth/tier", bearer(token))).json()).toEqual({ tier: "alpha" })
    const me = await (await get("/auth/me", bearer(token))).json()
    expect(me).toMatchObject({ tier: "alpha", trial_used: true, trial_ends_at: body.trial_ends_at })
  })
})
