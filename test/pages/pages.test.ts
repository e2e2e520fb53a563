/**
 * Every page of §4.5 over HTTP: the legal pages with their content, the redirects, the signed-in console pages,
 * and /positioning rendered per tier from real stored flows, with no leak between tiers (cache per tier, private).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bearer, createUser, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"

let app: TestApp
const tokens: Record<string, string> = {}
const ASSETS = 14

beforeAll(async () => {
  app = await startApp({ env: { WHALE_ROLES: "http", CONTACT_EMAIL: "privacy@whales.example.org" } })
  for (const tier of ["free", "pro", "alpha", "whale"]) {
    await createUser(app, { email: `${tier}@example.com`, ...(tier === "free" ? {} : { tier }) })
    tokens[tier] = (await login(app, `${tier}@example.com`)).token
  }
  await createUser(app, { email: "admin@example.com", admin: true })
  tokens.admin = (await login(app, "admin@example.com")).token
  // 14 assets traded by a named mega wallet (accumulating) and an unnamed mid wallet, over the last days
  await app.query(`INSERT INTO tracked_wallets (address, label, cohort, source) VALUES
    ('0x00000000000000000000000000000000000a1a1a', 'Leak Canary Fund', 'mega', 'seed'),
    ('0x00000000000000000000000000000000000b2b2b', 'Mid Wallet', 'mid', 'seed') ON CONFLICT (address) DO NOTHING`)
  for (let i = 1; i <= ASSETS; i++) {
    const token = `0x${(0xabc000 + i).toString(16).padStart(40, "0")}`
    const sym = `QQT${String(i).padStart(2, "0")}`
    const usd = 1_000_000 * (20 - i)
    await app.query(`INSERT INTO whale_tx (tx_hash, log_index, wallet, token, symbol, decimals, category, amount, amount_raw, usd, price_usd, block_number, block_hash, ts, source) VALUES
      ($1, 0, '0x00000000000000000000000000000000000a1a1a', $2, $3, 18, 'dex_buy', 1, 1, $4, $4, $5, '0xbb', now() - interval '2 days', 'internal'),
      ($1, 1, '0x00000000000000000000000000000000000b2b2b', $2, $3, 18, 'dex_sell', 1, 1, $6, $6, $5, '0xbb', now() - interval '2 days', 'internal')`,
      [`0x${i.toString(16).padStart(64, "0")}`, token, sym, usd, i, usd / 3])
  }
})
afterAll(async () => {
  await app?.close()
})

const page = (path: string, token?: string) => fetch(`${app.url}${path}`, { redirect: "manual", headers: token ? bearer(token) : {} })
const sym = (i: number) => `QQT${String(i).padStart(2, "0")}`

describe("legal pages", () => {
  const expectations: Record<string, ReadonlyArray<RegExp>> = {
    "/terms": [/Not financial advice/, /CC-BY-4\.0/, /7 days/],
    "/business-terms": [/business account/i, /VAT/],
    "/privacy": [/What we store and why/, /scrypt/, /whale_token|cookie policy/i],
    "/disclaimer": [/Not financial advice/, /observ/i, /CC-BY-4\.0/],
    "/cookie-policy": [/whale_token/, /whale_refresh/, /HttpOnly/]
  }
  for (const [path, patterns] of Object.entries(expectations)) {
    it(`${path} answers its content in the site layout`, async () => {
      const res = await page(path)
      expect(res.status).toBe(200)
      expect(res.headers.get("content-type")).toMatch(/^text\/html/)
      const html = await res.text()
      for (const p of patterns) expect(html, String(p)).toMatch(p)
      expect(html).toContain('<a href="mailto:privacy@whales.example.org">')
      expect(html).not.toContain("no-reply@localhost")
      expect(html).toContain('name="viewport"')
      expect(html).toContain('href="/privacy"')
      expect(html).not.toMatch(/<script/i)
    })
  }
})

describe("pricing", () => {
  it("/pricing shows every public tier from /api/pricing: prices, alert and API limits, features, the way in", async () => {
    const pricing = await (await fetch(`${app.url}/api/pricing`)).json() as { tiers: Array<{ name: string; display_name: string; monthly_usd: number; yearly_usd: number; alert_limit: number; api_requests_per_day: number }> }
    const res = await page("/pricing")
    expect(res.status).toBe(200)
    const html = await res.text()
    expect(html).not.toMatch(/<script/i)
    for (const t of pricing.tiers) {
      expect(html).toContain(`<th>${t.display_name}<br>`)
      if (t.monthly_usd > 0) {
        expect(html).toContain(`<strong>$${t.monthly_usd.toLocaleString("en-US")}</strong> / month`)
        expect(html).toContain(`$${t.yearly_usd.toLocaleString("en-US")} / year`)
        expect(html).toContain(`href="/billing?plan=${t.name}"`)
      }
    }
    const alerts = /<tr><td>Alerts<\/td>(.*?)<\/tr>/.exec(html)![1]!
    expect([...alerts.matchAll(/<td>([\d,]+)<\/td>/g)].map((m) => Number(m[1]!.replace(/,/g, "")))).toEqual(pricing.tiers.map((t) => t.alert_limit))
    expect(html).toContain("25,000")
    expect(html).toContain('href="/register">Start free')
    expect(html).toContain("Data API keys")
  })
})

describe("redirects", () => {
  it("/legal → /terms, /cookies → /cookie-policy, /accumulation → /positioning (301)", async () => {
    for (const [from, to] of [["/legal", "/terms"], ["/cookies", "/cookie-policy"], ["/accumulation", "/positioning"]]) {
      const res = await page(from!)
      expect(res.status, from).toBe(301)
      expect(res.headers.get("location"), from).toBe(to)
    }
    expect((await page("/accumulation?ref=mail")).headers.get("location")).toBe("/positioning?ref=mail")
  })
})

describe("console pages that need a session", () => {
  it("send anonymous callers to the login page and back, and serve the console to signed-in users", async () => {
    for (const path of ["/billing", "/email", "/alerts", "/watchlist"]) {
      const anon = await page(path)
      expect(anon.status, path).toBe(302)
      expect(anon.headers.get("location"), path).toBe(`/login?next=${encodeURIComponent(path)}`)
      const signedIn = await page(path, tokens.admin)
      expect(signedIn.status, path).toBe(200)
      expect(signedIn.headers.get("content-type"), path).toMatch(/^text\/html/)
    }
    expect((await page("/watchlist", tokens.free)).status).toBe(200)
    const hidden = await page("/email", tokens.whale)
    expect(hidden.status).toBe(404)
    expect(await hidden.text()).not.toMatch(/mail|workspace|staff/i)
  })
})

describe("/positioning per tier", () => {
  const get = async (token?: string) => {
    const res = await page("/positioning", token)
    expect(res.status).toBe(200)
    expect(res.headers.get("cache-control")).toMatch(/private/)
    expect(res.headers.get("vary")).toMatch(/Cookie/)
    return res.text()
  }

  it("anon: majors, score and divergence; the table is a sign-up teaser", async () => {
    const html = await get()
    expect(html).toContain("Majors score")
    expect(html).toContain("Cohort divergence")
    expect(html).toContain("Sign up free")
    expect(html).not.toMatch(/QQT\d\d/)
    expect(html).not.toContain("Leak Canary Fund")
  })

  it("free: the top 10 rows then a Pro teaser", async () => {
    const html = await get(tokens.free)
    for (let i = 1; i <= 10; i++) expect(html).toContain(sym(i))
    for (let i = 11; i <= ASSETS; i++) expect(html).not.toContain(sym(i))
    expect(html).toContain("Upgrade to Pro")
    expect(html).not.toContain("Size cohorts")
    expect(html).not.toContain("Leak Canary Fund")
  })

  it("pro: the full table and size cohorts, no named wallets", async () => {
    const html = await get(tokens.pro)
    for (let i = 1; i <= ASSETS; i++) expect(html).toContain(sym(i))
    expect(html).toContain("Size cohorts")
    expect(html).not.toContain("Leak Canary Fund")
  })

  it("alpha and above: also the named accumulator wallets; and anon still sees none of it afterwards", async () => {
    for (const t of [tokens.alpha, tokens.whale]) expect(await get(t)).toContain("Leak Canary Fund")
    const anonAgain = await get()
    expect(anonAgain).not.toContain("Leak Canary Fund")
    expect(anonAgain).not.toMatch(/QQT\d\d/)
    expect(await get(tokens.free)).not.toContain("Leak Canary Fund")
  })
})
