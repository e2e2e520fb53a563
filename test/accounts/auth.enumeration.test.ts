/**
 * Nothing tells whether an e-mail is registered: forgot-password, magic-link, register and login answer the same
 * bytes for known and unknown addresses (and login spends comparable time); login is throttled per account and per
 * IP with 429 + Retry-After, identically for unknown addresses; account mails are rate-limited per address.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { bearer, createUser, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { startSmtp, type TestSmtp } from "../support/smtp"

// A whole app plus real SMTP per file: leave room for a loaded machine.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 180_000 })

let app: TestApp
let smtp: TestSmtp
const known = "starbuck@example.com"
const unknown = "nobody-here@example.com"

beforeAll(async () => {
  smtp = await startSmtp()
  app = await startApp({
    // The test client stands in for a proxy on loopback that names each scenario's client in X-Forwarded-For.
    env: { SMTP_URL: smtp.url, MAIL_POLL_MS: "100", LOGIN_MAX_PER_ACCOUNT: "5", LOGIN_MAX_PER_IP: "8", AUTH_MAILS_PER_HOUR: "2", TRUST_PROXY: "loopback" }
  })
  await createUser(app, { email: known, password: "known password 1" })
})
afterAll(async () => {
  await app?.close()
  await smtp?.close()
})

let ipCounter = 0
/** A fresh client address per scenario, so throttles of one scenario never touch another. */
const freshIp = () => `10.0.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`

const post = (path: string, body: unknown, ip: string, headers: Record<string, string> = {}) =>
  fetch(app.url + path, { method: "POST", headers: { "content-type": "application/json", "x-forwarded-for": ip, ...headers }, body: JSON.stringify(body) })

/** Status, headers (without per-request ones) and body bytes. */
const answer = async (res: Response) => {
  const headers = Object.fromEntries([...res.headers].filter(([k]) => !["date", "x-request-id"].includes(k)))
  return { status: res.status, headers, body: await res.text() }
}

