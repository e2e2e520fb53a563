/**
 * Token misuse, refused with a clear status and nothing changed: forged, tampered, expired, reused and
 * type-confused tokens, `alg: none` and foreign algorithms; bearer and cookie sessions; refresh rotation and reuse
 * detection; revoked sessions after logout.
 */
import { Effect } from "effect"
import { generateKeyPair, SignJWT } from "jose"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import { clearedCookies, cookieIsSecure, sessionCookies } from "../../server/domains/accounts/Cookies"
import { Sessions } from "../../server/domains/accounts/Sessions"
import { audienceOf, deriveKey, ISSUER, Jwt, type TokenKind } from "../../server/platform/infra/Jwt"
import { bearer, cookieHeader, cookiesOf, createUser, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { linkTo, startSmtp, type TestSmtp } from "../support/smtp"

// A whole app plus real SMTP per file: leave room for a loaded machine.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 180_000 })

const SECRET = "tokens-test-secret-0123456789abcdef"
let app: TestApp
let smtp: TestSmtp
let userId: number
const email = "queequeg@example.com"

beforeAll(async () => {
  smtp = await startSmtp()
  // Throttling has its own suite (auth.enumeration): here many logins of one account must not trip it.
  app = await startApp({ env: { SMTP_URL: smtp.url, MAIL_POLL_MS: "100", SESSION_SECRET: SECRET, LOGIN_MAX_PER_ACCOUNT: "1000", LOGIN_MAX_PER_IP: "1000" } })
  userId = (await createUser(app, { email })).id
})
afterAll(async () => {
  await app?.close()
  await smtp?.close()
})

const get = (path: string, headers: Record<string, string> = {}) => fetch(app.url + path, { headers, redirect: "manual" })
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(app.url + path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url")
const now = () => Math.floor(Date.now() / 1000)

interface MintOptions {
  readonly sub?: string
  readonly claims?: Record<string, unknown>
  readonly exp?: number
  readonly keyKind?: TokenKind
  readonly secret?: string
  readonly issuer?: string
  readonly audience?: string
  readonly alg?: "HS256" | "HS512"
}

/** A token exactly as the app would sign it, unless an option says otherwise. */
const mint = (kind: string, o: MintOptions = {}) =>
  new SignJWT({ ...o.claims, kind })
    .setProtectedHeader({ alg: o.alg ?? "HS256", typ: "JWT" })
    .setIssuer(o.issuer ?? ISSUER)
    .setAudience(o.audience ?? audienceOf(kind as TokenKind))
    .setSubject(o.sub ?? String(userId))
    .setJti(crypto.randomUUID())
    .setIssuedAt(now() - 10)
    .setExpirationTime(o.exp ?? now() + 600)
    .sign(deriveKey(o.secret ?? SECRET, o.keyKind ?? (kind as TokenKind)))

const passwordVersion = async () => (await app.query<{ v: number }>("SELECT password_version AS v FROM users WHERE id = $1", [userId]))[0]!.v

describe("session tokens", () => {
  it("work as a bearer token and as the whale_token cookie", async () => {
    const s = await login(app, email)
    expect((await get("/auth/me", bearer(s.token))).status).toBe(200)
    expect((await get("/auth/me", cookieHeader({ whale_token: s.token }))).status).toBe(200)
    expect((await get("/auth/me")).status).toBe(401)
  })

  it("the Authorization header wins over the cookie, so a bad bearer token is refused", async () => {
    const s = await login(app, email)
    const res = await get("/auth/me", { ...bearer("not-a-token"), ...cookieHeader({ whale_token: s.token }) })
    expect(res.status).toBe(401)
    expect((await res.json()).code).toBe("invalid_token")
    expect(res.headers.get("www-authenticate")).toContain("Bearer")
  })

  it("refuses forged, tampered, expired, alg:none, foreign-algorithm and wrong-issuer tokens (and /auth/tier stays 200 anon)", async () => {
    const s = await login(app, email)
    const sid = JSON.parse(Buffer.from(s.token.split(".")[1]!, "base64url").toString()).sid as string
    const [h, , sig] = s.token.split(".")
    const { privateKey } = await generateKeyPair("RS256")
    const rs256 = await new SignJWT({ kind: "session", sid }).setProtectedHeader({ alg: "RS256" }).setIssuer(ISSUER)
      .setAudience(audienceOf("session")).setSubject(String(userId)).setJti("x").setIssuedAt().setExpirationTime("10m").sign(privateKey)
    const cases: Record<string, string> = {
      forged: await mint("session", { claims: { sid }, secret: "someone-elses-secret" }),
      tampered: `${h}.${b64({ kind: "session", sid, sub: String(userId + 1), iss: ISSUER, aud: audienceOf("session"), jti: "x", iat: now(), exp: now() + 600 })}.${sig}`,
      "alg none": `${b64({ alg: "none", typ: "JWT" })}.${b64({ kind: "session", sid, sub: String(userId), iss: ISSUER, aud: audienceOf("session"), jti: "x", iat: now(), exp: now() + 600 })}.`,
      hs512: await mint("session", { claims: { sid }, alg: "HS512" }),
      rs256,
      "wrong issuer": await mint("session", { claims: { sid }, issuer: "evil" }),
      "wrong audience": await mint("session", { claims: { sid }, audience: "whale:magic_login" }),
      garbage: "a.b.c"
    }
    for (const [name, token] of Object.entries(cases)) {
      const res = await get("/auth/me", bearer(token))
      expect(res.status, name).toBe(401)
      expect((await res.json()).code, name).toBe("invalid_token")
      const tier = await get("/auth/tier", bearer(token))
      expect(tier.status, name).toBe(200)
      expect(await tier.json(), name).toEqual({ tier: "anon" })
    }
    const expired = await get("/auth/me", bearer(await mint("session", { claims: { sid }, exp: now() - 60 })))
    expect(expired.status).toBe(401)
    expect((await expired.json()).code).toBe("token_expired")
    // The genuine token still works, and a correctly signed one naming its session does too.
    expect((await get("/auth/me", bearer(s.token))).status).toBe(200)
    expect((await get("/auth/me", bearer(await mint("session", { claims: { sid } })))).status).toBe(200)
    // …but not for another user or another session.
    expect((await get("/auth/me", bearer(await mint("session", { claims: { sid }, sub: String(userId + 1) })))).status).toBe(401)
    expect((await get("/auth/me", bearer(await mint("session", { claims: { sid: "no-such-session" } })))).status).toBe(401)
  })

  it("refuses a one-time link token used as a session (type confusion)", async () => {
    const s = await login(app, email)
    const sid = JSON.parse(Buffer.from(s.token.split(".")[1]!, "base64url").toString()).sid as string
    for (const kind of ["magic_login", "verify_email", "password_reset", "activate_trial"] as const) {
      expect((await get("/auth/me", bearer(await mint(kind, { claims: { sid, email } })))).status, kind).toBe(401)
      // Signed with the session key but claiming another kind: the kind claim is checked too.
      expect((await get("/auth/me", bearer(await mint(kind, { claims: { sid }, keyKind: "session", audience: audienceOf("session") })))).status, kind).toBe(401)
    }
  })
})

describe("one-time links", () => {
  it("magic login: reused, expired, forged and type-confused tokens redirect to /login?error=… and set no cookie", async () => {
    const pwv = await passwordVersion()
    const good = await mint("magic_login", { claims: { email, pwv } })
    // A link checker's HEAD probe does not spend the link.
    const probe = await fetch(`${app.url}/auth/magic-login?token=${good}`, { method: "HEAD", redirect: "manual" })
    expect(probe.status).toBe(200)
    expect(probe.headers.getSetCookie()).toEqual([])
    const first = await get(`/auth/magic-login?token=${good}`)
    expect(first.status).toBe(302)
    expect(first.headers.get("location")).toBe("/")
    const cases: Record<string, [string, string]> = {
      reused: [good, "token_used"],
      expired: [await mint("magic_login", { claims: { email, pwv }, exp: now() - 60 }), "token_expired"],
      forged: [await mint("magic_login", { claims: { email, pwv }, secret: "nope" }), "token_invalid"],
      "verify_email token": [await mint("verify_email", { claims: { email } }), "token_invalid"],
      "session token": [(await login(app, email)).token, "token_invalid"],
      "alg none": [`${b64({ alg: "none" })}.${b64({ kind: "magic_login", sub: String(userId), email, pwv, iss: ISSUER, aud: audienceOf("magic_login"), jti: "n", iat: now(), exp: now() + 60 })}.`, "token_invalid"],
      "old password version": [await mint("magic_login", { claims: { email, pwv: pwv - 1 } }), "token_invalid"],
      empty: ["", "token_invalid"]
    }
    for (const [name, [token, reason]] of Object.entries(cases)) {
      const res = await get(`/auth/magic-login?token=${encodeURIComponent(token)}`)
      expect(res.status, name).toBe(302)
      expect(res.headers.get("location"), name).toBe(`/login?error=${reason}`)
      expect(res.headers.getSetCookie(), name).toEqual([])
    }
    expect((await get("/auth/magic-login")).status).toBe(422)
  })

  it("password reset: a token works once; expired, confused and pre-change tokens are refused and change nothing", async () => {
    const pwv = await passwordVersion()
    const [before] = await app.query<{ h: string }>("SELECT password_hash AS h FROM users WHERE id = $1", [userId])
    const refused: Record<string, [string, string]> = {
      expired: [await mint("password_reset", { claims: { email, pwv }, exp: now() - 60 }), "token_expired"],
      "magic_login token": [await mint("magic_login", { claims: { email, pwv } }), "token_invalid"],
      "kind claim mismatch": [await mint("magic_login", { claims: { email, pwv }, keyKind: "password_reset", audience: audienceOf("password_reset") }), "token_invalid"],
      "other address": [await mint("password_reset", { claims: { email: "other@example.com", pwv } }), "token_invalid"]
    }
    for (const [name, [token, code]] of Object.entries(refused)) {
      const res = await post("/auth/reset-password", { token, new_password: "attacker password 1" })
      expect(res.status, name).toBe(400)
      expect((await res.json()).code, name).toBe(code)
    }
    const [unchanged] = await app.query<{ h: string }>("SELECT password_hash AS h FROM users WHERE id = $1", [userId])
    expect(unchanged!.h).toBe(before!.h)

    const token = await mint("password_reset", { claims: { email, pwv } })
    const older = await mint("password_reset", { claims: { email, pwv } })
    expect((await post("/auth/reset-password", { token, new_password: "reset password 1234" })).status).toBe(200)
    const again = await post("/auth/reset-password", { token, new_password: "reset password 5678" })
    expect(again.status).toBe(400)
    expect((await again.json()).code).toBe("token_used")
    // A second link mailed before the reset died with the old password.
    const stale = await post("/auth/reset-password", { token: older, new_password: "reset password 5678" })
    expect((await stale.json()).code).toBe("token_invalid")
    await login(app, email, "reset password 1234")
    expect((await post("/auth/login", { email, password: "reset password 5678" })).status).toBe(401)
    expect((await post("/auth/reset-password", { token, new_password: "short" })).status).toBe(422)
  })

  it("verify-email and activate-trial: reused, expired and confused tokens are 400", async () => {
    const verify = await mint("verify_email", { claims: { email } })
    expect((await get(`/auth/verify-email?token=${verify}`)).status).toBe(200)
    const reused = await get(`/auth/verify-email?token=${verify}`)
    expect(reused.status).toBe(400)
    expect((await reused.json()).code).toBe("token_used")
    const expired = await get(`/auth/verify-email?token=${await mint("verify_email", { claims: { email }, exp: now() - 5 })}`)
    expect((await expired.json()).code).toBe("token_expired")
    const confused = await get(`/auth/activate-trial?token=${await mint("verify_email", { claims: { email } })}`)
    expect(confused.status).toBe(400)
    expect((await confused.json()).code).toBe("token_invalid")
    const trialExpired = await get(`/auth/activate-trial?token=${await mint("activate_trial", { exp: now() - 5 })}`)
    expect((await trialExpired.json()).code).toBe("token_expired")
    expect((await app.query("SELECT * FROM trials WHERE user_id = $1", [userId])).length).toBe(0)
  })
})

describe("refresh and logout", () => {
  it("refresh rotates (cookie or body); reusing a rotated token revokes the whole family", async () => {
    const s = await login(app, email, "reset password 1234")
    const byCookie = await fetch(app.url + "/auth/refresh", { method: "POST", headers: { ...cookieHeader({ whale_refresh: s.refreshToken }), origin: app.url } })
    expect(byCookie.status).toBe(200)
    const second = await byCookie.json()
    expect(second.refresh_token).not.toBe(s.refreshToken)
    expect(cookiesOf(byCookie.headers.getSetCookie()).whale_token).toBe(second.access_token)
    const byBody = await post("/auth/refresh", { refresh_token: second.refresh_token })
    expect(byBody.status).toBe(200)
    const third = await byBody.json()
    expect((await get("/auth/me", bearer(third.access_token))).status).toBe(200)

    const replay = await post("/auth/refresh", { refresh_token: s.refreshToken })
    expect(replay.status).toBe(401)
    expect((await replay.json()).code).toBe("refresh_token_reused")
    // The family is gone: the newest tokens stop working too.
    expect((await get("/auth/me", bearer(third.access_token))).status).toBe(401)
    expect((await post("/auth/refresh", { refresh_token: third.refresh_token })).status).toBe(401)
    expect((await post("/auth/refresh", {})).status).toBe(401)
    expect((await post("/auth/refresh", { refresh_token: "made-up" })).status).toBe(401)
  })

  it("logout ends the session (token and refresh token) and clears the cookies; everywhere ends them all", async () => {
    const a = await login(app, email, "reset password 1234")
    const b = await login(app, email, "reset password 1234")
    const res = await fetch(app.url + "/auth/logout", { method: "POST", headers: { ...bearer(a.token), ...cookieHeader({ whale_refresh: a.refreshToken }) } })
    expect(res.status).toBe(200)
    expect(res.headers.getSetCookie().join("\n")).toMatch(/whale_token=; Path=\/; Max-Age=0/)
    const gone = await get("/auth/me", bearer(a.token))
    expect(gone.status).toBe(401)
    expect((await gone.json()).code).toBe("session_revoked")
    expect((await post("/auth/refresh", { refresh_token: a.refreshToken })).status).toBe(401)
    expect((await get("/auth/me", bearer(b.token))).status).toBe(200)
    expect((await post("/auth/logout", { everywhere: true }, bearer(b.token))).status).toBe(200)
    expect((await get("/auth/me", bearer(b.token))).status).toBe(401)
    expect((await post("/auth/logout", {})).status).toBe(200)
  })

  it("a magic-link session can be refreshed through its cookie", async () => {
    expect((await post("/auth/magic-link", { email })).status).toBe(200)
    const mail = await smtp.next(email, (m) => m.subject.includes("sign-in link"))
    const url = linkTo(mail, "/auth/magic-login")
    const res = await get(url.pathname + url.search)
    const cookies = cookiesOf(res.headers.getSetCookie())
    const refreshed = await fetch(app.url + "/auth/refresh", { method: "POST", headers: { ...cookieHeader({ whale_refresh: cookies.whale_refresh! }), origin: app.url } })
    expect(refreshed.status).toBe(200)
  })
})

describe("housekeeping (auth-janitor)", () => {
  it("forgets expired spent tokens, long-ended sessions and old rotated refresh tokens; keeps what still matters", async () => {
    const live = await login(app, email, "reset password 1234")
    await app.query(
      `INSERT INTO used_tokens (jti, kind, expires_at) VALUES ('old-jti', 'magic_login', now() - interval '1 day'), ('fresh-jti', 'magic_login', now() + interval '1 hour')`
    )
    await app.query(
      `INSERT INTO sessions (id, user_id, expires_at, revoked_at) VALUES ('ancient', $1, now() + interval '1 day', now() - interval '8 days')`,
      [userId]
    )
    await app.query(`INSERT INTO refresh_tokens (token_hash, session_id, rotated_at) VALUES ('old-rotated', 'ancient', now() - interval '8 days')`)
    const result = await app.runtime.runPromise(
      Effect.all({ used: Effect.flatMap(Jwt, (j) => j.pruneUsed()), sessions: Effect.flatMap(Sessions, (s) => s.prune()) }).pipe(
        Effect.provide(Sessions.Default),
        Effect.provide(Jwt.Default)
      )
    )
    expect(result.used).toBeGreaterThanOrEqual(1)
    expect(await app.query("SELECT jti FROM used_tokens WHERE jti IN ('old-jti', 'fresh-jti')")).toEqual([{ jti: "fresh-jti" }])
    expect(await app.query("SELECT id FROM sessions WHERE id = 'ancient'")).toHaveLength(0)
    expect(await app.query("SELECT 1 FROM refresh_tokens WHERE token_hash = 'old-rotated'")).toHaveLength(0)
    expect((await get("/auth/me", bearer(live.token))).status).toBe(200)
    expect((await post("/auth/refresh", { refresh_token: live.refreshToken })).status).toBe(200)
  })
})

describe("cookies", () => {
  it("are Secure unless the service is plain http on localhost / 127.0.0.1", () => {
    expect(cookieIsSecure("http://localhost:8080")).toBe(false)
    expect(cookieIsSecure("http://127.0.0.1")).toBe(false)
    expect(cookieIsSecure("https://localhost")).toBe(true)
    expect(cookieIsSecure("https://whale.example")).toBe(true)
    expect(cookieIsSecure("http://whale.example")).toBe(true)
    const session = { userId: 1, sessionId: "s", accessToken: "a.b.c", expiresIn: 900, refreshToken: "r" }
    expect(sessionCookies(session, 2_592_000, true).map(([, v]) => v)).toEqual([
      "whale_token=a.b.c; Path=/; Max-Age=900; HttpOnly; SameSite=Lax; Secure",
      "whale_refresh=r; Path=/auth; Max-Age=2592000; HttpOnly; SameSite=Lax; Secure"
    ])
    expect(clearedCookies(false).map(([, v]) => v)).toEqual([
      "whale_token=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax",
      "whale_refresh=; Path=/auth; Max-Age=0; HttpOnly; SameSite=Lax"
    ])
  })
})
