/**
 * The wallet page's reads and the keyed wallet endpoints (issue 28 part 6, issue 29 part 1) on stored records with
 * answers worked out by hand (test/support/whales.ts): identity with sources, size, 7d/30d flows, per-token and
 * per-day flows, trades paged, picks, exchange movements; the gates (401, 403, 422, 404), the quota counted, the
 * OpenAPI document, and a custom wallet seen by its owner alone. Service calls go through the app's runtime.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WalletIdentity } from "../../server/domains/identity/WalletIdentity"
import { WalletProfiles } from "../../server/domains/wallets/WalletProfiles"
import { bearer, setTier } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { DAY, HOUR, insertTx, QUIET_CHAIN, TOKENS, trackTestWallets, W, whaleWithKey, windowDataset } from "../support/whales"

const SECRET = "0x5555555555555555555555555555555555555555"
const STRANGER = "0x9999999999999999999999999999999999999999"
/** Known to the identity engine only (an operator's correction), never tracked. */
const KNOWN = "0x7777777777777777777777777777777777777777"

let app: TestApp
let owner: { key: string; token: string; userId: number }
let other: { key: string; token: string; userId: number }
let pickId: number

beforeAll(async () => {
  app = await startApp({ env: { ...QUIET_CHAIN, API_KEY_CACHE_MS: "300" } })
  await trackTestWallets(app)
  const now = Date.now()
  owner = await whaleWithKey(app, "owner@example.com")
  other = await whaleWithKey(app, "other@example.com")
  // The owner monitors SECRET privately: tracked under its short address, their label in alert_custom_wallets.
  await app.query(`INSERT INTO tracked_wallets (address, label, cohort, source) VALUES ($1, '0x5555…5555', 'mid', 'custom')`, [SECRET])
  await app.query(`INSERT INTO alert_custom_wallets (user_id, address, label) VALUES ($1, $2, 'My secret whale')`, [owner.userId, SECRET])
  await insertTx(app, [...windowDataset(now), { wallet: SECRET, token: "PEPE", category: "dex_buy", usd: 900, at: now - 2 * HOUR }])
  const rows = await app.query<{ id: number }>(
    `INSERT INTO picks (token, symbol, flagged_at, flag_record, entry_price, whales, flaggers, conviction, inputs, status, close_return, peak_return)
     VALUES ($1, 'UNI', $2, 'x:0:w', 5, 2, $3::text[], 71.5, '{}'::jsonb, 'GRADED', 0.12, 0.3) RETURNING id`,
    [TOKENS.UNI, new Date(now - 9 * DAY).toISOString(), `{${W.W1},${W.W2}}`]
  )
  pickId = Number(rows[0]!.id)
  await app.runtime.runPromise(Effect.flatMap(WalletIdentity, (i) => i.correct({
    address: W.W1, action: "set", field: "label", value: "Alpha Whale (confirmed)", exchange: null, reason: "its owner said so"
  }, "test")))
  // Whale discovery measured W3 (and the owner's SECRET); the identity engine once moved W3's class by a rule.
  for (const [address, usd, at] of [[W.W3, 12_500_000, "2026-11-20T06:00:00Z"], [SECRET, 2_000_000, "2026-11-21T06:00:00Z"]] as const) {
    await app.query(`INSERT INTO whale_candidates (address, status, move_verb, move_usd, move_symbol, move_block, move_tx, holdings_usd, holdings, cohort, reason, measured_at, last_active_at, last_block)
      VALUES ($1, 'joined', 'bought', 2400000, 'PEPE', 20000000, '0x${"ab".repeat(32)}', $2, $3::jsonb, 'large', 'bought $2.4M PEPE in block 20000000', $4, now(), 20000000)`,
    [address, usd, JSON.stringify([{ symbol: "USDC", units: usd - 500_000, usd: usd - 500_000 }, { symbol: "ETH", units: 150, usd: 500_000 }, { symbol: "WBTC", units: 1, usd: null }]), at])
  }
  await app.query(`INSERT INTO wallet_identity_history (address, class, previous_class, source, confidence, reason, block, changed_at)
    VALUES ($1, 'trader', NULL, 'rule', 0.6, 'own swaps in block 19999000', 19999000, '2026-11-01T00:00:00Z')`, [W.W3])
  await app.runtime.runPromise(Effect.flatMap(WalletIdentity, (i) => i.correct({
    address: KNOWN, action: "set", field: "class", value: "market_maker", exchange: null, reason: "Acme's hedging wallet"
  }, "test")))
})
afterAll(async () => {
  await app?.close()
})

