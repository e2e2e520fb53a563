/**
 * Tiers and guards: the entitlement rule (grants, subscription states, trials; highest wins), the route guards
 * (user, optional user, tier ≥ X, admin), trial activation rules, and account-type rules (never business →
 * personal; no tier or subscription data touched).
 */
import type { AppError } from "../../server/platform/http/Errors"
import { Effect, Either } from "effect"
import { SignJWT } from "jose"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import type { Tier } from "../../schema/tiers"
import { effectiveTier } from "../../server/domains/accounts/Entitlements"
import { AuthGuards, cookieValue } from "../../server/domains/accounts/Guards"
import { AccountLinks } from "../../server/domains/accounts/Links"
import type { Guard, RequestInfo } from "../../server/platform/http/Route"
import { errorReply } from "../../server/platform/http/Respond"
import { audienceOf, deriveKey, ISSUER } from "../../server/platform/infra/Jwt"
import { bearer, createUser, login, setTier } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"

// A whole app plus real SMTP per file: leave room for a loaded machine.
vi.setConfig({ testTimeout: 90_000, hookTimeout: 180_000 })

const SECRET = "tiers-test-secret-0123456789abcdef"
let app: TestApp
let guards: AuthGuards

beforeAll(async () => {
  app = await startApp({ env: { SESSION_SECRET: SECRET } })
  guards = await app.runtime.runPromise(AuthGuards.pipe(Effect.provide(AuthGuards.Default)))
})
afterAll(async () => {
  await app?.close()
})

const get = (path: string, headers: Record<string, string> = {}) => fetch(app.url + path, { headers })
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(app.url + path, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) })
const tierOf = async (token: string) => ((await (await get("/auth/tier", bearer(token))).json()) as { tier: string }).tier
const idOf = async (email: string) => (await app.query<{ id: number }>("SELECT id FROM users WHERE email = $1", [email]))[0]!.id

const request = (headers: Record<string, string>): RequestInfo => ({
  id: "test", method: "GET", path: "/x", query: "", ip: "127.0.0.1",
  headers: new Map(Object.entries(headers)),
  header: (name) => headers[name],
  cookie: (name) => cookieValue(headers.cookie, name)
})

/** Runs a guard: its user, or the status and body its refusal answers with. */
const run = async <A>(guard: Guard<A>, headers: Record<string, string>) => {
  const result = await app.runtime.runPromise(Effect.either(guard.run(request(headers))))
  if (Either.isRight(result)) return { ok: true as const, user: result.right }
  const reply = errorReply(result.left as AppError)
  return { ok: false as const, status: reply.status, body: JSON.parse(String(reply.body)) }
}

describe("the entitlement rule", () => {
  const at = new Date("2026-06-01T00:00:00Z")
  const later = new Date("2026-06-02T00:00:00Z")
  const earlier = new Date("2026-05-31T00:00:00Z")
  const sub = (tier: Tier, status: string, until: Date | null, trial_end: Date | null = null) =>
    ({ source: "subscription", tier, status, until, trial_end }) as const

  it("active until its period end (a renewing card one 48 h longer); trialing until trial end; canceled but paid until period end; otherwise free", () => {
    const card = (until: Date, cancelAtPeriodEnd: boolean) => ({ ...sub("pro", "active", until), provider: "card", cancel_at_period_end: cancelAtPeriodEnd })
    expect(effectiveTier([], at)).toBe("free")
    expect(effectiveTier([sub("pro", "active", later)], at)).toBe("pro")
    expect(effectiveTier([sub("pro", "active", null)], at)).toBe("pro")
    expect(effectiveTier([sub("pro", "active", earlier)], at)).toBe("free")
    expect(effectiveTier([card(earlier, false)], at)).toBe("pro")
    expect(effectiveTier([card(new Date("2026-05-29T23:00:00Z"), false)], at)).toBe("free")
    expect(effectiveTier([card(earlier, true)], at)).toBe("free")
    expect(effectiveTier([{ ...sub("pro", "active", earlier), provider: "crypto", cancel_at_period_end: false }], at)).toBe("free")
    expect(effectiveTier([sub("whale", "trialing", later, later)], at)).toBe("whale")
    expect(effectiveTier([sub("whale", "trialing", later, earlier)], at)).toBe("free")
    expect(effectiveTier([sub("alpha", "canceled", later)], at)).toBe("alpha")
    expect(effectiveTier([sub("alpha", "canceled", earlier)], at)).toBe("free")
    expect(effectiveTier([sub("pro", "past_due", later)], at)).toBe("free")
    expect(effectiveTier([sub("pro", "incomplete", later)], at)).toBe("free")
  })

  it("grants and trials count while they last; the highest source wins", () => {
    expect(effectiveTier([{ source: "grant", tier: "staff", status: null, until: null, trial_end: null }, sub("pro", "active", later)], at)).toBe("staff")
    expect(effectiveTier([{ source: "grant", tier: "whale", status: null, until: earlier, trial_end: null }, sub("pro", "active", later)], at)).toBe("pro")
    expect(effectiveTier([{ source: "trial", tier: "alpha", status: null, until: later, trial_end: null }, sub("pro", "active", later)], at)).toBe("alpha")
    expect(effectiveTier([{ source: "trial", tier: "alpha", status: null, until: earlier, trial_end: null }], at)).toBe("free")
  })

  it("/auth/tier follows subscription rows written by billing", async () => {
    const email = "subscriber@example.com"
    const id = (await createUser(app, { email })).id
    const token = (await login(app, email)).token
    const setSub = (status: string, periodEnd: string, trialEnd: string | null = null) =>
      app.query(
        `INSERT INTO subscriptions (user_id, provider, tier, status, interval, current_period_end, trial_end, provider_subscription_id)
         VALUES ($1, 'card', 'pro', $2, 'month', now() + $3::interval, now() + $4::interval, 'sub_test')
         ON CONFLICT (provider, provider_subscription_id) DO UPDATE
         SET status = EXCLUDED.status, current_period_end = EXCLUDED.current_period_end, trial_end = EXCLUDED.trial_end`,
        [id, status, periodEnd, trialEnd ?? "0 seconds"]
      )
    expect(await tierOf(token)).toBe("free")
    await setSub("active", "30 days")
    expect(await tierOf(token)).toBe("pro")
    await setSub("canceled", "3 days")
    expect(await tierOf(token)).toBe("pro")
    await setSub("canceled", "-1 second")
    expect(await tierOf(token)).toBe("free")
    await setSub("trialing", "7 days", "7 days")
    expect(await tierOf(token)).toBe("pro")
    await setSub("trialing", "7 days", "-1 second")
    expect(await tierOf(token)).toBe("free")
    await setSub("past_due", "30 days")
    expect(await tierOf(token)).toBe("free")
    await setTier(app, email, "whale")
    expect(await tierOf(token)).toBe("whale")
  })
})

