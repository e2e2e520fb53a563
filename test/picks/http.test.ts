/**
 * The picks and backtest endpoints end to end: records published on `chain.tx` are consumed by the picks-grader
 * actor of a running app, flagged, graded (their 7 days have passed), and shown on every endpoint, with the spec's
 * ranges answered 422 and unknown ids 404.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { STREAMS } from "../../schema/streams"
import { Bus } from "../../server/platform/infra/Bus"
import { verifyChain } from "../../server/domains/picks/Ledger"
import { bearer, createUser, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { AAA, BBB, record, wallet } from "./support"

const DAY = 86_400_000
const HOUR = 3_600_000
const NOW = Date.now()
const T0 = Math.floor((NOW - 20 * DAY) / HOUR) * HOUR
const T1 = NOW - 2 * HOUR
const iso = (ms: number) => new Date(ms).toISOString()
const [A, B, C, D] = [1, 2, 3, 4].map(wallet) as [string, string, string, string]

let app: TestApp
const get = async (path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${app.url}${path}`, { headers })
  return { status: res.status, body: (await res.json()) as any }
}

beforeAll(async () => {
  app = await startApp({ env: { DEMO_HISTORY_BLOCKS: "0", DEMO_BLOCK_MS: "3600000", PICKS_MIN_N: "1", PICKS_CACHE_SECONDS: "0", PICKS_GRADE_INTERVAL_SECONDS: "1" } })
  await app.query(`INSERT INTO tokens (address, symbol, decimals) VALUES ('${AAA}', 'AAA', 18), ('${BBB}', 'BBB', 18) ON CONFLICT DO NOTHING`)
  await app.query(`INSERT INTO tracked_wallets (address, label, cohort, source) VALUES ('${A}', 'Whale A', 'large', 'seed'), ('${B}', 'Whale B', 'large', 'seed')`)
  const messages = [
    record({ wallet: A, token: AAA, category: "dex_buy", ts: iso(T0 - 2 * HOUR), price_usd: 1 }),
    record({ wallet: B, token: AAA, category: "dex_buy", ts: iso(T0 - HOUR), price_usd: 1 }),
    record({ wallet: C, token: AAA, category: "dex_buy", ts: iso(T0), price_usd: 1 }),
    record({ wallet: D, token: AAA, category: "dex_buy", ts: iso(T0 + DAY), price_usd: 1.6 }),
    record({ wallet: A, token: AAA, category: "dex_sell", ts: iso(T0 + 2 * DAY), price_usd: 1.4 }),
    record({ wallet: B, token: AAA, category: "exchange_deposit", ts: iso(T0 + 3 * DAY), price_usd: null }),
    record({ wallet: D, token: AAA, category: "dex_sell", ts: iso(T0 + 7 * DAY - HOUR), price_usd: 1.25 }),
    // A second token, flagged two hours ago: PENDING.
    record({ wallet: A, token: BBB, category: "dex_buy", ts: iso(T1 - 2 * HOUR), price_usd: 3 }),
    record({ wallet: B, token: BBB, category: "dex_buy", ts: iso(T1 - HOUR), price_usd: 3 }),
    record({ wallet: C, token: BBB, category: "dex_buy", ts: iso(T1), price_usd: 3 })
  ]
  await app.runtime.runPromise(Effect.flatMap(Bus, (bus) => bus.publishMany(STREAMS.chainTx, messages)))
  await waitFor(async () => (await get("/api/picks2/picks")).body.picks?.length === 1 && (await get("/api/picks2/summary")).body.counts?.pending === 1, 30_000, 100)
}, 120_000)
afterAll(async () => { await app?.close() })

describe("picks endpoints", () => {
  it("summary, distributions and bands describe the graded pick with n and intervals", async () => {
    const s = await get("/api/picks2/summary")
    expect(s.status).toBe(200)
    expect(s.body.counts).toMatchObject({ total: 2, graded: 1, pending: 1, tokens: 2 })
    expect(s.body.close.positive).toMatchObject({ n: 1, hits: 1, value: 1, insufficient: false })
    expect(s.body.follow_through.exited_before_close).toMatchObject({ n: 1, hits: 1 })
    const d = await get("/api/picks2/distributions")
    expect(d.body.horizon).toHaveLength(7)
    expect(d.body.horizon[0].median.value).toBeCloseTo(0.6, 6)
    expect(d.body.peak.reduce((a: number, b: { count: number }) => a + b.count, 0)).toBe(1)
    const b = await get("/api/picks2/bands")
    expect(b.body.by_whales[0]).toMatchObject({ band: "3", picks: 2 })
  })

  it("tokens, token/{symbol} and picks list them; ranges and unknown symbols answer 422 and 404", async () => {
    expect((await get("/api/picks2/tokens")).body.tokens.map((t: { symbol: string }) => t.symbol).sort()).toEqual(["AAA", "BBB"])
    expect((await get("/api/picks2/tokens?limit=1")).body.tokens).toHaveLength(1)
    for (const bad of ["0", "251", "x"]) {
      const r = await get(`/api/picks2/tokens?limit=${bad}`)
      expect(r.status).toBe(422)
      expect(r.body.detail[0].loc).toEqual(["query", "limit"])
    }
    const t = await get("/api/picks2/token/aaa")
    expect(t.status).toBe(200)
    expect(t.body.picks[0]).toMatchObject({ symbol: "AAA", status: "GRADED", whales: 3, entry_price: 1, exits: 2 })
    expect(t.body.picks[0].close_return).toBeCloseTo(0.25, 6)
    expect(t.body.picks[0].peak_return).toBeCloseTo(0.6, 6)
    expect((await get("/api/picks2/token/NOPE")).status).toBe(404)
    const all = await get("/api/picks2/picks")
    expect(all.body.picks.map((p: { symbol: string }) => p.symbol)).toEqual(["AAA"])
  })

  it("recent shows live PENDING picks to pro and above, withholds them from others for the delay", async () => {
    const anon = await get("/api/picks2/recent")
    expect(anon.body).toMatchObject({ delay_hours: 24, withheld: 1 })
    expect(anon.body.picks.map((p: { symbol: string }) => p.symbol)).toEqual(["AAA"])
    await createUser(app, { email: "pro@example.com", tier: "pro" })
    const { token } = await login(app, "pro@example.com")
    const pro = await get("/api/picks2/recent", bearer(token))
    expect(pro.body.withheld).toBe(0)
    expect(pro.body.picks.map((p: { symbol: string; status: string }) => [p.symbol, p.status])).toEqual([["BBB", "PENDING"], ["AAA", "GRADED"]])
  })

  it("behaviour, wallets and exit timing show the dated exits with their routes", async () => {
    const b = await get("/api/picks2/behaviour")
    expect(b.body).toMatchObject({ exits: 2, routes: { dex_sell: 1, exchange_deposit: 1 } })
    const w = await get("/api/picks2/wallets")
    expect(w.body.wallets.map((x: { wallet: string }) => x.wallet).sort()).toEqual(["0x0000…0001", "0x0000…0002"])
    for (const q of ["min_picks=0", "min_picks=501", "order=best"]) expect((await get(`/api/picks2/wallets?${q}`)).status).toBe(422)
    expect((await get("/api/picks2/wallets?min_picks=2")).body.wallets).toEqual([])
    const id = (await get("/api/picks2/picks")).body.picks[0].id
    const e = await get(`/api/picks2/exit-timing/${id}`)
    expect(e.body.exits.map((x: { day_offset: number; route: string }) => [x.day_offset, x.route])).toEqual([[2, "dex_sell"], [3, "exchange_deposit"]])
    expect((await get("/api/picks2/exit-timing/99999")).status).toBe(404)
    expect((await get("/api/picks2/exit-timing/abc")).status).toBe(422)
    expect((await get("/api/picks2/exit-timing?min_exits=2")).body.picks.map((p: { id: number }) => p.id)).toEqual([id])
    expect((await get("/api/picks2/exit-timing")).body.picks).toEqual([])
    for (const q of ["min_exits=1", "min_exits=201"]) expect((await get(`/api/picks2/exit-timing?${q}`)).status).toBe(422)
  })

  it("top runners within the band, with the limit's range", async () => {
    expect((await get("/api/picks2/top-runners")).body.picks).toHaveLength(1)
    for (const q of ["limit=0", "limit=61"]) expect((await get(`/api/picks2/top-runners?${q}`)).status).toBe(422)
    expect((await get("/api/picks2/top-runners?limit=60")).status).toBe(200)
  })

  it("publishes a ledger whose entries verify against the daily roots", async () => {
    const l = await get("/api/picks2/ledger")
    expect(l.status).toBe(200)
    const entries = (await get("/api/picks2/ledger/entries?after_seq=0&limit=5000")).body.entries
    expect(entries.map((e: { kind: string }) => e.kind)).toEqual(expect.arrayContaining(["flag", "exit", "grade"]))
    expect(verifyChain(entries)).toMatchObject({ ok: true, head: l.body.head.hash })
    expect(l.body.days.at(-1).root).toBe(l.body.head.hash)
  })
})

describe("backtest endpoints", () => {
  const body = { from: iso(T0 - DAY).slice(0, 10), to: iso(NOW).slice(0, 10), exit: { rule: "hold", days: 7 }, costs: { fee_bps: 0, slippage_bps: 0, gas_usd: 0 } }
  const post = (b: unknown, headers: Record<string, string> = {}) =>
    fetch(`${app.url}/api/backtest/run`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(b) })

  it("runs for alpha and above only", async () => {
    expect((await post(body)).status).toBe(401)
    await createUser(app, { email: "free@example.com" })
    expect((await post(body, bearer((await login(app, "free@example.com")).token))).status).toBe(403)
    await createUser(app, { email: "alpha@example.com", tier: "alpha" })
    const alpha = bearer((await login(app, "alpha@example.com")).token)
    const res = await post(body, alpha)
    expect(res.status).toBe(200)
    const r = (await res.json()) as any
    expect(r.trades).toHaveLength(1)
    expect(r.trades[0]).toMatchObject({ symbol: "AAA", entry_price: 1, exit_price: 1.25, pnl: 250 })
    expect(r.metrics.total_return).toBeCloseTo(0.025, 6)
    const again = (await (await post(body, alpha)).json()) as any
    expect(again).toEqual(r)
    const costly = (await (await post({ ...body, costs: { fee_bps: 30, slippage_bps: 50, gas_usd: 5 } }, alpha)).json()) as any
    expect(costly.metrics.total_return).toBeLessThan(r.metrics.total_return)
    for (const bad of [{ ...body, to: "2020-01-01" }, { ...body, from: "2024-01-01", to: "2026-06-01" }, { ...body, exit: { rule: "hold", days: 8 } }, { ...body, sizing: { mode: "percent", pct: 2 } }, { ...body, from: "yesterday" }]) {
      const r422 = await post(bad, alpha)
      expect(r422.status).toBe(422)
    }
  })

  it("serves the public 90-day sample", async () => {
    const s = await get("/api/backtest/sample")
    expect(s.status).toBe(200)
    expect(s.body).toMatchObject({ window_days: 90, picks: 1, excluded_individual: 0 })
  })
})