const keyed = (path: string, key = owner.key) => fetch(app.url + path, { headers: { "x-api-key": key } })
const consoleGet = (path: string, token?: string) => fetch(app.url + path, { headers: token ? bearer(token) : {} })
const json = async (res: Response, status = 200) => {
  const body = await res.json()
  expect(res.status, JSON.stringify(body)).toBe(status)
  return body
}

describe("keyed: GET /api/v1/wallets/{address}", () => {
  it("identity with its sources, size cohort and 7d/30d flows, in the envelope with the quota headers", async () => {
    const res = await keyed(`/api/v1/wallets/${W.W2.toUpperCase().replace("0X", "0x")}`)
    const body = await json(res)
    expect(body.meta).toMatchObject({ tier: "whale", endpoint: "/api/v1/wallets/{address}" })
    expect(res.headers.get("x-ratelimit-limit")).toBe("25000")
    expect(body.data.address).toBe(W.W2)
    expect(body.data.identity).toMatchObject({ class: "whale", class_source: "seed", label: "Beta Fund", label_source: "seed" })
    expect(body.data.identity.reasons.join(" ")).toContain("tracked wallet")
    expect(body.data.tracked).toEqual({ label: "Beta Fund", cohort: "large", source: "seed", active: true })
    // Never measured by whale discovery: no holdings, no date, no measured cohort.
    expect(body.data.size).toEqual({ cohort: "large", holdings_usd: null, holdings: [], measured_at: null, measured_cohort: null })
    expect(body.data.history).toEqual([])
    // W2: sells ETH $400 (50 min ago), buys PEPE $5000 (25 h ago), sells LINK $200 (8 days ago).
    expect(body.data.flows["7d"]).toEqual({ days: 7, dex_buy_usd: 5000, dex_sell_usd: 400, exchange_withdraw_usd: 0, exchange_deposit_usd: 0, net_flow_usd: 4600, trades: 2 })
    expect(body.data.flows["30d"]).toMatchObject({ days: 30, dex_sell_usd: 600, net_flow_usd: 4400, trades: 3 })
  })

  it("an operator's label wins and says so", async () => {
    const body = await json(await keyed(`/api/v1/wallets/${W.W1}`))
    expect(body.data.identity).toMatchObject({ class: "whale", label: "Alpha Whale (confirmed)", label_source: "operator" })
  })

  it("counts each request against the quota, a 404 too", async () => {
    const a = Number((await keyed(`/api/v1/wallets/${W.W1}`)).headers.get("x-ratelimit-remaining"))
    const missing = await keyed(`/api/v1/wallets/${STRANGER}`)
    expect(missing.status).toBe(404)
    expect(Number(missing.headers.get("x-ratelimit-remaining"))).toBe(a - 1)
    const b = Number((await keyed(`/api/v1/wallets/${W.W1}/flows`)).headers.get("x-ratelimit-remaining"))
    expect(b).toBe(a - 2)
  })

  it("404 for an address that is not tracked, even one the identity engine knows", async () => {
    expect((await json(await keyed(`/api/v1/wallets/${STRANGER}`), 404)).code).toBe("wallet_not_tracked")
    await json(await keyed(`/api/v1/wallets/${KNOWN}`), 404)
    await json(await keyed(`/api/v1/wallets/${KNOWN}/flows`), 404)
  })

  it("422 for a malformed address", async () => {
    for (const bad of ["0x123", "vitalik.eth", `${W.W1}00`, "0xZZ11111111111111111111111111111111111111"]) {
      expect((await json(await keyed(`/api/v1/wallets/${bad}`), 422)).detail[0].loc[0], bad).toBe("path")
      await json(await keyed(`/api/v1/wallets/${bad}/flows`), 422)
    }
  })

  it("401 without a key or with a bad one", async () => {
    for (const path of [`/api/v1/wallets/${W.W1}`, `/api/v1/wallets/${W.W1}/flows`]) {
      expect((await fetch(app.url + path)).status).toBe(401)
      expect((await keyed(path, "nope")).status).toBe(401)
    }
  })
})

