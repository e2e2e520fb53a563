/**
 * The expanded keyed API (issue 29, parts 2 and 4) on stored whale transactions: a token's history per hour and per
 * day from the roll-ups (figures worked out by hand), token by address or symbol (unknown → 404, ambiguous → 409 with
 * the addresses), range bounds → 422; the bulk exports as NDJSON and CSV with their filename, resumed by cursor,
 * costing 1 request per 1,000 rows, and the export's rows equal to what /api/v1/transactions pages through for the
 * same range; 401 / 403 gates; quota headers; the OpenAPI document lists them with examples.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { setTier } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { DAY, HOUR, insertTx, QUIET_CHAIN, TOKENS, trackTestWallets, W, whaleWithKey, type Tx } from "../support/whales"

let app: TestApp
let key: string
/** Midnight UTC two days ago: every record below is in [base, base + 2 days). */
const base = Math.floor(Date.now() / DAY) * DAY - 2 * DAY
const iso = (ms: number) => new Date(ms).toISOString()

const rows: ReadonlyArray<Tx> = [
  { wallet: W.W1, token: "UNI", category: "dex_buy", usd: 300, at: base + 1 * HOUR + 60_000 },
  { wallet: W.W2, token: "UNI", category: "dex_buy", usd: 150, at: base + 1 * HOUR + 120_000 },
  { wallet: W.W1, token: "UNI", category: "dex_sell", usd: 75, at: base + 3 * HOUR },
  { wallet: W.W3, token: "UNI", category: "exchange_deposit", usd: 999, at: base + 3 * HOUR },
  { wallet: W.W3, token: "UNI", category: "dex_buy", usd: null, at: base + DAY + 5 * HOUR },
  { wallet: W.W4, token: "UNI", category: "dex_sell", usd: 30, at: base + DAY + 6 * HOUR },
  { wallet: W.W2, token: "WETH", category: "dex_buy", usd: 1000, at: base + 2 * HOUR }
]

beforeAll(async () => {
  app = await startApp({ env: { ...QUIET_CHAIN, API_KEY_CACHE_MS: "200" } })
  await trackTestWallets(app)
  await insertTx(app, rows)
  // 2,600 more records (WETH buys of $1 each minute of the first day, from base + 10 h) for the export's paging.
  const bulk: Array<Tx> = []
  for (let i = 0; i < 2_600; i++) bulk.push({ wallet: [W.W1, W.W2, W.W3, W.W4][i % 4]!, token: "WETH", category: "dex_buy", usd: 1, at: base + 10 * HOUR + i * 10_000 })
  await insertTx(app, bulk)
  await app.query(`INSERT INTO tokens (address, symbol, source) VALUES ('0x00000000000000000000000000000000000000d1', 'DUP', 'chain'),
    ('0x00000000000000000000000000000000000000d2', 'DUP', 'chain') ON CONFLICT DO NOTHING`)
  ;({ key } = await whaleWithKey(app, "history@example.com"))
}, 120_000)
afterAll(async () => {
  await app?.close()
})

const call = (path: string, headers: Record<string, string> = { "x-api-key": key }) => fetch(app.url + path, { headers })
const remaining = (res: Response) => Number(res.headers.get("x-ratelimit-remaining"))

