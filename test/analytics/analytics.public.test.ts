/**
 * The public API (spec §4.13) on stored whale transactions with answers worked out by hand, its 60 s server-side
 * cache (a second call is served from cache even after the data changed; 50 concurrent first calls cost one
 * computation), its headers (Cache-Control, licence) and the CC-BY-4.0 attribution in `meta`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startApp, type TestApp } from "../support/harness"
import { insertTx, QUIET_CHAIN, TOKENS, trackTestWallets, W, windowDataset } from "../support/whales"

let app: TestApp
let now: number

beforeAll(async () => {
  app = await startApp({ env: { ...QUIET_CHAIN } })
  await trackTestWallets(app)
  now = Date.now()
  await insertTx(app, windowDataset(now))
})
afterAll(async () => {
  await app?.close()
})

const get = (path: string) => fetch(app.url + path)

/** Computations of a public view so far, from /metrics. */
const computations = async (view: string) => {
  const text = await (await fetch(`${app.metricsUrl}/metrics`)).text()
  const m = new RegExp(`analytics_computations_total\\{cache="public",view="${view}"\\} (\\d+)`).exec(text)
  return m ? Number(m[1]) : 0
}

describe("public stats", () => {
  it("counts tracked wallets, 24h buy and sell volume, records and the latest block, with licence and cache headers", async () => {
    const res = await get("/api/v1/public/stats")
    expect(res.status).toBe(200)
    expect(res.headers.get("cache-control")).toBe("public, max-age=60")
    expect(res.headers.get("x-data-license")).toBe("CC-BY-4.0")
    expect(res.headers.get("link")).toBe('<https://creativecommons.org/licenses/by/4.0/>; rel="license"')
    const body = await res.json()
    // 24 h: buys 1000 (ETH) + 300 (UNI) + an unpriced ETH buy; sells 400 (ETH) + 100 (UNI); records 1, 2, 3, 4, 6, 7, 8.
    expect(body.data).toMatchObject({ tracked_wallets: 4, buy_volume_24h_usd: 1300, sell_volume_24h_usd: 500, transactions_24h: 7 })
    // The newest record is 10 minutes old; its block number follows from its time (12 s blocks in the fixture).
    expect(body.data.latest_block.number).toBe(Math.floor((now - 10 * 60_000) / 12_000))
    expect(body.data.latest_block.age_seconds).toBeGreaterThanOrEqual(600)
    expect(body.data.latest_block.age_seconds).toBeLessThan(900)
    expect(body.meta).toMatchObject({ source: "rpc", demo: false, cache_seconds: 60, license: "CC-BY-4.0" })
    expect(body.meta.attribution).toContain("Whale Intelligence")
    expect(body.meta.generated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/)
  })

  it("serves a second call within 60 s from cache even after the data changed", async () => {
    const first = await (await get("/api/v1/public/stats")).text()
    await insertTx(app, [{ wallet: W.W1, token: "UNI", category: "dex_buy", usd: 12_345, at: Date.now() - 60_000 }])
    const second = await (await get("/api/v1/public/stats")).text()
    expect(second).toBe(first)
    expect(JSON.parse(second).data.buy_volume_24h_usd).toBe(1300)
    // The rows are there: a fresh computation (another view) sees them.
    const rows = await app.query<{ n: number }>("SELECT count(*)::int AS n FROM whale_tx WHERE usd = 12345")
    expect(rows[0]!.n).toBe(1)
  })
})

describe("public top tokens", () => {
  it("lists tokens by 24h whale DEX volume, stablecoins excluded, WETH shown as ETH", async () => {
    const res = await get("/api/v1/public/top-tokens")
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.data.timeframe).toBe("24H")
    // ETH: buys 1000 + unpriced, sells 400, three trades by W1 and W2. UNI: buy 300 (W1; the $12,345 buy of the
    // previous test too, as this view had not been computed before it), sell 100 (W3).
    expect(body.data.tokens).toEqual([
      { symbol: "UNI", token: TOKENS.UNI, net_flow_usd: 12_545, buy_volume_usd: 12_645, sell_volume_usd: 100, trades: 3, whales: 2 },
      { symbol: "ETH", token: TOKENS.WETH, net_flow_usd: 600, buy_volume_usd: 1000, sell_volume_usd: 400, trades: 3, whales: 2 }
    ])
    expect(body.data.tokens.some((t: { symbol: string }) => t.symbol === "USDC")).toBe(false)
  })
})