describe("identical answers for known and unknown addresses", () => {
  it("forgot-password: always 200, byte-identical; only the known address gets mail", async () => {
    const ip = freshIp()
    const a = await answer(await post("/auth/forgot-password", { email: known }, ip))
    const b = await answer(await post("/auth/forgot-password", { email: unknown }, ip))
    expect(a.status).toBe(200)
    expect(b).toEqual(a)
    await smtp.next(known, (m) => m.subject.includes("Reset"))
    // Mail leaves only through the outbox, written in the request's own transaction: no row, no mail, ever.
    expect(await app.query("SELECT 1 FROM email_outbox WHERE to_address = $1", [unknown])).toHaveLength(0)
    expect(smtp.to(unknown)).toHaveLength(0)
  })

  it("magic-link: byte-identical answers", async () => {
    const ip = freshIp()
    const a = await answer(await post("/auth/magic-link", { email: known }, ip))
    const b = await answer(await post("/auth/magic-link", { email: unknown }, ip))
    expect(a.status).toBe(200)
    expect(b).toEqual(a)
  })

  it("register: a taken address answers like a new one, mails its owner, and changes nothing", async () => {
    const ip = freshIp()
    const [before] = await app.query<{ h: string }>("SELECT password_hash AS h FROM users WHERE email = $1", [known])
    const taken = await answer(await post("/auth/register", { email: known, password: "hijack attempt 1" }, ip))
    const fresh = await answer(await post("/auth/register", { email: "ishmael@example.com", password: "call me ishmael" }, ip))
    expect(taken.status).toBe(200)
    expect(taken).toEqual(fresh)
    await smtp.next(known, (m) => m.subject.includes("already have an account"))
    await smtp.next("ishmael@example.com", (m) => m.subject.includes("Confirm"))
    const [after] = await app.query<{ h: string }>("SELECT password_hash AS h FROM users WHERE email = $1", [known])
    expect(after!.h).toBe(before!.h)
    expect((await post("/auth/login", { email: known, password: "hijack attempt 1" }, ip)).status).toBe(401)
  })

  it("login: wrong password and unknown address give the same answer in comparable time", async () => {
    const ip = freshIp()
    const timer = "timer@example.com"
    await createUser(app, { email: timer })
    const wrong = await answer(await post("/auth/login", { email: timer, password: "wrong password" }, ip))
    const missing = await answer(await post("/auth/login", { email: unknown, password: "wrong password" }, ip))
    expect(wrong.status).toBe(401)
    expect(missing).toEqual(wrong)
    expect(JSON.parse(wrong.body)).toEqual({ detail: "Invalid e-mail or password", code: "invalid_credentials" })
    const time = async (email: string) => {
      const t0 = performance.now()
      await post("/auth/login", { email, password: "wrong password" }, freshIp())
      return performance.now() - t0
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    const knownTimes: number[] = []
    const unknownTimes: number[] = []
    for (let i = 0; i < 3; i++) {
      knownTimes.push(await time(timer))
      unknownTimes.push(await time(`ghost${i}@example.com`))
    }
    // An unknown address still pays for a full password hash (tens of milliseconds), not a bare lookup.
    expect(median(unknownTimes)).toBeGreaterThan(median(knownTimes) * 0.4)
  })
})

describe("throttling", () => {
  it("per account: 429 with Retry-After after the limit, the same for an unknown address, even with the right password", async () => {
    const statuses = async (email: string, password: string) => {
      const out: Array<{ status: number; retryAfter: string | null; body: string }> = []
      for (let i = 0; i < 7; i++) {
        const res = await post("/auth/login", { email, password }, freshIp())
        out.push({ status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.text() })
      }
      return out
    }
    const a = await statuses("flask@example.com", "whatever password")
    const b = await statuses(unknown.replace("nobody", "nobody2"), "whatever password")
    expect(a.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 429, 429])
    expect(b.map((r) => r.status)).toEqual(a.map((r) => r.status))
    expect(b[5]!.body).toBe(a[5]!.body)
    expect(JSON.parse(a[5]!.body).code).toBe("rate_limited")
    const retry = Number(a[5]!.retryAfter)
    expect(retry).toBeGreaterThan(0)
    expect(retry).toBeLessThanOrEqual(900)

    await createUser(app, { email: "stubb@example.com", password: "stubb password 1" })
    for (let i = 0; i < 5; i++) await post("/auth/login", { email: "stubb@example.com", password: "guess" + i }, freshIp())
    const locked = await post("/auth/login", { email: "stubb@example.com", password: "stubb password 1" }, freshIp())
    expect(locked.status).toBe(429)
    expect(locked.headers.get("retry-after")).toMatch(/^\d+$/)
  })

  it("per IP: one address trying many accounts is stopped, other clients are not", async () => {
    const ip = freshIp()
    const codes: number[] = []
    for (let i = 0; i < 10; i++) codes.push((await post("/auth/login", { email: `spray${i}@example.com`, password: "spray password" }, ip)).status)
    expect(codes.slice(0, 8).every((c) => c === 401)).toBe(true)
    expect(codes.slice(8)).toEqual([429, 429])
    await createUser(app, { email: "flask2@example.com" })
    await login(app, "flask2@example.com", undefined, { "x-forwarded-for": freshIp() })
  })

  it("account mails are budgeted per address: forgot-password still answers 200 but stops mailing", async () => {
    const email = "daggoo@example.com"
    await createUser(app, { email })
    for (let i = 0; i < 4; i++) expect((await post("/auth/forgot-password", { email }, freshIp())).status).toBe(200)
    await smtp.next(email, (m) => m.subject.includes("Reset"))
    await smtp.next(email, (m) => m.subject.includes("Reset"))
    // The budget is applied before anything is queued: two outbox rows, so never more than two mails.
    expect(await app.query("SELECT 1 FROM email_outbox WHERE to_address = $1", [email])).toHaveLength(2)
    expect(smtp.to(email)).toHaveLength(2)
  })

  it("resend-verification mails an unverified account, says so for a verified one, and is throttled", async () => {
    const ip = freshIp()
    await post("/auth/register", { email: "tashtego@example.com", password: "tashtego pass 1" }, ip)
    await smtp.next("tashtego@example.com", (m) => m.subject.includes("Confirm"))
    const { token } = await login(app, "tashtego@example.com", "tashtego pass 1", { "x-forwarded-for": freshIp() })
    expect((await post("/auth/resend-verification", {}, ip)).status).toBe(401)
    const first = await post("/auth/resend-verification", {}, ip, bearer(token))
    expect(first.status).toBe(200)
    expect((await first.json()).message).toContain("sent")
    await smtp.next("tashtego@example.com", (m) => m.subject.includes("Confirm"))
    await post("/auth/resend-verification", {}, ip, bearer(token))
    const third = await post("/auth/resend-verification", {}, ip, bearer(token))
    expect(third.status).toBe(429)
    await createUser(app, { email: "verified@example.com" })
    const verified = (await login(app, "verified@example.com", undefined, { "x-forwarded-for": freshIp() })).token
    const none = await post("/auth/resend-verification", {}, ip, bearer(verified))
    expect((await none.json()).message).toContain("already verified")
  })
})

