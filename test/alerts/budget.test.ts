/**
 * Flood control and webhook failure handling on a running app: the per-user budget (2 per 8-second window here)
 * folds the overflow into ONE digest sent after the window ends; a webhook answering 500 is retried with the same
 * `webhook-id` until it succeeds; one answering 410 disables the endpoint; a private destination is refused
 * unless allowed; without a bot token the messenger bot idles and says why.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUser, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { call, internalHeaders, newToken, settled, startReceiver } from "./support"

describe("alert budget, digest and webhook failures", () => {
  let app: TestApp
  let hooks: Awaited<ReturnType<typeof startReceiver>>
  let token: string
  const post = (path: string, body: unknown) => call(app, "POST", path, { token, body })
  const pickEvent = (id: number, symbol: string, tokenAddress: string) => ({
    _tag: "PickFlagged", pick_id: id, token: tokenAddress, symbol, flagged_at: new Date().toISOString(), entry_price: 1, whales: 3, conviction: 70
  })
  const dispatch = (event: unknown) => call(app, "POST", "/api/alerts/dispatch", { body: { event }, headers: internalHeaders(app) })

  beforeAll(async () => {
    hooks = await startReceiver()
    app = await startApp({
      env: {
        ALERTS_WEBHOOK_ALLOW_PRIVATE: "true", ALERTS_RETRY_POLL_MS: "100", ALERTS_RETRY_SCALE: "0.0002",
        ALERTS_BUDGET_PER_HOUR: "2", ALERTS_BUDGET_WINDOW_SECONDS: "3",
        INTERNAL_SECRET: "test-internal-secret-value", DEMO_HISTORY_BLOCKS: "0", DEMO_BLOCK_MS: "600000"
      }
    })
    await createUser(app, { email: "budget@example.com", tier: "whale" })
    token = (await login(app, "budget@example.com")).token
  }, 180_000)
  afterAll(async () => {
    await app?.close()
    await hooks?.close()
  })

  it("retries a failing webhook with the same id until it succeeds, and disables it on 410", async () => {
    expect((await call(app, "PUT", "/api/alerts/channels", { token, body: { webhook: { url: hooks.url } } })).status).toBe(200)
    const t = newToken()
    await post("/api/alerts", { type: "pick_flagged", params: { token: t.symbol }, channels: ["webhook"] })
    hooks.setAnswer((n) => (n <= 2 ? 500 : 200))
    await dispatch(pickEvent(1, t.symbol, t.token))
    await waitFor(() => hooks.received.length === 3, 10_000)
    const ids = new Set(hooks.received.map((r) => r.headers["webhook-id"]))
    expect(ids.size).toBe(1)
    await waitFor(async () => {
      const h = await call(app, "GET", "/api/alerts/history", { token })
      return h.body.items[0]?.channels[0]?.status === "sent"
    }, 5_000)
    const h = await call(app, "GET", "/api/alerts/history", { token })
    expect(h.body.items[0].channels[0]).toMatchObject({ channel: "webhook", status: "sent", attempts: 3 })

    hooks.setAnswer(() => 410)
    await dispatch(pickEvent(2, t.symbol, t.token))
    await waitFor(async () => (await call(app, "GET", "/api/alerts/channels", { token })).body.webhook.enabled === false, 10_000)
    const channels = await call(app, "GET", "/api/alerts/channels", { token })
    expect(channels.body.webhook.disabled_reason).toContain("410")
    const received = hooks.received.length
    await dispatch(pickEvent(3, t.symbol, t.token))
    await waitFor(() => settled(app), 10_000, 50)
    expect(hooks.received.length).toBe(received)
    // Setting the URL again re-enables it.
    await call(app, "PUT", "/api/alerts/channels", { token, body: { webhook: { url: hooks.url } } })
    expect((await call(app, "GET", "/api/alerts/channels", { token })).body.webhook.enabled).toBe(true)
    await call(app, "PUT", "/api/alerts/channels", { token, body: { webhook: { enabled: false } } })
  })

  it("folds the overflow of the budget into one digest after the window", async () => {
    // An app of its own with a wider window (8 s): five dispatches must land in one window even on a loaded machine,
    // and no other test's notifications may count against this user's budget.
    const own = await startApp({
      env: {
        ALERTS_RETRY_POLL_MS: "100", ALERTS_BUDGET_PER_HOUR: "2", ALERTS_BUDGET_WINDOW_SECONDS: "8",
        INTERNAL_SECRET: "test-internal-secret-value", DEMO_HISTORY_BLOCKS: "0", DEMO_BLOCK_MS: "600000"
      }
    })
    try {
      await createUser(own, { email: "digest@example.com", tier: "whale" })
      const ownToken = (await login(own, "digest@example.com")).token
      const history = async () => (await call(own, "GET", "/api/alerts/history?limit=50", { token: ownToken })).body.items as Array<any>
      const t = newToken()
      const alert = await call(own, "POST", "/api/alerts", { token: ownToken, body: { type: "pick_flagged", params: { token: t.symbol }, channels: ["console"] } })
      // Start at the beginning of a budget window so all five fall into one.
      await waitFor(() => Date.now() % 8000 < 500, 9_000, 5)
      for (let i = 0; i < 5; i++) {
        await call(own, "POST", "/api/alerts/dispatch", { body: { event: pickEvent(100 + i, t.symbol, t.token) }, headers: internalHeaders(own) })
      }
      // Until all five are recorded and the window's digest has gone out (after the window ends).
      await waitFor(async () => {
        const items = await history()
        return items.filter((i) => i.alert_id === alert.body.id).length === 5 && items.some((i) => i.type === "digest" && i.channels[0]?.status !== "sending" && i.channels[0]?.status !== "pending")
      }, 25_000, 100)
      const items = await history()
      const mine = items.filter((i) => i.alert_id === alert.body.id)
      expect(mine).toHaveLength(5)
      const statuses = mine.map((i) => i.channels[0].status).sort()
      expect(statuses).toEqual(["digested", "digested", "digested", "sent", "sent"])
      const digests = items.filter((i) => i.type === "digest")
      expect(digests).toHaveLength(1)
      expect(digests[0].title).toMatch(/^Digest: 3 more alerts/)
      expect(digests[0].channels[0]).toMatchObject({ channel: "console", status: "sent" })
    } finally {
      await own.close()
    }
  }, 120_000)

  it("refuses private webhook destinations unless allowed", async () => {
    const other = await startApp({ env: { DEMO_HISTORY_BLOCKS: "0", DEMO_BLOCK_MS: "600000" } })
    try {
      await createUser(other, { email: "w@example.com", tier: "whale" })
      const t = (await login(other, "w@example.com")).token
      for (const url of ["http://127.0.0.1:9/x", "http://localhost/x", "http://169.254.169.254/latest", "http://[::1]/x", "http://10.0.0.1/", "http://[::ffff:127.0.0.1]:9/x", "http://2130706433/"]) {
        const r = await call(other, "PUT", "/api/alerts/channels", { token: t, body: { webhook: { url } } })
        expect(r.status, url).toBe(422)
        expect(r.body.detail[0]).toMatchObject({ type: "webhook_url_private", loc: ["body", "webhook", "url"], input: url })
      }
      const ftp = await call(other, "PUT", "/api/alerts/channels", { token: t, body: { webhook: { url: "ftp://example.com/x" } } })
      expect(ftp.status).toBe(422)
      // No bot token: the bot idles and says why; the connect code is refused.
      const ready = await (await fetch(`${other.url}/readyz`)).json() as any
      expect(JSON.stringify(ready)).toContain("MESSENGER_BOT_TOKEN")
      expect((await call(other, "POST", "/api/alerts/channels/messenger", { token: t })).body.code).toBe("messenger_not_configured")
    } finally {
      await other.close()
    }
  }, 120_000)
})