describe("public whale accumulation", () => {
  it("shows the majors, the score, the divergence and a short asset list without cohorts or wallets", async () => {
    const body = await (await get("/api/v1/public/whale-accumulation")).json()
    const p = body.data
    // ETH over 7 and 30 days: +1000 +700 −400 = net 1300 of gross 2100 → 50 + 50 × 1300/2100 = 81.0.
    expect(p.score).toBe(81)
    expect(p.majors.map((m: { symbol: string }) => m.symbol)).toEqual(["ETH", "WBTC", "cbBTC"])
    expect(p.majors[0]).toEqual({ symbol: "ETH", token: TOKENS.WETH, net_flow_7d_usd: 1300, net_flow_30d_usd: 1300, score: 81 })
    expect(p.majors[1]).toMatchObject({ symbol: "WBTC", net_flow_30d_usd: 0, score: 50 })
    // By 30-day gross: UNI (12,645 + 100 + 50), PEPE 5000, ETH 2100, LINK 200.
    expect(p.assets.map((a: { symbol: string }) => a.symbol)).toEqual(["UNI", "PEPE", "ETH", "LINK"])
    expect(p.assets.every((a: object) => !("cohorts" in a) && !("top_accumulators" in a))).toBe(true)
    expect(p.cohorts).toBeUndefined()
    expect(p.divergence.score).toBeGreaterThanOrEqual(0)
  })
})

describe("public cache under load", () => {
  it("computes a view once for 50 concurrent first requests", async () => {
    const before = await computations("whale-index")
    const answers = await Promise.all(Array.from({ length: 50 }, () => get("/api/v1/public/whale-index").then((r) => r.text())))
    expect(new Set(answers).size).toBe(1)
    expect(await computations("whale-index")).toBe(before + 1)
    // And later calls within the minute compute nothing.
    await Promise.all(Array.from({ length: 20 }, () => get("/api/v1/public/whale-index")))
    expect(await computations("whale-index")).toBe(before + 1)
  })

  it("answers pipelined requests for a cached view in order", async () => {
    await get("/api/v1/public/stats")
    const { connect } = await import("node:net")
    const replies = await new Promise<number>((resolve, reject) => {
      const socket = connect(app.port, "127.0.0.1")
      let out = ""
      socket.on("data", (c) => {
        out += c.toString("latin1")
        const n = (out.match(/HTTP\/1\.1 200/g) ?? []).length
        if (n === 5 && out.trimEnd().endsWith("}}")) {
          socket.destroy()
          resolve(n)
        }
      })
      socket.on("error", reject)
      socket.setTimeout(10_000, () => reject(new Error(`only got ${out.slice(0, 200)}`)))
      socket.on("connect", () => socket.write("GET /api/v1/public/stats HTTP/1.1\r\nHost: x\r\n\r\n".repeat(5)))
    })
    expect(replies).toBe(5)
  })
})

describe("alerts page stats and wallet search (spec §4.8)", () => {
  it("GET /api/alerts/stats answers the platform stats", async () => {
    const res = await get("/api/alerts/stats")
    expect(res.status).toBe(200)
    // The $12,345 UNI buy of an earlier test is in: this view is computed now.
    expect(await res.json()).toMatchObject({ tracked_wallets: 4, buy_volume_24h_usd: 13_645, sell_volume_24h_usd: 500, transactions_24h: 8 })
  })

  it("GET /api/alerts/wallet-search finds tracked wallets by label or address prefix; limit defaults to 20", async () => {
    const byLabel = await (await get("/api/alerts/wallet-search?q=ALPHA")).json()
    expect(byLabel.wallets).toEqual([expect.objectContaining({ address: W.W1, label: "Alpha Whale", cohort: "mega", active: true })])
    const byAddress = await (await get("/api/alerts/wallet-search?q=0x44")).json()
    expect(byAddress.wallets.map((w: { address: string }) => w.address)).toEqual([W.W4])
    const all = await (await get("/api/alerts/wallet-search")).json()
    expect(all.wallets).toHaveLength(20)
    // Active wallets first.
    expect(all.wallets.slice(0, 4).map((w: { active: boolean }) => w.active)).toEqual([true, true, true, true])
    expect((await get("/api/alerts/wallet-search?limit=0")).status).toBe(422)
  })
})