describe("keyed: the identity's history and the measured size", () => {
  it("the size whale discovery measured: USD by asset (largest first), when, and the cohort it puts the wallet in", async () => {
    const d = (await json(await keyed(`/api/v1/wallets/${W.W3}`))).data
    expect(d.size).toEqual({
      cohort: d.tracked.cohort, holdings_usd: 12_500_000, measured_at: "2026-11-20T06:00:00.000Z", measured_cohort: "large",
      holdings: [{ symbol: "USDC", units: 12_000_000, usd: 12_000_000 }, { symbol: "ETH", units: 150, usd: 500_000 }, { symbol: "WBTC", units: 1, usd: null }]
    })
  })

  it("class changes with source, reason, confidence and block; corrections marked, newest first", async () => {
    const w3 = (await json(await keyed(`/api/v1/wallets/${W.W3}`))).data
    expect(w3.history).toEqual([{
      at: "2026-11-01T00:00:00.000Z", field: "class", action: "set", value: "trader", previous: null, source: "rule",
      reason: "own swaps in block 19999000", confidence: 0.6, block: 19999000, correction: false
    }])
    const w1 = (await json(await keyed(`/api/v1/wallets/${W.W1}`))).data
    // The label correction, then the identity resolved again and stored for the first time (the seed's class).
    expect(w1.history).toEqual([
      expect.objectContaining({ field: "class", value: "whale", previous: null, source: "seed", reason: 'tracked wallet "Alpha Whale" (seed)', confidence: 0.9, correction: false }),
      expect.objectContaining({ field: "label", action: "set", value: "Alpha Whale (confirmed)", source: "operator", reason: "its owner said so", correction: true, block: null })
    ])
    expect(Date.parse(w1.history[0].at)).toBeGreaterThan(Date.now() - 10 * 60_000)
  })

  it("an operator's class correction is listed once, with the class it replaced and the operator's reason", async () => {
    const page = await json(await consoleGet(`/api/console/wallets/${KNOWN}`))
    expect(page.history).toEqual([expect.objectContaining({
      field: "class", action: "set", value: "market_maker", previous: null, source: "operator", reason: "Acme's hedging wallet", correction: true
    })])
  })

  it("a custom wallet's measured size and history go to its owner alone", async () => {
    const mine = (await json(await keyed(`/api/v1/wallets/${SECRET}`))).data
    expect(mine.size).toMatchObject({ holdings_usd: 2_000_000, measured_at: "2026-11-21T06:00:00.000Z" })
    expect(JSON.stringify(mine.history)).not.toContain("My secret whale")
    const other404 = await json(await keyed(`/api/v1/wallets/${SECRET}`, other.key), 404)
    expect(JSON.stringify(other404)).not.toMatch(/2000000|holdings/)
    for (const token of [undefined, other.token]) expect(JSON.stringify(await json(await consoleGet(`/api/console/wallets/${SECRET}`, token), 404))).not.toContain("holdings")
    expect((await json(await consoleGet(`/api/console/wallets/${SECRET}`, owner.token))).size.holdings_usd).toBe(2_000_000)
  })
})

