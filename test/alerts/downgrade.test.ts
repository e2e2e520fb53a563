/**
 * A downgraded owner's alerts: the fan-out reads its alerts' owners' tiers again every
 * `ALERTS_TIER_REFRESH_SECONDS` (0 here: before each record), and an alert whose type the new tier does not include is paused (kept, listed, not
 * fired); an alert of a type the tier still has keeps firing, on the channels the tier still has.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUser, login, setTier } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { call, internalHeaders, newToken, record, settled, startReceiver } from "./support"

describe("alerts of a downgraded user", () => {
  let app: TestApp
  let hooks: Awaited<ReturnType<typeof startReceiver>>
  let token: string
  const feed = (body: unknown) => call(app, "POST", "/api/alerts/process-tx", { body, headers: internalHeaders(app) })
  const history = async (alertId: number) =>
    ((await call(app, "GET", "/api/alerts/history?limit=200", { token })).body.items as Array<any>).filter((i) => i.alert_id === alertId)

  beforeAll(async () => {
    hooks = await startReceiver()
    app = await startApp({
      env: {
        ALERTS_TIER_REFRESH_SECONDS: "0", ALERTS_WEBHOOK_ALLOW_PRIVATE: "true",
        INTERNAL_SECRET: "test-internal-secret-value", DEMO_HISTORY_BLOCKS: "0", DEMO_BLOCK_MS: "600000"
      }
    })
    await createUser(app, { email: "down@example.com", tier: "whale" })
    token = (await login(app, "down@example.com")).token
  }, 180_000)
  afterAll(async () => {
    await app?.close()
    await hooks?.close()
  })

  it("pauses the alert types and channels the new tier lacks and keeps the rest firing", async () => {
    expect((await call(app, "PUT", "/api/alerts/channels", { token, body: { webhook: { url: hooks.url } } })).status).toBe(200)
    const t = newToken()
    const flow = await call(app, "POST", "/api/alerts", { token, body: { type: "exchange_flow", params: { token: t.symbol, min_usd: 1_000 }, channels: ["console"] } })
    const trade = await call(app, "POST", "/api/alerts", { token, body: { type: "whale_trade", params: { token: t.symbol, min_usd: 1_000 }, channels: ["console", "webhook"] } })
    expect(flow.status).toBe(200)
    expect(trade.status).toBe(200)

    // As a whale: both fire, the trade on both channels.
    await feed(record({ ...t, category: "exchange_deposit", usd: 50_000, venue: "Binance" }))
    await feed(record({ ...t, category: "dex_buy", usd: 50_000 }))
    await waitFor(async () => (await history(flow.body.id)).length === 1 && (await history(trade.body.id)).length === 1, 15_000)
    expect((await history(trade.body.id))[0].channels.map((c: any) => c.channel).sort()).toEqual(["console", "webhook"])

    // Down to free: exchange flows and webhooks are not in it. A new deposit fires nothing; a new trade (past its
    // cooldown in block time) goes to the console only.
    await setTier(app, "down@example.com", "free")
    await feed(record({ ...t, category: "exchange_deposit", usd: 60_000, venue: "Binance", ts: new Date(Date.now() + 600_000).toISOString() }))
    await feed(record({ ...t, category: "dex_buy", usd: 60_000, ts: new Date(Date.now() + 600_000).toISOString() }))
    await waitFor(async () => (await history(trade.body.id)).length === 2, 15_000)
    await waitFor(() => settled(app), 15_000, 50)
    expect(await history(flow.body.id)).toHaveLength(1)
    const [latest] = await history(trade.body.id)
    expect(latest.channels.map((c: any) => c.channel)).toEqual(["console"])
    // The paused alert is kept and still listed.
    const list = await call(app, "GET", "/api/alerts", { token })
    expect(list.body.alerts.map((a: any) => a.id)).toContain(flow.body.id)
  }, 120_000)
})