describe("token history", () => {
  it("per hour: every bucket of the range, from the roll-ups, with the volume-weighted price", async () => {
    const res = await call(`/api/v1/tokens/UNI/history?interval=hour&from=${iso(base)}&to=${iso(base + 4 * HOUR)}`)
    expect(res.status).toBe(200)
    expect(res.headers.get("x-ratelimit-limit")).toBe("25000")
    const body = await res.json()
    expect(body.meta).toMatchObject({ tier: "whale", endpoint: "/api/v1/tokens/{token}/history" })
    expect(body.data).toMatchObject({ token: TOKENS.UNI, symbol: "UNI", interval: "hour" })
    // Amounts are 1.5 each (support/whales.ts): the first hour's price is (300 + 150) / 3.
    expect(body.data.buckets).toEqual([
      { t: iso(base).replace("Z", "+00:00"), buy_usd: 0, sell_usd: 0, net_usd: 0, trades: 0, whales: 0, price_usd: null },
      { t: iso(base + HOUR).replace("Z", "+00:00"), buy_usd: 450, sell_usd: 0, net_usd: 450, trades: 2, whales: 2, price_usd: 150 },
      { t: iso(base + 2 * HOUR).replace("Z", "+00:00"), buy_usd: 0, sell_usd: 0, net_usd: 0, trades: 0, whales: 0, price_usd: null },
      { t: iso(base + 3 * HOUR).replace("Z", "+00:00"), buy_usd: 0, sell_usd: 75, net_usd: -75, trades: 1, whales: 1, price_usd: 50 }
    ])
  })

  it("per day, token by address; an unpriced trade counts as a trade without moving the price", async () => {
    const data = (await (await call(`/api/v1/tokens/${TOKENS.UNI}/history?interval=day&from=${iso(base)}&to=${iso(base + 2 * DAY)}`)).json()).data
    expect(data.buckets).toEqual([
      { t: iso(base).replace("Z", "+00:00"), buy_usd: 450, sell_usd: 75, net_usd: 375, trades: 3, whales: 2, price_usd: 116.667 },
      { t: iso(base + DAY).replace("Z", "+00:00"), buy_usd: 0, sell_usd: 30, net_usd: -30, trades: 2, whales: 2, price_usd: 20 }
    ])
  })

  it("404 for an unknown token, 409 listing the addresses of an ambiguous symbol", async () => {
    const unknown = await call("/api/v1/tokens/NOPE/history")
    expect(unknown.status).toBe(404)
    expect((await unknown.json()).code).toBe("token_not_found")
    // Counted, so they say where the quota stands, as every keyed answer after the count does.
    expect(unknown.headers.get("x-ratelimit-remaining")).toMatch(/^\d+$/)
    const dup = await call("/api/v1/tokens/DUP/history")
    expect(dup.status).toBe(409)
    expect(dup.headers.get("x-ratelimit-limit")).toMatch(/^\d+$/)
    expect(await dup.json()).toMatchObject({
      code: "ambiguous_token", addresses: ["0x00000000000000000000000000000000000000d1", "0x00000000000000000000000000000000000000d2"]
    })
  })

  it("422 past the interval's bound (30 days of hours, 2 years of days) and for a bad interval or date, counted", async () => {
    const a = await call(`/api/v1/tokens/UNI/history?interval=hour&from=${iso(base - 31 * DAY)}&to=${iso(base)}`)
    expect(a.status).toBe(422)
    expect((await a.json()).detail[0].msg).toMatch(/at most 30 days/)
    const b = await call(`/api/v1/tokens/UNI/history?interval=day&from=${iso(base - 800 * DAY)}&to=${iso(base)}`)
    expect(b.status).toBe(422)
    const c = await call("/api/v1/tokens/UNI/history?interval=week")
    expect(c.status).toBe(422)
    expect(c.headers.get("x-ratelimit-remaining")).not.toBeNull()
    expect(remaining(c)).toBe(remaining(b) - 1)
    expect((await call("/api/v1/tokens/UNI/history?from=yesterday")).status).toBe(422)
  })
})

/** Every transaction /api/v1/transactions pages through (newest first), 500 a page. */
const pageAll = async () => {
  const all: Array<{ id: number; ts: string }> = []
  let before: number | null | undefined
  do {
    const res = await call(`/api/v1/transactions?limit=500${before ? `&before_id=${before}` : ""}`)
    const data = (await res.json()).data
    all.push(...data.transactions)
    before = data.next_before_id
  } while (before !== null)
  return all
}