describe("keyed: GET /api/v1/wallets/{address}/flows", () => {
  it("per token and per day over `days`, with the identity and the window", async () => {
    const body = await json(await keyed(`/api/v1/wallets/${W.W2}/flows?days=30`))
    const d = body.data
    expect(d).toMatchObject({ address: W.W2, days: 30, truncated: false })
    expect(d.identity.class).toBe("whale")
    expect(d.to).toBe(new Date().toISOString().slice(0, 10))
    expect(d.totals).toMatchObject({ days: 30, dex_buy_usd: 5000, dex_sell_usd: 600, net_flow_usd: 4400, trades: 3 })
    expect(d.tokens.map((t: { symbol: string }) => t.symbol)).toEqual(["PEPE", "ETH", "LINK"])
    expect(d.tokens[0]).toEqual({ token: TOKENS.PEPE, symbol: "PEPE", dex_buy_usd: 5000, dex_sell_usd: 0, exchange_withdraw_usd: 0, exchange_deposit_usd: 0, net_flow_usd: 5000, trades: 1 })
    expect(d.daily.map((r: { symbol: string }) => r.symbol)).toEqual(["ETH", "PEPE", "LINK"])
    expect(d.daily[0]).toMatchObject({ token: TOKENS.WETH, dex_sell_usd: 400, net_flow_usd: -400, trades: 1 })
    // Seven days leave out the LINK sale of 8 days ago; exchange in/out per token (W3 withdrew ETH $700).
    expect((await json(await keyed(`/api/v1/wallets/${W.W2}/flows?days=7`))).data.tokens).toHaveLength(2)
    const w3 = (await json(await keyed(`/api/v1/wallets/${W.W3}/flows?days=7`))).data
    expect(w3.tokens.find((t: { symbol: string }) => t.symbol === "ETH")).toMatchObject({ exchange_withdraw_usd: 700, net_flow_usd: 700 })
  })

  it("422 for days outside 1..365, with the quota headers (counted)", async () => {
    for (const q of ["days=0", "days=366", "days=abc", "days=1.5"]) {
      const res = await keyed(`/api/v1/wallets/${W.W1}/flows?${q}`)
      expect((await json(res, 422)).detail[0].loc[0], q).toBe("query")
      expect(res.headers.get("x-ratelimit-remaining")).not.toBeNull()
    }
    await json(await keyed(`/api/v1/wallets/${W.W1}/flows?days=365`))
    await json(await keyed(`/api/v1/wallets/${W.W1}/flows?days=1`))
  })
})

describe("custom wallets stay their owner's", () => {
  it("the owner's key sees it with their label; another whale's key gets 404", async () => {
    const mine = (await json(await keyed(`/api/v1/wallets/${SECRET}`))).data
    expect(mine.tracked).toEqual({ label: "My secret whale", cohort: "mid", source: "custom", active: true })
    expect(mine.identity.class).not.toBe("whale")
    expect(mine.flows["7d"].dex_buy_usd).toBe(900)
    expect((await json(await keyed(`/api/v1/wallets/${SECRET}/flows`))).data.totals.dex_buy_usd).toBe(900)
    await json(await keyed(`/api/v1/wallets/${SECRET}`, other.key), 404)
    await json(await keyed(`/api/v1/wallets/${SECRET}/flows`, other.key), 404)
  })

  it("the console page and its trades: 404 to anonymous and other users, the page to the owner", async () => {
    for (const token of [undefined, other.token]) {
      await json(await consoleGet(`/api/console/wallets/${SECRET}`, token), 404)
      await json(await consoleGet(`/api/console/wallets/${SECRET}/trades`, token), 404)
    }
    const page = await json(await consoleGet(`/api/console/wallets/${SECRET}`, owner.token))
    expect(page.your_label).toBe("My secret whale")
    const trades = await json(await consoleGet(`/api/console/wallets/${SECRET}/trades`, owner.token))
    expect(trades.trades.map((t: { usd: number }) => t.usd)).toEqual([900])
  })

  it("the service answers null to a viewer who does not own it", async () => {
    const run = <A>(f: (w: WalletProfiles) => Effect.Effect<A>) => app.runtime.runPromise(Effect.flatMap(WalletProfiles, f))
    expect(await run((w) => w.visible(SECRET, null))).toBeNull()
    expect(await run((w) => w.visible(SECRET, { userId: other.userId }))).toBeNull()
    expect(await run((w) => w.page(SECRET, { userId: other.userId }))).toBeNull()
    expect((await run((w) => w.visible(SECRET, { userId: owner.userId })))?.ownLabel).toBe("My secret whale")
  })

  it("wallet search never finds it", async () => {
    const found = await json(await consoleGet(`/api/alerts/wallet-search?q=0x5555`))
    expect(found.wallets).toEqual([])
  })
})