describe("public answers say what they exclude and take include=bots (issue 28 part 5)", () => {
  const BOT = "0x6b75d8af000000000000000000000000000000e1"
  it("whales only by default; include=bots counts the bots too (a cache entry of its own, hot path included); any other include is a 422", async () => {
    await app.query(`INSERT INTO wallet_identity (address, class, class_source, confidence) VALUES ($1, 'mev_bot', 'rule', 0.9)`, [BOT])
    await insertTx(app, [{ wallet: BOT, token: "LINK", category: "dex_buy", usd: 77_000, at: Date.now() - 60_000 }])
    const whales = await (await get("/api/v1/public/top-tokens")).json()
    expect(whales.meta.excludes).toMatchObject({ classes: ["mev_bot", "router", "pool", "exchange", "bridge"], exchange_housekeeping: true, bots_included: false })
    expect(whales.data.tokens.map((t: { symbol: string }) => t.symbol)).not.toContain("LINK")
    const before = await computations("top-tokens")
    const all = await (await get("/api/v1/public/top-tokens?include=bots")).json()
    expect(all.meta.excludes).toMatchObject({ classes: [], exchange_housekeeping: true, bots_included: true })
    expect(all.data.excludes).toMatchObject({ bots_included: true })
    expect(all.data.tokens[0]).toMatchObject({ symbol: "LINK", buy_volume_usd: 77_000, whales: 1 })
    // The second call is the cached body (the hot path), computed once.
    const again = await (await get("/api/v1/public/top-tokens?include=bots")).text()
    expect(JSON.parse(again)).toEqual(all)
    expect(await computations("top-tokens")).toBe(before + 1)
    // Stats, the index and accumulation too: with bots, the bot's buy is in the 24 h volume.
    const stats = await (await get("/api/v1/public/stats?include=bots")).json()
    expect(stats.meta.excludes.bots_included).toBe(true)
    expect(stats.data.buy_volume_24h_usd).toBeGreaterThanOrEqual(77_000)
    for (const path of ["whale-index", "whale-accumulation"]) {
      const res = await get(`/api/v1/public/${path}?include=bots`)
      expect(res.status, path).toBe(200)
      expect((await res.json()).meta.excludes.bots_included, path).toBe(true)
    }
    for (const q of ["stats?include=all", "whale-index?include=bot", "top-tokens?include=", "whale-accumulation?include=humans"]) {
      const res = await get(`/api/v1/public/${q}`)
      expect(res.status, q).toBe(422)
      expect((await res.json()).detail[0].loc, q).toEqual(["query", "include"])
    }
  })

  it("documents include on each public figure in /openapi.json", async () => {
    const doc = await (await fetch(`${app.url}/openapi.json`)).json()
    for (const path of ["stats", "whale-index", "top-tokens", "whale-accumulation"]) {
      const params = doc.paths[`/api/v1/public/${path}`].get.parameters
      expect(params, path).toEqual([expect.objectContaining({ name: "include", in: "query", required: false, schema: expect.objectContaining({ enum: ["bots"] }) })])
    }
  })
})

// Last: it caches what it asks for.
describe("hot path", () => {
  it("answers the same through the hot path (a cache hit) as through the ordinary path (the first call of a view)", async () => {
    const headersOf = (res: Response) =>
      [...res.headers.entries()].filter(([k]) => k !== "x-request-id" && k !== "date" && k !== "content-length").sort()
    // The badge is asked for nowhere above: the first call computes it (guard → handler → memo), the second is a hit.
    const cold = await get("/whale-index/badge.svg")
    const warm = await get("/whale-index/badge.svg")
    expect(warm.status).toBe(cold.status)
    expect(headersOf(warm)).toEqual(headersOf(cold))
    expect(headersOf(warm)).toContainEqual(["x-content-type-options", "nosniff"])
    expect(await warm.text()).toBe(await cold.text())
    expect(warm.headers.get("content-type")).toBe("image/svg+xml; charset=utf-8")
    const head = await fetch(app.url + "/whale-index/badge.svg", { method: "HEAD" })
    expect(head.status).toBe(200)
    expect(head.headers.get("x-data-license")).toBe("CC-BY-4.0")
  })
})