describe("guards", () => {
  it("user / optionalUser: anonymous is 401 / null; a session passes with its AuthUser", async () => {
    const email = "guarded@example.com"
    await createUser(app, { email })
    const { token } = await login(app, email)
    expect(await run(guards.user, {})).toMatchObject({ ok: false, status: 401, body: { code: "not_authenticated" } })
    expect(await run(guards.optionalUser, {})).toEqual({ ok: true, user: null })
    expect(await run(guards.optionalUser, bearer("junk"))).toEqual({ ok: true, user: null })
    const viaCookie = await run(guards.user, { cookie: `other=1; whale_token=${token}` })
    expect(viaCookie).toMatchObject({
      ok: true,
      user: { email, displayName: null, tier: "free", admin: false, emailVerified: true, accountType: "personal" }
    })
    const resolved = await app.runtime.runPromise(guards.resolveHeaders({ cookie: `whale_token=${token}` }))
    expect(resolved?.email).toBe(email)
    expect(await app.runtime.runPromise(guards.resolveHeaders({ authorization: "Bearer junk" }))).toBeNull()
  })

  it("tier(min): 401 anonymous, 403 tier_required with the required tier below it, passes at or above", async () => {
    const email = "climber@example.com"
    await createUser(app, { email })
    const { token } = await login(app, email)
    expect(await run(guards.tier("pro"), {})).toMatchObject({ ok: false, status: 401 })
    const refused = await run(guards.tier("pro"), bearer(token))
    expect(refused).toEqual({
      ok: false,
      status: 403,
      body: { detail: expect.any(String), code: "tier_required", required_tier: "pro", tier: "free" }
    })
    await setTier(app, email, "alpha")
    expect(await run(guards.tier("pro"), bearer(token))).toMatchObject({ ok: true, user: { tier: "alpha" } })
    expect(await run(guards.tier("alpha"), bearer(token))).toMatchObject({ ok: true })
    expect(await run(guards.tier("whale"), bearer(token))).toMatchObject({ ok: false, status: 403, body: { required_tier: "whale" } })
  })

  it("admin is a role apart from the tier", async () => {
    await createUser(app, { email: "boss@example.com", admin: true })
    await createUser(app, { email: "rich@example.com", tier: "staff" })
    const boss = (await login(app, "boss@example.com")).token
    const rich = (await login(app, "rich@example.com")).token
    expect(await run(guards.admin, bearer(boss))).toMatchObject({ ok: true, user: { admin: true, tier: "free" } })
    // An administrator reads what the admin pages let them edit (the playbook's events are whale-tier reads).
    expect(await run(guards.tier("whale"), bearer(boss))).toMatchObject({ ok: true, user: { admin: true, tier: "free" } })
    expect(await run(guards.tier("whale"), bearer(rich))).toMatchObject({ ok: true })
    expect(await run(guards.admin, bearer(rich))).toMatchObject({ ok: false, status: 403, body: { code: "admin_required" } })
    expect(await run(guards.admin, {})).toMatchObject({ ok: false, status: 401 })
    expect((await (await get("/auth/me", bearer(boss))).json()).admin).toBe(true)
  })
})

