/**
 * What the console reads besides the feed: the console-snapshots actor publishes the sentiment index and top tokens
 * from the analytics read models (relayed as the `index` and `top-tokens` topics, demo-labelled), and the token
 * endpoint answers flows and recent trades — late and masked for anonymous callers, as the feed is.
 */
import { insertTx, trackTestWallets, W } from "../support/whales"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ReadModels } from "../../server/domains/analytics/ReadModels"
import { bearer, createUser, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { openSocket } from "../support/ws"

const WETH = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"
let app: TestApp
let token: string
beforeAll(async () => {
  app = await startApp({ env: { DEMO_BLOCK_MS: "60000", DEMO_HISTORY_BLOCKS: "40", CONSOLE_SNAPSHOT_MS: "300", WS_ANON_DELAY_MS: "600000" } })
  await createUser(app, { email: "reader@example.com" })
  token = (await login(app, "reader@example.com")).token
  // WETH trades whatever the demo chain drew: one recent, one older than the anonymous delay (demo-labelled).
  await trackTestWallets(app)
  await insertTx(app, [
    { wallet: W.W2, token: "WETH", category: "dex_sell", usd: 400, at: Date.now() - 20 * 60_000, source: "demo" },
    { wallet: W.W1, token: "WETH", category: "dex_buy", usd: 1000, at: Date.now() - 60_000, source: "demo" }
  ])
})
afterAll(async () => {
  await app?.close()
})

describe("index and top-tokens topics", () => {
  it("carry the read models' snapshots, labelled as demo data, one per timeframe", async () => {
    const s = await openSocket(app)
    s.send({ type: "subscribe", topic: "index" })
    s.send({ type: "subscribe", topic: "top-tokens" })
    // A snapshot taken before the demo chain's first blocks were stored says `none`; the next one says `demo`.
    const index = await s.waitFor((f) => f.topic === "index" && f.seq !== undefined && f.data.demo === true, 30_000)
    expect(index.data).toMatchObject({ source: "demo", demo: true, index: { label: expect.any(String) } })
    expect(index.data.index.score).toBeGreaterThanOrEqual(0)
    await waitFor(() => new Set(s.data("top-tokens").filter((f) => f.data.demo).map((f) => f.data.top.timeframe)).size === 3, 30_000)
    // Read models are cached (stale-while-revalidate, ANALYTICS_CACHE_SECONDS): a snapshot taken while the demo
    // history was still being stored lists fewer tokens; within a refresh the published 24H list is what a fresh
    // computation of the stored rows gives.
    const tokensOf = (list: ReadonlyArray<{ token: string }>) => list.map((t) => t.token)
    let fresh: ReadonlyArray<string> = []
    let published: ReadonlyArray<string> | undefined
    await waitFor(async () => {
      const computed = await app.runtime.runPromise(Effect.flatMap(ReadModels, (m) => m.topTokens("24H", 10)).pipe(Effect.provide(ReadModels.Default)))
      fresh = tokensOf(computed.value.tokens)
      const last = s.data("top-tokens").filter((f) => f.seq !== undefined && f.data.demo && f.data.top.timeframe === "24H").at(-1)
      published = last === undefined ? undefined : tokensOf(last.data.top.tokens)
      return fresh.length > 0 && JSON.stringify(published) === JSON.stringify(fresh)
    }, 30_000, 300)
    expect(fresh.length).toBeGreaterThan(0)
    expect(published).toEqual(fresh)
    // Unchanged figures are not published again (no new blocks come in this test).
    await new Promise((r) => setTimeout(r, 1_500))
    const count = s.data("index").length
    await new Promise((r) => setTimeout(r, 1_500))
    expect(s.data("index").length).toBe(count)
    await s.close()
  }, 90_000)
})

describe("GET /api/console/tokens/{token}", () => {
  it("answers a signed-in caller the token's flows and its newest whale trades", async () => {
    // The read models' source is cached a few seconds: wait until it has seen the demo chain's blocks.
    let body: any
    await waitFor(async () => {
      const res = await fetch(`${app.url}/api/console/tokens/${WETH}`, { headers: bearer(token) })
      body = res.status === 200 ? await res.json() : null
      return body?.meta.demo === true
    }, 30_000, 500)
    expect(body).toMatchObject({ token: WETH, symbol: "WETH", delay_ms: 0, meta: { demo: true } })
    expect(body.trades.length).toBeGreaterThan(0)
    for (const t of body.trades) expect(t.token).toBe(WETH)
    expect(body.trades[0].wallet).toMatch(/^0x[0-9a-f]{40}$/)
    const times = body.trades.map((t: { ts: string }) => Date.parse(t.ts))
    expect([...times].sort((a, b) => b - a)).toEqual(times)
    expect(Object.keys(body.flows)).toEqual(["1H", "24H", "7D"])
  }, 40_000)

  it("accepts a symbol, and gives anonymous callers only trades older than the feed's delay, wallets masked", async () => {
    const res = await fetch(`${app.url}/api/console/tokens/WETH`)
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.delay_ms).toBe(600_000)
    for (const t of body.trades) {
      expect(Date.parse(t.ts)).toBeLessThanOrEqual(Date.now() - 600_000)
      expect(t.wallet).toMatch(/^0x[0-9a-f]{4}…[0-9a-f]{4}$/)
    }
  })

  it("answers 404 for a token without whale records", async () => {
    const res = await fetch(`${app.url}/api/console/tokens/0x${"1".repeat(40)}`)
    expect(res.status).toBe(404)
    expect((await res.json()).code).toBe("token_not_found")
  })
})
