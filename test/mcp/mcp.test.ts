/**
 * The free MCP endpoint with the official client (@modelcontextprotocol/sdk, Streamable HTTP): initialize, the
 * tool list with input and output schemas, every tool on stored data (structured content validated by the client
 * against the output schema), JSON-RPC errors for bad calls, sessions (header, unknown → 404, DELETE ends), GET 405.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startApp, type TestApp } from "../support/harness"
import { insertTx, QUIET_CHAIN, TOKENS, trackTestWallets, W, windowDataset } from "../support/whales"

let app: TestApp
let client: Client
let transport: StreamableHTTPClientTransport

beforeAll(async () => {
  app = await startApp({ env: { ...QUIET_CHAIN, ANALYTICS_CACHE_SECONDS: "1", ANALYTICS_MAX_STALE_SECONDS: "1", PICKS_CACHE_SECONDS: "0", PICKS_MIN_N: "1" } })
  await trackTestWallets(app)
  await insertTx(app, windowDataset(Date.now()))
  // Read models computed before the rows existed (the console-snapshots actor reads some at start) expire first.
  await new Promise((r) => setTimeout(r, 1_200))
  transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`))
  client = new Client({ name: "whale-test", version: "1.0.0" })
  await client.connect(transport)
})
afterAll(async () => {
  await client?.close().catch(() => undefined)
  await app?.close()
})

const rpc = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${app.url}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })

describe("MCP with the official client", () => {
  it("initializes a session and lists the twelve tools with input and output schemas", async () => {
    expect(transport.sessionId).toMatch(/^[0-9a-f-]{36}$/)
    expect(client.getServerVersion()).toMatchObject({ name: "whale-intelligence" })
    expect(client.getServerCapabilities()).toMatchObject({ tools: {} })
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual([
      "picks_summary", "playbook_event", "playbook_events", "recent_picks", "recent_trades", "site_stats", "token_flows", "token_history",
      "top_tokens", "wallet_search", "whale_accumulation", "whale_index"
    ])
    const top = tools.find((t) => t.name === "top_tokens")!
    expect(top.inputSchema).toMatchObject({ type: "object", properties: { timeframe: { enum: ["1H", "24H", "7D"] }, limit: { type: "integer", maximum: 50 } } })
    expect(tools.find((t) => t.name === "recent_picks")!.inputSchema).toMatchObject({ type: "object", properties: { limit: { type: "integer", minimum: 1, maximum: 50, default: 20 } } })
    for (const t of tools) expect(t.outputSchema).toMatchObject({ type: "object" })
  })

  it("calls the tools on stored data", async () => {
    const stats = await client.callTool({ name: "site_stats", arguments: {} })
    expect(stats.isError).toBe(false)
    expect(stats.structuredContent).toMatchObject({ tracked_wallets: 4, buy_volume_24h_usd: 1300, sell_volume_24h_usd: 500, transactions_24h: 7 })
    expect(JSON.parse((stats.content as Array<{ text: string }>)[0]!.text)).toEqual(stats.structuredContent)

    const top = await client.callTool({ name: "top_tokens", arguments: { timeframe: "7D", limit: 2 } })
    expect((top.structuredContent as { tokens: Array<{ symbol: string; buy_volume_usd: number }> }).tokens).toEqual([
      expect.objectContaining({ symbol: "PEPE", buy_volume_usd: 5000 }),
      expect.objectContaining({ symbol: "ETH", buy_volume_usd: 1000, sell_volume_usd: 400, whales: 2 })
    ])

    const flows = await client.callTool({ name: "token_flows", arguments: { timeframe: "24H", token: "ETH" } })
    expect(flows.structuredContent).toEqual({
      timeframe: "24H",
      excludes: expect.objectContaining({ bots_included: false, exchange_housekeeping: true }),
      excluded: { exchange_housekeeping: { count: 0, usd: 0 } },
      tokens: [{ token: TOKENS.WETH, symbol: "ETH", dex_buy_usd: 1000, dex_sell_usd: 400, exchange_withdraw_usd: 700, exchange_deposit_usd: 0, net_flow_usd: 1300, trades: 4 }]
    })

    const index = await client.callTool({ name: "whale_index", arguments: {} })
    const weights = (index.structuredContent as { components: Array<{ weight: number }> }).components.map((c) => c.weight)
    expect(weights.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10)

    const acc = await client.callTool({ name: "whale_accumulation", arguments: {} })
    expect(acc.structuredContent).toMatchObject({ score: 81, majors: [expect.objectContaining({ symbol: "ETH", net_flow_30d_usd: 1300 }), expect.anything(), expect.anything()] })
    expect((acc.structuredContent as { cohorts?: unknown }).cohorts).toBeUndefined()

    const found = await client.callTool({ name: "wallet_search", arguments: { query: "beta" } })
    expect(found.structuredContent).toEqual({
      // 7 days: PEPE +5000, ETH −400 (LINK −200 is 8 days old).
      wallets: [expect.objectContaining({ address: W.W2, label: "Beta Fund", cohort: "large", net_flow_7d_usd: 4600, trades_7d: 2 })]
    })
  })

  it("answers picks_summary and recent_picks from the picks service, withholding fresh PENDING picks as for anonymous callers", async () => {
    const HOUR = 3_600_000
    const now = Date.now()
    const pick = (symbol: string, flaggedAgoHours: number, status: string, close: number | null, peak: number | null) =>
      app.query(`INSERT INTO picks (token, symbol, flagged_at, flag_record, entry_price, whales, flaggers, conviction, inputs, status,
          close_return, peak_return, graded_at)
        VALUES ($1, $2, $3, $4, 2, 3, ARRAY['0xa', '0xb', '0xc'], 61, '{}'::jsonb, $5, $6, $7, $8)`, [
        `0x${symbol.toLowerCase().padEnd(40, "0")}`, symbol, new Date(now - flaggedAgoHours * HOUR).toISOString(), `r:${symbol}`, status, close, peak,
        status === "GRADED" ? new Date(now - (flaggedAgoHours - 168) * HOUR).toISOString() : null
      ])
    await pick("AAA", 400, "GRADED", 0.2, 0.5)
    await pick("BBB", 300, "GRADED", -0.1, 0.05)
    await pick("CCC", 30, "PENDING", null, 0.1)
    await pick("DDD", 2, "PENDING", null, null)

    const summary = await client.callTool({ name: "picks_summary", arguments: {} })
    expect(summary.isError).toBe(false)
    expect(summary.structuredContent).toMatchObject({
      counts: { total: 4, graded: 2, pending: 2, tokens: 4 },
      close: { positive: { hits: 1, n: 2, value: 0.5 } },
      runners: { gte_10: { hits: 1, n: 2 } }
    })
    expect(JSON.parse((summary.content as Array<{ text: string }>)[0]!.text)).toEqual(summary.structuredContent)

    const recent = await client.callTool({ name: "recent_picks", arguments: {} })
    const r = recent.structuredContent as { picks: Array<{ symbol: string; status: string; conviction: number }>; withheld: number; delay_hours: number }
    expect(r.picks.map((p) => [p.symbol, p.status])).toEqual([["CCC", "PENDING"], ["BBB", "GRADED"], ["AAA", "GRADED"]])
    expect(r).toMatchObject({ withheld: 1, delay_hours: 24 })
    const two = await client.callTool({ name: "recent_picks", arguments: { limit: 2 } })
    // The two most recent picks (DDD withheld): one shown.
    expect((two.structuredContent as { picks: Array<{ symbol: string }>; withheld: number })).toMatchObject({ picks: [{ symbol: "CCC" }], withheld: 1 })
    for (const limit of [0, 51, 2.5, "3"]) {
      await expect(client.callTool({ name: "recent_picks", arguments: { limit } })).rejects.toMatchObject({ code: -32602 })
    }
    await expect(client.callTool({ name: "picks_summary", arguments: { extra: 1 } })).rejects.toMatchObject({ code: -32602 })
  })

  it("answers bad calls with JSON-RPC errors", async () => {
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toMatchObject({ code: -32602 })
    await expect(client.callTool({ name: "top_tokens", arguments: { timeframe: "2H" } })).rejects.toMatchObject({ code: -32602 })
    await expect(client.callTool({ name: "top_tokens", arguments: { limit: 500 } })).rejects.toMatchObject({ code: -32602 })
    await expect(client.request({ method: "prompts/list" } as never, (await import("@modelcontextprotocol/sdk/types.js")).ListPromptsResultSchema))
      .rejects.toMatchObject({ code: -32601 })
    const session = { "mcp-session-id": transport.sessionId! }
    const notJson = await rpc("{oops", session)
    expect(notJson.status).toBe(400)
    expect((await notJson.json()).error.code).toBe(-32700)
    const notRpc = await (await rpc({ hello: 1, id: 3 }, session)).json()
    expect(notRpc).toMatchObject({ jsonrpc: "2.0", id: 3, error: { code: -32600 } })
    const batch = await (await rpc([{ jsonrpc: "2.0", id: 1, method: "ping" }, { jsonrpc: "2.0", method: "notifications/initialized" }], session)).json()
    expect(batch).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }])
    const notification = await rpc({ jsonrpc: "2.0", method: "notifications/initialized" }, session)
    expect(notification.status).toBe(202)
  })

  it("requires a known session; GET is 405; DELETE ends the session", async () => {
    const noSession = await rpc({ jsonrpc: "2.0", id: 1, method: "tools/list" })
    expect(noSession.status).toBe(400)
    const unknown = await rpc({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-session-id": "00000000-0000-0000-0000-000000000000" })
    expect(unknown.status).toBe(404)
    expect((await unknown.json()).error.code).toBe(-32600)
    const sse = await fetch(`${app.url}/mcp`, { headers: { accept: "text/event-stream" } })
    expect(sse.status).toBe(405)
    expect(sse.headers.get("allow")).toContain("POST")

    const id = transport.sessionId!
    await transport.terminateSession()
    const after = await rpc({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-session-id": id })
    expect(after.status).toBe(404)
  })
})
