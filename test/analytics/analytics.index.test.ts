/**
 * The Whale Sentiment Index on stored days with answers worked out by hand: today's live value with its four
 * weighted components, the 30-day history (computed for days without a stored close), the index-closer storing
 * missing closes when it starts (a stored close then stands even if the day's records change), and the badge.
 * Two runs of the app on one database: the first with the closer idle, the second backfilling.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freshDatabase, realDatabaseUrl, startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { DAY, dayOf, dayStart, insertTx, QUIET_CHAIN, trackTestWallets, W, type Tx } from "../support/whales"

let app: TestApp
let shared: { env: Record<string, string>; databaseUrl?: string; drop: () => Promise<void> }
const today = dayStart(Date.now())
const d = (offset: number) => dayOf(today + offset * DAY)
const noon = (offset: number) => today + offset * DAY + 12 * 3_600_000

/**
 * Two days ago: W1 buys ETH 600, W2 sells UNI 200.
 * Yesterday:   W1 buys UNI 100, W2 sells ETH 300, W3 deposits ETH 400, W4 withdraws USDC 1000 (a stablecoin).
 * Today (00:00): W1 buys ETH 800, W2 buys UNI 200, W3 sells ETH 250 and buys PEPE 50, W4 withdraws ETH 300,
 *                W1 deposits WBTC 100.
 */
const DAYS: ReadonlyArray<Tx> = [
  { wallet: W.W1, token: "WETH", category: "dex_buy", usd: 600, at: noon(-2) },
  { wallet: W.W2, token: "UNI", category: "dex_sell", usd: 200, at: noon(-2) },
  { wallet: W.W1, token: "UNI", category: "dex_buy", usd: 100, at: noon(-1) },
  { wallet: W.W2, token: "WETH", category: "dex_sell", usd: 300, at: noon(-1) },
  { wallet: W.W3, token: "WETH", category: "exchange_deposit", usd: 400, at: noon(-1) },
  { wallet: W.W4, token: "USDC", category: "exchange_withdraw", usd: 1000, at: noon(-1) },
  { wallet: W.W1, token: "WETH", category: "dex_buy", usd: 800, at: today },
  { wallet: W.W2, token: "UNI", category: "dex_buy", usd: 200, at: today },
  { wallet: W.W3, token: "WETH", category: "dex_sell", usd: 250, at: today },
  { wallet: W.W3, token: "PEPE", category: "dex_buy", usd: 50, at: today },
  { wallet: W.W4, token: "WETH", category: "exchange_withdraw", usd: 300, at: today },
  { wallet: W.W1, token: "WBTC", category: "exchange_deposit", usd: 100, at: today }
]

beforeAll(async () => {
  // One database for both runs: a throw-away one on the real server, or an embedded one kept in a directory.
  if (realDatabaseUrl) {
    const db = await freshDatabase(realDatabaseUrl)
    shared = { env: {}, databaseUrl: db.url, drop: db.drop }
  } else {
    const dir = mkdtempSync(join(tmpdir(), "whale-index-db-"))
    shared = { env: { EMBEDDED_DB_DIR: dir }, drop: async () => rmSync(dir, { recursive: true, force: true }) }
  }
  // The first run's index-closer may only close days older than ten days: none of ours.
  const first = await startApp({
    env: { ...QUIET_CHAIN, ...shared.env, INDEX_CHECK_SECONDS: "3600", INDEX_CLOSE_DELAY_SECONDS: String(10 * 86_400) },
    ...(shared.databaseUrl ? { databaseUrl: shared.databaseUrl } : {})
  })
  app = first
  await trackTestWallets(app)
  await insertTx(app, DAYS)
})
afterAll(async () => {
  await app?.close()
  await shared?.drop()
})

const index = async () => {
  const res = await fetch(`${app.url}/api/v1/public/whale-index`)
  expect(res.status).toBe(200)
  return (await res.json()).data
}

describe("whale index", () => {
  it("today's value from its four weighted components, and a history computed for days not closed yet", async () => {
    const idx = await index()
    expect(idx.date).toBe(d(0))
    // Volume 1050 of 1300 = 80.8; breadth 2 buyers (W1 +800, W2 +200) of 3 (W3 −200) = 66.7; exchange 300 of 400
    // = 75; momentum: net 800 against a 7-day mean net of 200/7 over a mean volume of 1200/7 → 4.5 → clamped 100.
    // 0.35 × 80.77 + 0.25 × 66.67 + 0.2 × 75 + 0.2 × 100 = 79.94.
    expect(idx.components).toEqual([
      expect.objectContaining({ name: "Volume balance", score: 80.8, weight: 0.35, raw: 0.8077 }),
      expect.objectContaining({ name: "Breadth", score: 66.7, weight: 0.25, raw: 0.6667 }),
      expect.objectContaining({ name: "Exchange flow", score: 75, weight: 0.2, raw: 0.75 }),
      expect.objectContaining({ name: "Momentum", score: 100, weight: 0.2, raw: 4.5 })
    ])
    expect(idx.score).toBe(79.9)
    expect(idx.label).toBe("Buying")
    // Two days ago: volume 600/800 = 75, breadth 1 of 2 = 50, no exchange flow 50, no earlier volume 50 → 58.75.
    // Yesterday: volume 100/400 = 25, breadth 50, exchange 0 of 400 (USDC excluded) = 0, momentum
    // (−200 − 400/7)/(800/7) = −2.25 → 0 → 8.75 + 12.5 = 21.25 (rounded half up).
    expect(idx.history).toEqual([{ date: d(-2), score: 58.8 }, { date: d(-1), score: 21.3 }])
    expect(await app.query("SELECT * FROM whale_index_daily")).toEqual([])
  })

  it("serves the badge as SVG with cache headers", async () => {
    const res = await fetch(`${app.url}/whale-index/badge.svg`)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8")
    expect(res.headers.get("cache-control")).toBe("public, max-age=60")
    const svg = await res.text()
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/)
    expect(svg).toContain("79.9 Buying")
  })

  it("the index-closer stores the missing closes when it starts; a stored close stands", async () => {
    await app.close()
    app = await startApp({
      env: { ...QUIET_CHAIN, ...shared.env, INDEX_CHECK_SECONDS: "3600", INDEX_CLOSE_DELAY_SECONDS: "0" },
      ...(shared.databaseUrl ? { databaseUrl: shared.databaseUrl } : {})
    })
    const closes = () => app.query<{ day: string; score: number; label: string }>("SELECT day::text AS day, score, label FROM whale_index_daily ORDER BY day")
    await waitFor(async () => (await closes()).length === 2, 30_000, 200)
    expect(await closes()).toEqual([{ day: d(-2), score: 58.8, label: "Neutral" }, { day: d(-1), score: 21.3, label: "Selling" }])
    const stored = await app.query<{ components: Array<{ name: string; weight: number }> }>("SELECT components FROM whale_index_daily WHERE day = $1::date", [d(-1)])
    expect(stored[0]!.components.map((c) => c.weight)).toEqual([0.35, 0.25, 0.2, 0.2])

    // A late record for yesterday would change its computed value (volume 1100 of 1400), not its stored close.
    await insertTx(app, [{ wallet: W.W4, token: "UNI", category: "dex_buy", usd: 1000, at: noon(-1) }])
    const idx = await index()
    expect(idx.history).toEqual([{ date: d(-2), score: 58.8 }, { date: d(-1), score: 21.3 }])
    expect(idx.score).toBe(79.9)
  })
})
