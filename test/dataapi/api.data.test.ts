/**
 * The keyed data API (spec §2.4, §4.14, §5, §7) on stored whale transactions with answers worked out by hand:
 * the envelope, every endpoint, pagination and filters, the tier's positioning view, 401 / 403 / 422, quota
 * headers, the key passed as a query parameter (and never logged), and revocation.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Analytics } from "../../server/domains/analytics/Analytics"
import { quotaKey } from "../../server/gateways/dataapi/Quota"
import { Kv } from "../../server/platform/infra/Kv"
import { bearer, setTier } from "../support/auth"
import { waitFor } from "../support/wait"
import { startApp, type TestApp } from "../support/harness"
import { insertTx, QUIET_CHAIN, TOKENS, trackTestWallets, W, whaleWithKey, windowDataset } from "../support/whales"

let app: TestApp
let key: string
let prefix: string
let token: string
let ids: Array<number>

beforeAll(async () => {
  app = await startApp({ env: { ...QUIET_CHAIN, ANALYTICS_CACHE_SECONDS: "1", ANALYTICS_MAX_STALE_SECONDS: "1", API_KEY_CACHE_MS: "500" } })
  await trackTestWallets(app)
  ids = await insertTx(app, windowDataset(Date.now()))
  ;({ key, prefix, token } = await whaleWithKey(app, "whale@example.com"))
  // Read models computed before the rows existed (the console-snapshots actor reads some at start) expire within
  // ANALYTICS_MAX_STALE_SECONDS (1 s here): wait until the served stats equal a fresh computation.
  const fresh = await app.runtime.runPromise(Effect.flatMap(Analytics, (a) => a.stats()))
  await waitFor(async () => {
    const res = await fetch(`${app.url}/api/v1/stats`, { headers: { "x-api-key": key } })
    return res.ok && (await res.json()).data.transactions_24h === fresh.transactions_24h
  }, 15_000, 100)
  // The records' source (meta.source) is a read model of its own, refreshed the same way.
  await waitFor(async () => {
    const res = await fetch(`${app.url}/api/v1/whale-index`, { headers: { "x-api-key": key } })
    return res.ok && (await res.json()).meta.source === "rpc"
  }, 15_000, 100)
})
afterAll(async () => {
  await app?.close()
})

const call = (path: string, headers: Record<string, string> = { "x-api-key": key }) => fetch(app.url + path, { headers })
const data = async (path: string) => {
  const res = await call(path)
  expect(res.status).toBe(200)
  return (await res.json()).data
}

describe("envelope and quota headers", () => {
  it("wraps data as {data, meta:{tier, endpoint, generated_at}} with the rate-limit headers", async () => {
    const res = await call("/api/v1/whale-index")
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(Object.keys(body)).toEqual(["data", "meta"])
    expect(body.meta).toMatchObject({ tier: "whale", endpoint: "/api/v1/whale-index", source: "rpc", demo: false })
    expect(body.meta.generated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/)
    expect(Math.abs(Date.parse(body.meta.generated_at) - Date.now())).toBeLessThan(60_000)
    expect(body.data.components.map((c: { weight: number }) => c.weight).reduce((a: number, b: number) => a + b, 0)).toBeCloseTo(1, 10)
    expect(res.headers.get("x-ratelimit-limit")).toBe("25000")
    expect(Number(res.headers.get("x-ratelimit-remaining"))).toBeLessThan(25_000)
    const midnight = Math.ceil((Date.now() + 1) / 86_400_000) * 86_400_000 / 1000
    expect(Number(res.headers.get("x-ratelimit-reset"))).toBe(midnight)
  })

  it("counts each request: remaining goes down by one", async () => {
    const a = Number((await call("/api/v1/stats")).headers.get("x-ratelimit-remaining"))
    const b = Number((await call("/api/v1/stats")).headers.get("x-ratelimit-remaining"))
    expect(b).toBe(a - 1)
  })
})

describe("endpoints", () => {
  it("top-tokens for 1H, 24H and 7D", async () => {
    expect((await data("/api/v1/top-tokens?tf=1H")).tokens).toEqual([
      { symbol: "ETH", token: TOKENS.WETH, net_flow_usd: 600, buy_volume_usd: 1000, sell_volume_usd: 400, trades: 3, whales: 2 }
    ])
    expect(await data("/api/v1/top-tokens?tf=24H")).toEqual({
      timeframe: "24H",
      tokens: [
        { symbol: "ETH", token: TOKENS.WETH, net_flow_usd: 600, buy_volume_usd: 1000, sell_volume_usd: 400, trades: 3, whales: 2 },
        { symbol: "UNI", token: TOKENS.UNI, net_flow_usd: 200, buy_volume_usd: 300, sell_volume_usd: 100, trades: 2, whales: 2 }
      ],
      excludes: expect.objectContaining({ bots_included: false })
    })
    // 7 days add PEPE (5000 by W2) and the UNI buy of 24 h 10 min ago (50 by W4); LINK (8 days) stays out.
    expect((await data("/api/v1/top-tokens?tf=7D")).tokens).toEqual([
      { symbol: "PEPE", token: TOKENS.PEPE, net_flow_usd: 5000, buy_volume_usd: 5000, sell_volume_usd: 0, trades: 1, whales: 1 },
      { symbol: "ETH", token: TOKENS.WETH, net_flow_usd: 600, buy_volume_usd: 1000, sell_volume_usd: 400, trades: 3, whales: 2 },
      { symbol: "UNI", token: TOKENS.UNI, net_flow_usd: 250, buy_volume_usd: 350, sell_volume_usd: 100, trades: 3, whales: 3 }
    ])
    expect((await data("/api/v1/top-tokens?tf=7D&limit=1")).tokens.map((t: { symbol: string }) => t.symbol)).toEqual(["PEPE"])
    expect((await data("/api/v1/top-tokens")).timeframe).toBe("24H")
  })

  it("flows per token in the four categories (stablecoins included)", async () => {
    expect(await data("/api/v1/flows?tf=24H")).toEqual({
      timeframe: "24H",
      tokens: [
        { token: TOKENS.WETH, symbol: "ETH", dex_buy_usd: 1000, dex_sell_usd: 400, exchange_withdraw_usd: 700, exchange_deposit_usd: 0, net_flow_usd: 1300, trades: 4 },
        { token: TOKENS.USDC, symbol: "USDC", dex_buy_usd: 0, dex_sell_usd: 0, exchange_withdraw_usd: 0, exchange_deposit_usd: 2000, net_flow_usd: -2000, trades: 1 },
        { token: TOKENS.UNI, symbol: "UNI", dex_buy_usd: 300, dex_sell_usd: 100, exchange_withdraw_usd: 0, exchange_deposit_usd: 0, net_flow_usd: 200, trades: 2 }
      ],
      excludes: expect.objectContaining({ bots_included: false }),
      excluded: { exchange_housekeeping: { count: 0, usd: 0 } }
    })
    expect((await data("/api/v1/flows?tf=24H&token=ETH")).tokens.map((t: { symbol: string }) => t.symbol)).toEqual(["ETH"])
    expect((await data(`/api/v1/flows?tf=7D&token=${TOKENS.UNI}`)).tokens[0]).toMatchObject({ symbol: "UNI", dex_buy_usd: 350, trades: 3 })
  })

  it("transactions newest first, paginated with before_id → next_before_id, filtered by token, wallet, category", async () => {
    const byId = [...ids].sort((a, b) => b - a)
    const first = await data("/api/v1/transactions?limit=4")
    expect(first.transactions.map((t: { id: number }) => t.id)).toEqual(byId.slice(0, 4))
    expect(first.next_before_id).toBe(byId[3])
    const second = await data(`/api/v1/transactions?limit=4&before_id=${first.next_before_id}`)
    expect(second.transactions.map((t: { id: number }) => t.id)).toEqual(byId.slice(4, 8))
    const last = await data(`/api/v1/transactions?limit=4&before_id=${second.next_before_id}`)
    expect(last.transactions.map((t: { id: number }) => t.id)).toEqual(byId.slice(8))
    expect(last.next_before_id).toBeNull()

    const eth = await data("/api/v1/transactions?token=ETH")
    expect(eth.transactions).toHaveLength(4)
    const unpriced = eth.transactions.find((t: { usd: number | null }) => t.usd === null)
    expect(unpriced).toMatchObject({ wallet: W.W1, wallet_label: "Alpha Whale", symbol: "WETH", category: "dex_buy", amount: "1.5", source: "rpc" })
    const w2 = await data(`/api/v1/transactions?wallet=${W.W2.toUpperCase().replace("0X", "0x")}`)
    expect(w2.transactions.map((t: { token: string }) => t.token).sort()).toEqual([TOKENS.LINK, TOKENS.PEPE, TOKENS.WETH].sort())
    // Prices go out to 6 significant digits and money to the cent (the stored prices here are usd / 1.5: 66.666…).
    const prices = first.transactions.flatMap((t: { price_usd: number | null }) => (t.price_usd === null ? [] : [t.price_usd]))
    expect(prices.length).toBeGreaterThan(0)
    for (const p of prices) expect(Number(p.toPrecision(6))).toBe(p)
    expect(prices.some((p: number) => String(p).replace(/^0\.0*|\./g, "").length === 6)).toBe(true)
    for (const t of first.transactions) if (t.usd !== null) expect(Math.round(t.usd * 100) / 100).toBe(t.usd)
    const sells = await data("/api/v1/transactions?category=dex_sell&token=UNI")
    expect(sells.transactions).toEqual([expect.objectContaining({ wallet: W.W3, usd: 100, symbol: "UNI", category: "dex_sell" })])
  })

  it("positioning with cohorts and the top accumulators for a whale-tier caller", async () => {
    const p = await data("/api/v1/positioning")
    expect(p.score).toBe(81)
    const eth = p.assets.find((a: { symbol: string }) => a.symbol === "ETH")
    expect(eth.top_accumulators).toEqual([
      { wallet: W.W1, label: "Alpha Whale", net_flow_30d_usd: 1000 },
      { wallet: W.W3, label: "Gamma Trader", net_flow_30d_usd: 700 }
    ])
    // Net over 30 days by cohort: mega W1 +1300 (ETH 1000, UNI 300), large W2 +4400 (PEPE 5000, ETH −400, LINK −200),
    // mid W3 +600 (ETH 700, UNI −100), small W4 +50 (UNI).
    expect(p.cohorts).toEqual([
      { cohort: "mega", net_flow_7d_usd: 1300, net_flow_30d_usd: 1300, wallets: 1 },
      { cohort: "large", net_flow_7d_usd: 4600, net_flow_30d_usd: 4400, wallets: 1 },
      { cohort: "mid", net_flow_7d_usd: 600, net_flow_30d_usd: 600, wallets: 1 },
      { cohort: "small", net_flow_7d_usd: 50, net_flow_30d_usd: 50, wallets: 1 }
    ])
    // Directions net/gross: mega 1, large 4400/5600, mid 600/800 = 0.75, small 1 → 50 × (1 − 0.75) = 12.5.
    expect(p.divergence.score).toBe(12.5)
    const link = p.assets.find((a: { symbol: string }) => a.symbol === "LINK")
    // LINK: no flows in 7 days, −200 of 200 over 30 → 50 + 0 − 25 = 25.
    expect(link).toMatchObject({ net_flow_7d_usd: 0, net_flow_30d_usd: -200, score: 25 })
  })

  it("stats, wallet search and usage", async () => {
    expect(await data("/api/v1/stats")).toMatchObject({ tracked_wallets: 4, buy_volume_24h_usd: 1300, sell_volume_24h_usd: 500, transactions_24h: 7 })
    const found = await data("/api/v1/wallets?q=gamma")
    expect(found.wallets).toEqual([
      // 7 days: +700 withdrawn ETH, −100 sold UNI.
      expect.objectContaining({ address: W.W3, label: "Gamma Trader", cohort: "mid", active: true, net_flow_7d_usd: 600, trades_7d: 2 })
    ])
    expect((await data("/api/v1/wallets?q=0x2222")).wallets.map((w: { address: string }) => w.address)).toEqual([W.W2])
    const before = await call("/api/v1/usage")
    const usage = (await before.json()).data
    expect(usage.used).toBe(25_000 - Number(before.headers.get("x-ratelimit-remaining")))
    expect(usage).toMatchObject({ limit: 25_000, keys: [{ prefix, name: "test key", requests: usage.used }] })
    expect(usage.reset_at).toMatch(/T00:00:00\.000\+00:00$/)
  })

  it("flags demo-chain data in meta", async () => {
    await insertTx(app, [{ wallet: W.W4, token: "UNI", category: "dex_buy", usd: 1, at: Date.now() - 5 * 86_400_000, source: "demo" }])
    // Read models are reused for ANALYTICS_CACHE_SECONDS (1 s here), then recomputed.
    let meta: Record<string, unknown> = {}
    await waitFor(async () => (meta = (await (await call("/api/v1/stats")).json()).meta).demo === true, 10_000, 100)
    expect(meta).toMatchObject({ source: "mixed", demo: true })
  })
})

describe("refusals", () => {
  it("401 without a key, with a malformed or unknown key", async () => {
    const attempts: Array<Record<string, string>> = [{}, { "x-api-key": "nope" }, { "x-api-key": `whk_live_${"A".repeat(32)}` }]
    for (const headers of attempts) {
      const res = await call("/api/v1/whale-index", headers)
      expect(res.status).toBe(401)
      expect((await res.json()).code).toMatch(/missing_api_key|invalid_api_key/)
      expect(res.headers.get("x-ratelimit-limit")).toBeNull()
    }
  })

  it("accepts the key as api_key in the query", async () => {
    const res = await call(`/api/v1/top-tokens?tf=1H&api_key=${key}`, {})
    expect(res.status).toBe(200)
  })

  it("422 for a bad timeframe, limit or before_id, with the quota headers", async () => {
    for (const q of ["top-tokens?tf=2H", "top-tokens?tf=24h", "top-tokens?limit=0", "flows?tf=1D", "transactions?before_id=abc", "transactions?limit=501", "transactions?category=swap"]) {
      const res = await call(`/api/v1/${q}`)
      expect(res.status, q).toBe(422)
      const body = await res.json()
      expect(body.detail[0].loc[0]).toBe("query")
      expect(res.headers.get("x-ratelimit-remaining")).not.toBeNull()
    }
  })

  it("403 once the owner is below whale (within the key cache time), 200 again after re-upgrade", async () => {
    await setTier(app, "whale@example.com", "alpha")
    // A resolved key is reused for API_KEY_CACHE_MS (500 ms here): the refusal comes within that.
    let res = await call("/api/v1/whale-index")
    await waitFor(async () => (res = await call("/api/v1/whale-index")).status === 403, 5_000, 50)
    expect(await res.json()).toMatchObject({ code: "tier_required", required_tier: "whale", tier: "alpha" })
    await setTier(app, "whale@example.com", "whale")
    await waitFor(async () => (await call("/api/v1/whale-index")).status === 200, 5_000, 50)
  })

  it("429 past 25,000 requests of the day, with Retry-After and reset_at (counter pre-seeded to 24,999)", async () => {
    const other = await whaleWithKey(app, "busy@example.com")
    const day = new Date().toISOString().slice(0, 10)
    await app.runtime.runPromise(Effect.flatMap(Kv, (kv) => kv.set(quotaKey(other.userId, day), "24999", 172_800)))
    const last = await call("/api/v1/stats", { "x-api-key": other.key })
    expect([last.status, last.headers.get("x-ratelimit-remaining")]).toEqual([200, "0"])
    const refused = await call("/api/v1/stats", { "x-api-key": other.key })
    expect(refused.status).toBe(429)
    const midnight = Math.ceil((Date.now() + 1) / 86_400_000) * 86_400_000
    expect(Math.abs(Number(refused.headers.get("retry-after")) - (midnight - Date.now()) / 1000)).toBeLessThan(5)
    expect(await refused.json()).toMatchObject({ code: "daily_limit_reached", limit: 25_000, reset_at: new Date(midnight).toISOString().replace("Z", "+00:00") })
    expect(refused.headers.get("x-ratelimit-reset")).toBe(String(midnight / 1000))
    // The other account is not affected.
    expect((await call("/api/v1/stats")).status).toBe(200)
  })

  it("a revoked key is refused at once on the instance that revoked it", async () => {
    expect((await call("/api/v1/whale-index")).status).toBe(200)
    const res = await fetch(`${app.url}/api/keys/revoke`, {
      method: "POST", headers: { "content-type": "application/json", ...bearer(token) }, body: JSON.stringify({ prefix })
    })
    expect(res.status).toBe(200)
    const refused = await call("/api/v1/whale-index")
    expect(refused.status).toBe(401)
    expect((await refused.json()).code).toBe("invalid_api_key")
  })
})

describe("whales only (issue 28 part 5)", () => {
  // A key of its own: the refusals above revoke the file's key.
  let own: string
  const ownData = async (path: string) => {
    const res = await call(path, { "x-api-key": own })
    expect(res.status, path).toBe(200)
    return (await res.json()).data
  }
  beforeAll(async () => {
    ;({ key: own } = await whaleWithKey(app, "researcher@example.com"))
  })

  it("every figure says what it leaves out; include=bots counts everything but exchange housekeeping", async () => {
    for (const path of ["whale-index", "top-tokens", "flows", "positioning", "stats"]) {
      const whales = await ownData(`/api/v1/${path}`)
      expect(whales.excludes, path).toMatchObject({ classes: ["mev_bot", "router", "pool", "exchange", "bridge"], exchange_housekeeping: true, bots_included: false })
      const all = await ownData(`/api/v1/${path}?include=bots`)
      expect(all.excludes, path).toMatchObject({ classes: [], exchange_housekeeping: true, bots_included: true })
    }
    // The split is today's (UTC): a whale's trade of today, whatever the time of day the test runs at.
    await insertTx(app, [{ wallet: W.W1, token: "UNI", category: "dex_buy", usd: 10, at: Math.max(Math.floor(Date.now() / 86_400_000) * 86_400_000, Date.now() - 1000) }])
    const index = await ownData("/api/v1/whale-index")
    expect(index.split).toMatchObject({ bot_volume_usd: 0, bot_wallets: 0 })
    expect(index.split.human_volume_usd).toBeGreaterThan(0)
    const pub = await (await fetch(`${app.url}/api/v1/public/top-tokens`)).json()
    expect(pub.meta.excludes).toMatchObject({ bots_included: false, exchange_housekeeping: true })
    expect(pub.data.excludes).toMatchObject({ bots_included: false })
  })

  it("flows (keyed and the console's token page) say how much exchange housekeeping they left out over the same window", async () => {
    const empty = await ownData("/api/v1/flows?tf=1H&token=LINK")
    expect(empty.excluded).toEqual({ exchange_housekeeping: { count: 0, usd: 0 } })
    // W4 is an exchange's wallet here: two moves between its own wallets, one of them unpriced.
    await insertTx(app, [
      { wallet: W.W4, token: "LINK", category: "exchange_housekeeping", usd: 123_456, at: Date.now() - 60_000 },
      { wallet: W.W4, token: "LINK", category: "exchange_housekeeping", usd: null, at: Date.now() - 60_000 }
    ])
    const kept = { exchange_housekeeping: { count: 2, usd: 123_456 } }
    let flows: { excluded: unknown; tokens: Array<{ symbol: string }> } | undefined
    // The read models are cached for ANALYTICS_CACHE_SECONDS: wait for the recomputed answer.
    await waitFor(async () => JSON.stringify((flows = await ownData("/api/v1/flows?tf=1H&token=LINK&include=bots")).excluded) === JSON.stringify(kept), 15_000, 100)
    expect(flows!.excluded).toEqual(kept)
    expect(flows!.tokens.map((t) => t.symbol)).not.toContain("LINK")
    await waitFor(async () => JSON.stringify((await ownData("/api/v1/flows?tf=7D")).excluded) === JSON.stringify(kept), 15_000, 100)
    expect((await ownData("/api/v1/flows?tf=1H&token=UNI")).excluded).toEqual({ exchange_housekeeping: { count: 0, usd: 0 } })
    let detail: { excluded: Record<string, unknown> } | undefined
    await waitFor(async () => JSON.stringify((detail = await (await call(`/api/console/tokens/${TOKENS.LINK}`, {})).json()).excluded?.["24H"]) === JSON.stringify(kept), 15_000, 100)
    expect(detail!.excluded).toEqual({ "1H": kept, "24H": kept, "7D": kept })
  })

  it("422 for an unknown include", async () => {
    for (const q of ["whale-index?include=all", "top-tokens?include=bot", "flows?include=", "stats?include=humans"]) {
      const res = await call(`/api/v1/${q}`, { "x-api-key": own })
      expect(res.status, q).toBe(422)
    }
  })
})