describe("console: the wallet page's reads", () => {
  it("the page: identity, flows, tokens, picks and exchange movements", async () => {
    const page = await json(await consoleGet(`/api/console/wallets/${W.W1}`))
    expect(page.identity).toMatchObject({ class: "whale", label: "Alpha Whale (confirmed)", label_source: "operator" })
    expect(page.corrections).toEqual([expect.objectContaining({ action: "set", field: "label", reason: "its owner said so" })])
    expect(page.your_label).toBeNull()
    expect(page.flows["7d"]).toMatchObject({ dex_buy_usd: 1300, trades: 3 })
    expect(page.tokens_30d.map((t: { symbol: string }) => t.symbol)).toEqual(["ETH", "UNI"])
    expect(page.picks).toEqual([expect.objectContaining({ id: pickId, symbol: "UNI", status: "GRADED", close_return: 0.12, exit: null })])
    expect(page.delay_ms).toBeGreaterThan(0)
    const w3 = await json(await consoleGet(`/api/console/wallets/${W.W3}`, owner.token))
    expect(w3.delay_ms).toBe(0)
    expect(w3.exchange.map((t: { category: string; usd: number }) => [t.category, t.usd])).toEqual([["exchange_withdraw", 700]])
    expect(w3.picks).toEqual([])
  })

  it("trades paged newest first with before_id, filtered by category", async () => {
    const first = await json(await consoleGet(`/api/console/wallets/${W.W1}/trades?limit=2`, owner.token))
    expect(first.trades).toHaveLength(2)
    expect(first.next_before_id).toBe(first.trades[1].id)
    const rest = await json(await consoleGet(`/api/console/wallets/${W.W1}/trades?limit=2&before_id=${first.next_before_id}`, owner.token))
    expect(rest.trades).toHaveLength(1)
    expect(rest.next_before_id).toBeNull()
    // Newest stored first (by id, as /api/v1/transactions): the dataset stores the LINK sale after the ETH one.
    const sells = await json(await consoleGet(`/api/console/wallets/${W.W2}/trades?category=dex_sell`, owner.token))
    expect(sells.trades.map((t: { symbol: string }) => t.symbol)).toEqual(["LINK", "WETH"])
  })

  it("an address only the identity engine knows has a page (not tracked); one nobody knows is a 404; a malformed one a 422", async () => {
    const page = await json(await consoleGet(`/api/console/wallets/${KNOWN}`))
    expect(page).toMatchObject({ tracked: null, size: { cohort: null }, identity: { class: "market_maker", class_source: "operator" } })
    expect((await json(await consoleGet(`/api/console/wallets/${STRANGER}`), 404)).code).toBe("wallet_not_found")
    await json(await consoleGet(`/api/console/wallets/${STRANGER}/trades`), 404)
    await json(await consoleGet(`/api/console/wallets/0x12`), 422)
    await json(await consoleGet(`/api/console/wallets/${W.W1}/trades?limit=0`), 422)
  })
})

describe("OpenAPI and tier", () => {
  it("both keyed endpoints are in /openapi.json with a ready curl example", async () => {
    const doc = await json(await fetch(`${app.url}/openapi.json`))
    const wallet = doc.paths["/api/v1/wallets/{address}"].get
    const flows = doc.paths["/api/v1/wallets/{address}/flows"].get
    expect(wallet["x-codeSamples"][0].source).toMatch(/\/api\/v1\/wallets\/0x[0-9a-f]{40}"$/)
    expect(flows["x-codeSamples"][0].source).toMatch(/\/api\/v1\/wallets\/0x[0-9a-f]{40}\/flows\?days=30"$/)
    expect(flows.parameters.map((p: { name: string }) => p.name)).toEqual(["address", "days"])
    expect(doc.paths["/api/console/wallets/{address}"]).toBeDefined()
    // The history and the measured size are documented, each with an example.
    const data = wallet.responses["200"].content["application/json"].schema.properties.data
    expect(data.properties.history.items.examples[0]).toMatchObject({ field: "class", source: "rule", correction: false })
    expect(data.properties.size.examples[0].holdings[0]).toMatchObject({ symbol: "ETH" })
  })

  it("403 below the whale tier", async () => {
    await setTier(app, "other@example.com", "alpha")
    let res = await keyed(`/api/v1/wallets/${W.W1}`, other.key)
    await waitFor(async () => (res = await keyed(`/api/v1/wallets/${W.W1}`, other.key)).status === 403, 5_000, 50)
    expect((await json(res, 403)).code).toBe("tier_required")
    expect((await keyed(`/api/v1/wallets/${W.W1}/flows`, other.key)).status).toBe(403)
  })
})
