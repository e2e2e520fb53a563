/**
 * The MCP tools and resources of issue 29 with the official client (@modelcontextprotocol/sdk): `token_history`
 * (capped at 168 buckets with `next_from` beyond), `recent_trades` (capped at 50 with `next_before_id`), the index
 * and a token's latest flows as resources, and JSON-RPC errors for an unknown token or resource.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startApp, type TestApp } from "../support/harness"
import { DAY, HOUR, insertTx, QUIET_CHAIN, TOKENS, trackTestWallets, W, type Tx } from "../support/whales"

let app: TestApp
let client: Client
const base = Math.floor(Date.now() / DAY) * DAY - 10 * DAY

beforeAll(async () => {
  app = await startApp({ env: { ...QUIET_CHAIN, ANALYTICS_CACHE_SECONDS: "0", ANALYTICS_MAX_STALE_SECONDS: "0" } })
  await trackTestWallets(app)
  // 60 UNI buys, one every 4 hours from base; and one WETH buy an hour ago.
  const rows: Array<Tx> = []
  for (let i = 0; i < 60; i++) rows.push({ wallet: W.W1, token: "UNI", category: "dex_buy", usd: 100 + i, at: base + i * 4 * HOUR + 60_000 })
  rows.push({ wallet: W.W2, token: "WETH", category: "dex_buy", usd: 3_000, at: Date.now() - HOUR })
  await insertTx(app, rows)
  client = new Client({ name: "whale-test", version: "1.0.0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`)))
}, 120_000)
afterAll(async () => {
  await client?.close().catch(() => undefined)
  await app?.close()
})

describe("MCP: history, recent trades and resources", () => {
  it("token_history answers at most 168 buckets, with next_from to go on", async () => {
    const from = new Date(base).toISOString()
    const to = new Date(base + 10 * DAY).toISOString()
    const first = await client.callTool({ name: "token_history", arguments: { token: "UNI", interval: "hour", from, to } })
    expect(first.isError).toBe(false)
    const a = first.structuredContent as { buckets: Array<{ t: string; trades: number; buy_usd: number }>; next_from: string | null; token: string }
    expect(a.token).toBe(TOKENS.UNI)
    expect(a.buckets).toHaveLength(168)
    expect(a.buckets[0]).toMatchObject({ trades: 1, buy_usd: 100 })
    expect(a.next_from).toBe(new Date(base + 168 * HOUR).toISOString().replace("Z", "+00:00"))
    const second = (await client.callTool({ name: "token_history", arguments: { token: TOKENS.UNI, interval: "hour", from: a.next_from!, to } })).structuredContent as typeof a
    expect(second.buckets).toHaveLength(240 - 168)
    expect(second.next_from).toBeNull()
    const trades = [...a.buckets, ...second.buckets].reduce((n, b) => n + b.trades, 0)
    expect(trades).toBe(60)
  })

  it("token_history: an unknown token or a range too long is a JSON-RPC error", async () => {
    await expect(client.callTool({ name: "token_history", arguments: { token: "NOPE" } })).rejects.toThrow(/No token NOPE/)
    await expect(client.callTool({ name: "token_history", arguments: { token: "UNI", interval: "hour", from: new Date(base - 40 * DAY).toISOString() } }))
      .rejects.toThrow(/at most 30 days/)
  })

  it("recent_trades answers at most 50, newest first, with next_before_id", async () => {
    await expect(client.callTool({ name: "recent_trades", arguments: { limit: 51 } })).rejects.toThrow()
    const page = (await client.callTool({ name: "recent_trades", arguments: { limit: 50 } })).structuredContent as { transactions: Array<{ id: number; symbol: string }>; next_before_id: number | null }
    expect(page.transactions).toHaveLength(50)
    expect(page.transactions[0]!.symbol).toBe("WETH")
    expect(page.next_before_id).toBe(page.transactions[49]!.id)
    const rest = (await client.callTool({ name: "recent_trades", arguments: { limit: 50, before_id: page.next_before_id! } })).structuredContent as typeof page
    expect(rest.transactions).toHaveLength(11)
    expect(rest.next_before_id).toBeNull()
    const uni = (await client.callTool({ name: "recent_trades", arguments: { token: "UNI", wallet: W.W1, limit: 5 } })).structuredContent as typeof page
    expect(uni.transactions.map((t) => t.symbol)).toEqual(["UNI", "UNI", "UNI", "UNI", "UNI"])
  })

  it("lists and reads the index and a token's latest flows as resources", async () => {
    expect(client.getServerCapabilities()).toMatchObject({ resources: {} })
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(["whale://index"])
    expect((await client.listResourceTemplates()).resourceTemplates.map((r) => r.uriTemplate)).toEqual(["whale://tokens/{token}/flows"])
    const index = await client.readResource({ uri: "whale://index" })
    expect(JSON.parse((index.contents[0] as { text: string }).text)).toHaveProperty("score")
    const flows = JSON.parse(((await client.readResource({ uri: "whale://tokens/ETH/flows" })).contents[0] as { text: string }).text)
    expect(flows.tokens).toEqual([expect.objectContaining({ symbol: "ETH", dex_buy_usd: 3_000 })])
    await expect(client.readResource({ uri: "whale://nope" })).rejects.toThrow(/Resource not found/)
  })
})