describe("bulk export", () => {
  it("NDJSON: the rows /api/v1/transactions pages through for the same range, oldest first, 1 request per 1,000 rows", async () => {
    const from = base + 1 * HOUR + 90_000
    const to = base + 14 * HOUR
    const paged = (await pageAll()).filter((t) => Date.parse(t.ts) >= from && Date.parse(t.ts) < to)
    expect(paged.length).toBeGreaterThan(1_000)
    const before = remaining(await call("/api/v1/usage"))
    const res = await call(`/api/v1/export/transactions?from=${iso(from)}&to=${iso(to)}`)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toMatch(/^application\/x-ndjson/)
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="whale-transactions_\d{8}T\d{6}_\d{8}T\d{6}\.ndjson"$/)
    const lines = (await res.text()).trim().split("\n").map((l) => JSON.parse(l))
    expect(lines.length).toBe(paged.length)
    expect(lines.map((t) => t.id)).toEqual(paged.map((t) => t.id).sort((a, b) => a - b))
    expect(lines[0]).toEqual(paged.find((t) => t.id === lines[0].id))
    const after = remaining(await call("/api/v1/usage"))
    // The usage call itself (1) + the export: ceil(rows / 1000).
    expect(before - after).toBe(1 + Math.ceil(lines.length / 1_000))
  })

  it("resumes after the last id received, and answers CSV with a header line", async () => {
    const from = base
    const to = base + 2 * DAY
    const all = (await (await call(`/api/v1/export/transactions?from=${iso(from)}&to=${iso(to)}`)).text()).trim().split("\n").map((l) => JSON.parse(l))
    const cut = all[1_234].id
    const rest = (await (await call(`/api/v1/export/transactions?from=${iso(from)}&to=${iso(to)}&after_id=${cut}`)).text()).trim().split("\n").map((l) => JSON.parse(l))
    expect(rest.map((t) => t.id)).toEqual(all.slice(1_235).map((t) => t.id))
    const csv = await call(`/api/v1/export/transactions?from=${iso(from)}&to=${iso(base + 4 * HOUR)}&format=csv`)
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/)
    const text = (await csv.text()).trim().split("\n")
    expect(text[0]).toBe("id,tx_hash,block,ts,wallet,wallet_label,token,symbol,category,amount,usd,price_usd,counter_symbol,venue,source")
    expect(text).toHaveLength(1 + 5)
    expect(text[1]).toContain(",Alpha Whale,")
  })

  it("token flows per day as CSV, resumable by cursor", async () => {
    const res = await call(`/api/v1/export/token-flows?from=${iso(base)}&to=${iso(base + 2 * DAY)}&format=csv`)
    expect(res.status).toBe(200)
    const lines = (await res.text()).trim().split("\n")
    expect(lines[0]).toBe("cursor,day,token,symbol,dex_buy_usd,dex_sell_usd,exchange_withdraw_usd,exchange_deposit_usd,net_flow_usd,trades,whales")
    const day0 = iso(base).slice(0, 10)
    expect(lines).toContain(`${day0}:${TOKENS.UNI},${day0},${TOKENS.UNI},UNI,450,75,0,999,-624,4,2`)
    expect(lines).toHaveLength(1 + 3)
    const ndjson = (await (await call(`/api/v1/export/token-flows?from=${iso(base)}&to=${iso(base + 2 * DAY)}&after=${day0}:${TOKENS.UNI}`)).text()).trim().split("\n")
    expect(ndjson.map((l) => JSON.parse(l).cursor)).toEqual(lines.slice(1).map((l) => l.split(",")[0]!).filter((c) => c > `${day0}:${TOKENS.UNI}`))
  })

  it("422 for a range longer than the tier allows, a missing from or a bad format, with the quota headers", async () => {
    const long = await call(`/api/v1/export/transactions?from=${iso(base - 100 * DAY)}&to=${iso(base)}`)
    expect(long.status).toBe(422)
    expect((await long.json()).detail[0].msg).toMatch(/at most 92 days/)
    expect(long.headers.get("x-ratelimit-remaining")).not.toBeNull()
    expect((await call("/api/v1/export/transactions")).status).toBe(422)
    expect((await call(`/api/v1/export/transactions?from=${iso(base)}&format=xml`)).status).toBe(422)
    expect((await call(`/api/v1/export/token-flows?from=${iso(base)}&after=nope`)).status).toBe(422)
  })
})

describe("gates and documentation", () => {
  it("401 without a key or with a wrong one, 403 below the whale tier", async () => {
    for (const path of ["/api/v1/tokens/UNI/history", `/api/v1/export/transactions?from=${iso(base)}`, `/api/v1/export/token-flows?from=${iso(base)}`]) {
      expect((await call(path, {})).status).toBe(401)
      expect((await call(path, { "x-api-key": "wk_live_nope" })).status).toBe(401)
    }
    const other = await whaleWithKey(app, "fallen@example.com")
    await setTier(app, "fallen@example.com", "pro")
    // The key cache (API_KEY_CACHE_MS 200) forgets the owner's tier soon.
    await waitFor(async () => (await call("/api/v1/tokens/UNI/history", { "x-api-key": other.key })).status === 403, 10_000, 50)
    expect((await call(`/api/v1/export/transactions?from=${iso(base)}`, { "x-api-key": other.key })).status).toBe(403)
  })

  it("the OpenAPI document lists the endpoints with their example requests", async () => {
    const doc = await (await fetch(`${app.url}/openapi.json`)).json()
    for (const path of ["/api/v1/tokens/{token}/history", "/api/v1/export/transactions", "/api/v1/export/token-flows"]) {
      expect(doc.paths[path].get.tags).toContain("data-api")
      expect(doc.paths[path].get["x-codeSamples"][0].source).toMatch(/^curl -H "X-API-Key: \$WHALE_API_KEY"/)
    }
    expect(doc.paths["/api/v1/tokens/{token}/history"].get["x-codeSamples"][0].source).toContain("/api/v1/tokens/WETH/history?interval=hour")
  })
})