describe("trial activation", () => {
  const trialToken = (userId: number) =>
    app.runtime.runPromise(
      Effect.flatMap(AccountLinks, (l) => l.trialLink(userId)).pipe(Effect.provide(AccountLinks.Default))
    ).then((link) => new URL(link).searchParams.get("token")!)
  const activate = (token: string) => get(`/auth/activate-trial?token=${token}`)

  it("the link is valid 30 days and the trial lasts 7 days, once per account", async () => {
    const email = "trialist@example.com"
    const id = (await createUser(app, { email })).id
    const token = await trialToken(id)
    const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString())
    expect(claims.exp - claims.iat).toBe(30 * 86_400)
    expect(claims).toMatchObject({ kind: "activate_trial", sub: String(id) })
    expect((await activate(token)).status).toBe(200)
    const [trial] = await app.query<{ days: number; tier: string }>(
      "SELECT EXTRACT(EPOCH FROM ends_at - started_at) / 86400 AS days, tier FROM trials WHERE user_id = $1",
      [id]
    )
    expect(trial).toEqual({ days: 7, tier: "alpha" })
    const second = await activate(await trialToken(id))
    expect(second.status).toBe(409)
    expect((await second.json()).code).toBe("trial_already_used")
    // When it ends, the account is free again.
    await app.query("UPDATE trials SET ends_at = now() - interval '1 second' WHERE user_id = $1", [id])
    expect(await tierOf((await login(app, email)).token)).toBe("free")
  })

  it("only for verified free accounts; a refused link stays usable and nothing changes", async () => {
    await post("/auth/register", { email: "unverified@example.com", password: "unverified pass 1" })
    const unverified = await idOf("unverified@example.com")
    const token = await trialToken(unverified)
    const res = await activate(token)
    expect(res.status).toBe(403)
    expect((await res.json()).code).toBe("email_unverified")
    await app.query("UPDATE users SET email_verified_at = now() WHERE id = $1", [unverified])
    expect((await activate(token)).status).toBe(200)

    const paid = (await createUser(app, { email: "paying@example.com", tier: "pro" })).id
    const refused = await activate(await trialToken(paid))
    expect(refused.status).toBe(409)
    expect((await refused.json()).code).toBe("not_free_tier")
    expect(await app.query("SELECT 1 FROM trials WHERE user_id = $1", [paid])).toHaveLength(0)

    const ghost = await new SignJWT({ kind: "activate_trial" }).setProtectedHeader({ alg: "HS256" }).setIssuer(ISSUER)
      .setAudience(audienceOf("activate_trial")).setSubject("999999").setJti("ghost").setIssuedAt().setExpirationTime("1h")
      .sign(deriveKey(SECRET, "activate_trial"))
    expect((await activate(ghost)).status).toBe(400)
  })
})

describe("account type", () => {
  it("personal → business with company details, details updatable, never back to personal; tier and subscription untouched", async () => {
    const email = "corp@example.com"
    const id = (await createUser(app, { email, tier: "pro" }))!.id
    await app.query(
      `INSERT INTO subscriptions (user_id, provider, tier, status, interval, current_period_end) VALUES ($1, 'crypto', 'alpha', 'active', 'year', now() + interval '300 days')`,
      [id]
    )
    const snapshot = () =>
      Promise.all([
        app.query("SELECT * FROM subscriptions WHERE user_id = $1 ORDER BY id", [id]),
        app.query("SELECT * FROM tier_grants WHERE user_id = $1", [id]),
        app.query("SELECT * FROM trials WHERE user_id = $1", [id])
      ])
    const before = await snapshot()
    const { token } = await login(app, email)

    expect((await post("/auth/account-type", { account_type: "business" })).status).toBe(401)
    const missing = await post("/auth/account-type", { account_type: "business" }, bearer(token))
    expect(missing.status).toBe(422)
    expect((await missing.json()).detail[0].loc).toEqual(["body", "company_name"])
    expect((await post("/auth/account-type", { account_type: "personal" }, bearer(token))).status).toBe(200)

    const switched = await post("/auth/account-type", { account_type: "business", company_name: "Pequod Ltd", vat_id: "GB123", country: "gb" }, bearer(token))
    expect(switched.status).toBe(200)
    expect(await switched.json()).toMatchObject({
      account_type: "business",
      tier: "alpha",
      company: { name: "Pequod Ltd", vat_id: "GB123", address: null, country: "GB" }
    })
    const updated = await fetch(app.url + "/auth/account-type", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...bearer(token) },
      body: "account_type=business&company_name=Pequod+Whaling+Co&address=Nantucket"
    })
    expect((await updated.json()).company).toEqual({ name: "Pequod Whaling Co", vat_id: null, address: "Nantucket", country: null })

    const back = await post("/auth/account-type", { account_type: "personal" }, bearer(token))
    expect(back.status).toBe(409)
    expect((await back.json()).code).toBe("business_account_final")
    expect((await (await get("/auth/me", bearer(token))).json()).account_type).toBe("business")
    expect(await snapshot()).toEqual(before)
  })
})