describe("validation", () => {
  it("register and login accept JSON and form bodies; bad input is 422 with the field's location", async () => {
    const ip = freshIp()
    const form = await fetch(app.url + "/auth/register", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": ip },
      body: "email=Form.User%40Example.com&password=form+password+1&display_name=Formy"
    })
    expect(form.status).toBe(200)
    const [row] = await app.query<{ display_name: string }>("SELECT display_name FROM users WHERE email = 'form.user@example.com'")
    expect(row!.display_name).toBe("Formy")
    const formLogin = await fetch(app.url + "/auth/login", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": freshIp() },
      body: "email=form.user%40example.com&password=form+password+1"
    })
    expect(formLogin.status).toBe(200)

    const short = await post("/auth/register", { email: "x@example.com", password: "short" }, ip)
    expect(short.status).toBe(422)
    expect((await short.json()).detail[0]).toMatchObject({ loc: ["body", "password"], type: "string_too_short" })
    const badEmail = await post("/auth/register", { email: "not-an-email", password: "long enough password" }, ip)
    expect((await badEmail.json()).detail[0].loc).toEqual(["body", "email"])
    expect((await post("/auth/login", { email: known }, ip)).status).toBe(422)
    expect((await post("/auth/forgot-password", {}, ip)).status).toBe(422)
    expect((await post("/auth/reset-password", { token: "x" }, ip)).status).toBe(422)
  })

  it("profile: display name trimmed, empty clears it, control characters refused; /auth/me needs a session", async () => {
    await createUser(app, { email: "profile@example.com" })
    const { token } = await login(app, "profile@example.com", undefined, { "x-forwarded-for": freshIp() })
    expect((await fetch(app.url + "/auth/me")).status).toBe(401)
    expect((await post("/auth/profile", { display_name: "Starbuck" }, freshIp())).status).toBe(401)
    const set = await post("/auth/profile", { display_name: "  First Mate  " }, freshIp(), bearer(token))
    expect((await set.json()).display_name).toBe("First Mate")
    expect((await post("/auth/profile", { display_name: "bad\u0007name" }, freshIp(), bearer(token))).status).toBe(422)
    expect((await post("/auth/profile", { display_name: "x".repeat(81) }, freshIp(), bearer(token))).status).toBe(422)
    const cleared = await post("/auth/profile", { display_name: "" }, freshIp(), bearer(token))
    expect((await cleared.json()).display_name).toBeNull()
    const wrong = await post("/auth/password", { current_password: "not it", new_password: "another password 1" }, freshIp(), bearer(token))
    expect(wrong.status).toBe(403)
    expect((await wrong.json()).code).toBe("invalid_password")
    expect((await fetch(app.url + "/auth/me", { headers: bearer(token) })).status).toBe(200)
  })
})
