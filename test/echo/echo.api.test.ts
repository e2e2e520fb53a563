/**
 * Echo over HTTP (spec §4.11, issue 13): trades and their rules, honest copy fills against stored records with
 * known prices, idempotent commands, history pagination, analytics, reset, the gate and its settings, caches,
 * and many concurrent trades of one user staying consistent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUser, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { QUIET_CHAIN } from "../support/whales"
import { DEFAULT_FILL_PARAMS, gasUsd, quote } from "../../server/domains/echo/Fills"
import { api, insertRecords, LINK, txHash, UNI, USDC, WETH, WHALE, WHALE2, type Rec } from "./support"

let app: TestApp
let call: ReturnType<typeof api>
let free: ReturnType<typeof api>
let admin: ReturnType<typeof api>
const p = DEFAULT_FILL_PARAMS

// UNI: the whale buys at 10 (block 1000), the market trades at 11 (block 1001), then 12 (block 1003, the latest).
const RECORDS: ReadonlyArray<Rec> = [
  { tx: txHash(1), log: 0, wallet: WHALE, token: WETH, symbol: "WETH", category: "dex_buy", price: 2000, usd: 20_000, block: 999 },
  { tx: txHash(2), log: 3, wallet: WHALE, token: UNI, symbol: "UNI", category: "dex_buy", price: 10, usd: 50_000, block: 1000 },
  { tx: txHash(3), log: 1, wallet: WHALE2, token: UNI, symbol: "UNI", category: "dex_sell", price: 11, usd: 11_000, block: 1001 },
  { tx: txHash(4), log: 0, wallet: WHALE2, token: UNI, symbol: "UNI", category: "dex_buy", price: 12, usd: 1_200, block: 1003 },
  { tx: txHash(5), log: 0, wallet: WHALE, token: LINK, symbol: "LINK", category: "exchange_deposit", price: null, usd: null, block: 1003 },
  // one transaction with two whale trades (a copy must name one)
  { tx: txHash(6), log: 1, wallet: WHALE, token: UNI, symbol: "UNI", category: "dex_buy", price: 12, usd: 100, block: 1003 },
  { tx: txHash(6), log: 7, wallet: WHALE2, token: UNI, symbol: "UNI", category: "dex_buy", price: 12, usd: 100, block: 1003 }
]
const UNI_VOLUME = 50_000 + 11_000 + 1_200 + 100 + 100

beforeAll(async () => {
  app = await startApp({ env: { ...QUIET_CHAIN, ECHO_SETTINGS_POLL_MS: "200" } })
  await insertRecords(app, RECORDS)
  await createUser(app, { email: "whale@example.com", tier: "whale" })
  await createUser(app, { email: "free@example.com" })
  await createUser(app, { email: "admin@example.com", admin: true })
  call = api(app, (await login(app, "whale@example.com")).token)
  free = api(app, (await login(app, "free@example.com")).token)
  admin = api(app, (await login(app, "admin@example.com")).token)
})
afterAll(async () => {
  await app?.close()
})

describe("portfolio and manual trades", () => {
  it("starts with the starting cash and nothing held", async () => {
    const r = await call("GET", "/api/echo/portfolio")
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ start_cash: 100_000, cash: 100_000, holdings: [], total_value: 100_000, return_pct: 0, resets: 0 })
  })

  it("a manual BUY fills at the latest price plus slippage, and pays gas", async () => {
    const r = await call("POST", "/api/echo/trade", { side: "buy", token: UNI.toUpperCase().replace("0X", "0x"), usd: 1_000 })
    expect(r.status).toBe(200)
    const q = quote("BUY", 12, 1_000, UNI_VOLUME, 2000, p)
    expect(r.body.trade).toMatchObject({ origin: "manual", side: "BUY", token: UNI, symbol: "UNI", market_price: 12, whale_price: null, delay_blocks: 0 })
    expect(r.body.trade.price).toBeCloseTo(q.price, 8)
    expect(r.body.trade.slippage_bps).toBeCloseTo(q.slippageBps, 3)
    expect(r.body.trade.gas_usd).toBeCloseTo(gasUsd(2000, p), 6)
    expect(r.body.trade.quantity).toBeCloseTo(1_000 / q.price, 8)
    expect(r.body.portfolio.cash).toBeCloseTo(100_000 - 1_000 - gasUsd(2000, p), 4)
    expect(r.body.portfolio.holdings[0]).toMatchObject({ token: UNI, price: 12 })
  })

  it("insufficient cash → 409 with what was available; nothing changed", async () => {
    const before = (await call("GET", "/api/echo/portfolio")).body
    const r = await call("POST", "/api/echo/trade", { side: "BUY", token: UNI, usd: 1_000_000 })
    expect(r.status).toBe(409)
    expect(r.body.code).toBe("insufficient_cash")
    expect(r.body.available_cash).toBeCloseTo(before.cash, 4)
    const after = (await call("GET", "/api/echo/portfolio")).body
    expect(after.cash).toBe(before.cash)
    expect(after.version).toBe(before.version)
  })

  it("selling more than held → 409 with the quantity held", async () => {
    const held = (await call("GET", "/api/echo/portfolio")).body.holdings[0].quantity
    const r = await call("POST", "/api/echo/trade", { side: "SELL", token: UNI, quantity: held * 2 })
    expect(r.status).toBe(409)
    expect(r.body).toMatchObject({ code: "insufficient_holdings", token: UNI })
    expect(r.body.available_quantity).toBeCloseTo(held, 8)
    expect((await call("POST", "/api/echo/trade", { side: "SELL", token: LINK, quantity: 1 })).status).toBe(422)
  })

  it("unknown, unpriced, stablecoin tokens and bad bodies → 422", async () => {
    const unknown = await call("POST", "/api/echo/trade", { side: "BUY", token: "0x9999999999999999999999999999999999999999", usd: 10 })
    expect(unknown.status).toBe(422)
    expect(unknown.body.detail[0]).toMatchObject({ loc: ["body", "token"], type: "unknown_token" })
    expect((await call("POST", "/api/echo/trade", { side: "BUY", token: LINK, usd: 10 })).body.detail[0].type).toBe("unpriced")
    expect((await call("POST", "/api/echo/trade", { side: "BUY", token: USDC, usd: 10 })).body.detail[0].type).toBe("stablecoin")
    for (const body of [{ side: "BUY", token: UNI }, { side: "BUY", token: UNI, usd: 1, quantity: 1 }, { side: "HOLD", token: UNI, usd: 1 },
      { side: "BUY", token: "0x12", usd: 1 }, { side: "BUY", token: UNI, usd: -5 }]) {
      const r = await call("POST", "/api/echo/trade", body)
      expect(r.status, JSON.stringify(body)).toBe(422)
      expect(Array.isArray(r.body.detail)).toBe(true)
    }
  })

  it("a command id applies once: the retry answers the same trade", async () => {
    const body = { side: "BUY", token: UNI, usd: 100, command_id: "retry-test-0001" }
    const a = await call("POST", "/api/echo/trade", body)
    const b = await call("POST", "/api/echo/trade", body)
    expect(a.status).toBe(200)
    expect(b.status).toBe(200)
    expect(b.body.replayed).toBe(true)
    expect(b.body.trade.id).toBe(a.body.trade.id)
    const c = await call("POST", "/api/echo/trade", { side: "BUY", token: UNI, usd: 100 }, { "idempotency-key": "header-key-0001" })
    const d = await call("POST", "/api/echo/trade", { side: "BUY", token: UNI, usd: 100 }, { "idempotency-key": "header-key-0001" })
    expect(d.body.trade.id).toBe(c.body.trade.id)
    const other = await free("POST", "/api/echo/trade", body)
    expect(other.status).toBe(403)
  })
})

describe("copies", () => {
  it("fills one block later at that block's price, with slippage and gas, beside the whale's price", async () => {
    const r = await call("POST", "/api/echo/copy", { tx_hash: txHash(2), usd: 2_000 })
    expect(r.status).toBe(200)
    const q = quote("BUY", 11, 2_000, UNI_VOLUME, 2000, p)
    expect(r.body.trade).toMatchObject({ origin: "copy", side: "BUY", market_price: 11, whale_price: 10, delay_blocks: 1, fill_block: 1001 })
    expect(r.body.trade.price).toBeCloseTo(q.price, 8)
    expect(r.body.trade.whale).toMatchObject({ tx_hash: txHash(2), log_index: 3, wallet: WHALE, block: 1000, usd: 50_000 })
  })

  it("a fraction of the whale's size; an ambiguous transaction needs log_index; unknown → 404", async () => {
    const f = await call("POST", "/api/echo/copy", { tx_hash: txHash(4), fraction: 0.5 })
    expect(f.status).toBe(200)
    expect(f.body.trade.usd).toBeCloseTo(600, 6)
    // block 1003 + 1 has no record yet: the latest price
    expect(f.body.trade.market_price).toBe(12)
    const amb = await call("POST", "/api/echo/copy", { tx_hash: txHash(6), usd: 50 })
    expect(amb.status).toBe(422)
    expect(amb.body.detail[0].loc).toEqual(["body", "log_index"])
    expect((await call("POST", "/api/echo/copy", { tx_hash: txHash(6), log_index: 7, usd: 50 })).status).toBe(200)
    expect((await call("POST", "/api/echo/copy", { tx_hash: txHash(6), wallet: WHALE, usd: 50 })).status).toBe(200)
    expect((await call("POST", "/api/echo/copy", { tx_hash: txHash(99), usd: 50 })).status).toBe(404)
    expect((await call("POST", "/api/echo/copy", { tx_hash: "0x1234", usd: 50 })).status).toBe(422)
    expect((await call("POST", "/api/echo/copy", { tx_hash: txHash(5), usd: 50 })).status).toBe(404)
  })
})

describe("history, analytics, reset", () => {
  it("pages the history newest first with the total", async () => {
    const all = await call("GET", "/api/echo/trades?limit=100")
    const total = all.body.total
    expect(total).toBeGreaterThanOrEqual(6)
    const p1 = await call("GET", "/api/echo/trades?page=1&limit=2")
    const p2 = await call("GET", "/api/echo/trades?page=2&limit=2")
    expect(p1.body).toMatchObject({ page: 1, limit: 2, total, pages: Math.ceil(total / 2) })
    expect(p1.body.trades.map((t: any) => t.id)).toEqual(all.body.trades.slice(0, 2).map((t: any) => t.id))
    expect(p2.body.trades.map((t: any) => t.id)).toEqual(all.body.trades.slice(2, 4).map((t: any) => t.id))
    expect(p1.body.trades[0].id).toBeGreaterThan(p1.body.trades[1].id)
    expect((await call("GET", "/api/echo/trades?page=0")).status).toBe(422)
    expect((await call("GET", "/api/echo/trades?limit=1000")).status).toBe(422)
  })

  it("analytics: a closed trade, win rate, profit factor, copy versus whale", async () => {
    const held = (await call("GET", "/api/echo/portfolio")).body.holdings[0].quantity
    const sell = await call("POST", "/api/echo/trade", { side: "SELL", token: UNI, quantity: held / 2 })
    expect(sell.status).toBe(200)
    expect(sell.body.trade.realized_pnl).not.toBeNull()
    const a = await call("GET", "/api/echo/analytics")
    expect(a.status).toBe(200)
    expect(a.body).toMatchObject({ closed_trades: 1 })
    expect(a.body.win_rate === 0 || a.body.win_rate === 1).toBe(true)
    expect(a.body.copy_vs_whale.copied_trades).toBe(4)
    // the first copy paid 11 × (1 + s) against the whale's 10: the cost of following is positive
    expect(a.body.copy_vs_whale.price_cost_usd).toBeGreaterThan(0)
    expect(a.body.copy_vs_whale.at_whale_prices_pnl_usd).toBeCloseTo(a.body.copy_vs_whale.follower_pnl_usd + a.body.copy_vs_whale.cost_of_following_usd, 6)
  })

  it("invariant: holdings equal the sum of the trades", async () => {
    const trades = (await call("GET", "/api/echo/trades?limit=100")).body.trades
    const net = trades.reduce((a: number, t: any) => a + (t.side === "BUY" ? t.quantity : -t.quantity), 0)
    const held = (await call("GET", "/api/echo/portfolio")).body.holdings.find((h: any) => h.token === UNI).quantity
    expect(held).toBeCloseTo(net, 8)
  })

  it("leaderboard: not yet eligible, with the reason; display names only", async () => {
    const r = await call("GET", "/api/echo/leaderboard")
    expect(r.status).toBe(200)
    expect(r.body.you).toMatchObject({ rank: null, eligible: false })
    expect(r.body.you.reason).toMatch(/3 days/)
    expect(JSON.stringify(r.body)).not.toContain("@example.com")
  })

  it("reset: back to the starting cash, history wiped, reset counted", async () => {
    const r = await call("POST", "/api/echo/reset")
    expect(r.status).toBe(200)
    expect(r.body.portfolio).toMatchObject({ cash: 100_000, holdings: [], resets: 1, realized_pnl: 0 })
    expect((await call("GET", "/api/echo/trades")).body.total).toBe(0)
  })
})

describe("concurrency", () => {
  it("60 concurrent buys from separate connections never overdraw cash", async () => {
    await call("POST", "/api/echo/reset")
    // each costs 3,000 + gas; 33 fit in 100,000
    const results = await Promise.all(Array.from({ length: 60 }, () => call("POST", "/api/echo/trade", { side: "BUY", token: UNI, usd: 3_000 })))
    const ok = results.filter((r) => r.status === 200).length
    expect(results.every((r) => r.status === 200 || r.status === 409)).toBe(true)
    expect(ok).toBe(33)
    const pf = (await call("GET", "/api/echo/portfolio")).body
    expect(pf.cash).toBeGreaterThanOrEqual(0)
    expect(pf.cash).toBeCloseTo(100_000 - 33 * (3_000 + gasUsd(2000, p)), 4)
    const trades = (await call("GET", "/api/echo/trades?limit=100")).body
    expect(trades.total).toBe(33)
    const sells = await Promise.all(Array.from({ length: 40 }, () => call("POST", "/api/echo/trade", { side: "SELL", token: UNI, usd: 3_000 })))
    expect(sells.every((r) => r.status === 200 || r.status === 409)).toBe(true)
    const after = (await call("GET", "/api/echo/portfolio")).body
    const net = (await call("GET", "/api/echo/trades?limit=100")).body.trades.reduce((a: number, t: any) => a + (t.side === "BUY" ? t.quantity : -t.quantity), 0)
    expect(after.holdings.find((h: any) => h.token === UNI)?.quantity ?? 0).toBeCloseTo(Math.max(0, net), 6)
    expect(after.cash).toBeGreaterThanOrEqual(0)
  })
})

describe("gate, settings, market endpoints", () => {
  it("whale tier only: anonymous 401, free 403 tier_required", async () => {
    expect((await api(app, null)("GET", "/api/echo/portfolio")).status).toBe(401)
    const r = await free("GET", "/api/echo/portfolio")
    expect(r.status).toBe(403)
    expect(r.body.code).toBe("tier_required")
  })

  it("the free preview opens Echo to signed-in users; echo_live=false closes it (admins pass)", async () => {
    expect((await free("PUT", "/api/echo/admin/settings", { echo_free_preview: true })).status).toBe(403)
    const s = await admin("PUT", "/api/echo/admin/settings", { echo_free_preview: true })
    expect(s.body).toEqual({ echo_live: true, echo_free_preview: true })
    expect((await free("GET", "/api/echo/portfolio")).status).toBe(200)
    await admin("PUT", "/api/echo/admin/settings", { echo_live: false, echo_free_preview: false })
    const closed = await call("GET", "/api/echo/portfolio")
    expect(closed.status).toBe(503)
    expect(closed.body.code).toBe("echo_coming_soon")
    expect((await admin("GET", "/api/echo/portfolio")).status).toBe(200)
    // another process's change (written straight to the table) is picked up within seconds
    await app.query(`UPDATE echo_settings SET value = 'true', updated_at = now() WHERE key = 'echo_live'`)
    await waitFor(async () => (await call("GET", "/api/echo/portfolio")).status === 200, 5_000, 50)
    expect((await api(app, null)("GET", "/api/echo/settings")).body).toEqual({ echo_live: true, echo_free_preview: false })
  })

  it("tokens (anonymous, no stablecoins or ETH derivatives) and token lookup", async () => {
    const anon = api(app, null)
    const t = await anon("GET", "/api/echo/tokens")
    expect(t.status).toBe(200)
    const addresses = t.body.tokens.map((x: any) => x.address)
    expect(addresses[0]).toBe(UNI)
    expect(addresses).not.toContain(WETH)
    expect(addresses).not.toContain(USDC)
    const l = await anon("GET", `/api/echo/token-lookup?address=${UNI}`)
    expect(l.body).toMatchObject({ address: UNI, symbol: "UNI", price_usd: 12 })
    expect((await anon("GET", "/api/echo/token-lookup?address=0x12")).status).toBe(422)
    expect((await anon("GET", "/api/echo/token-lookup")).status).toBe(422)
    expect((await anon("GET", "/api/echo/token-lookup?address=0x9999999999999999999999999999999999999999")).status).toBe(404)
  })

  it("chart data: OHLC, stats null with reasons, cached; another tf → 422", async () => {
    const a = await call("GET", `/api/echo/token/${UNI}/chart-data`)
    expect(a.status).toBe(200)
    expect(a.body.tf).toBe("1D")
    expect(a.body.candles.length).toBeGreaterThan(0)
    expect(a.body.stats.price).toEqual({ value: 12, reason: null })
    expect(a.body.stats.all_time_high.value).toBe(12)
    expect(a.body.stats.market_cap.value).toBeNull()
    expect(a.body.stats.market_cap.reason).toMatch(/supply/)
    expect(a.body.stats.change_24h_pct).toMatchObject({ value: null })
    await insertRecords(app, [{ tx: txHash(50), log: 0, wallet: WHALE2, token: UNI, symbol: "UNI", category: "dex_buy", price: 99, usd: 99, block: 1010 }])
    const b = await call("GET", `/api/echo/token/${UNI}/chart-data?tf=1D`)
    expect(b.body.generated_at).toBe(a.body.generated_at)
    expect(b.body.stats.price.value).toBe(12)
    expect((await call("GET", `/api/echo/token/${UNI}/chart-data?tf=5M`)).status).toBe(422)
    expect((await call("GET", `/api/echo/token/0x9999999999999999999999999999999999999999/chart-data`)).status).toBe(404)
  })

  it("feed with copy hints, hot tokens, flow, lag curve", async () => {
    const f = await call("GET", "/api/echo/feed?limit=3")
    expect(f.status).toBe(200)
    expect(f.body.items).toHaveLength(3)
    expect(f.body.items[0].id).toBeGreaterThan(f.body.items[1].id)
    expect(f.body.items[0].copy_hint).toMatchObject({ delay_blocks: 1 })
    const h = await call("GET", "/api/echo/hot-tokens")
    expect(h.body.tokens[0].token).toBe(UNI)
    const flow = await call("GET", `/api/echo/token/${UNI}/flow`)
    expect(flow.body).toMatchObject({ token: UNI, symbol: "UNI", window_hours: 24 })
    expect(flow.body.buy_usd).toBeGreaterThan(0)
    const lag = await call("GET", `/api/echo/wallet/${WHALE}/lag-curve`)
    expect(lag.status).toBe(200)
    expect(lag.body.points.map((x: any) => x.delay_blocks)).toEqual([0, 1, 5, 25])
    expect(lag.body.points[0].positions).toBeGreaterThan(0)
  })
})
