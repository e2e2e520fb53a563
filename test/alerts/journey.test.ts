/**
 * The whole alerts path on a running app, with a local server speaking the Bot API (updates shaped like
 * ../shared/fixtures/telegram-updates/) and a local webhook receiver: connect the messenger with /connect <code>,
 * create an alert, a matching record is delivered once on every channel (messenger, console, email, signed
 * webhook), a non-matching one is not, snooze and mute are honoured, a redelivered record or notify message sends
 * nothing twice, history shows latency, and every alert type fires on a crafted record or event.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CONSOLE_STREAMS } from "../../schema/ws"
import { deliverMessage, STREAMS } from "../../schema/streams"
import { verify } from "../../server/domains/alerts/delivery/WebhookSignature"
import { Bus } from "../../server/platform/infra/Bus"
import { createUser, login } from "../support/auth"
import { requireFixtures } from "../support/fixtures"
import { startApp, type TestApp } from "../support/harness"
import { startBotApi, type BotApiServer } from "../support/telegram"
import { waitFor } from "../support/wait"
import { call, internalHeaders, newToken, newWallet, record, settled, startReceiver } from "./support"

const fx = requireFixtures("telegram-updates/message.json")
const CHAT = 4242

describe.skipIf(!fx.available)(`alerts journey${fx.skipNote}`, () => {
  let app: TestApp
  let bot: BotApiServer
  let hooks: Awaited<ReturnType<typeof startReceiver>>
  let token: string
  let secret: string

  const sentTo = (chat: number, needle: string) => bot.sent.filter((m) => m.chat_id === String(chat) && m.text.includes(needle))
  const post = (path: string, body: unknown) => call(app, "POST", path, { token, body })
  const feed = (body: unknown) => call(app, "POST", "/api/alerts/process-tx", { body, headers: internalHeaders(app) })
  const idle = () => waitFor(() => settled(app), 15_000, 50)
  const consoleEvents = () =>
    app.runtime.runPromise(Effect.flatMap(Bus, (bus) => bus.tail(CONSOLE_STREAMS.user, 1000))).then((xs) => xs.map((x) => x.payload as any))

  beforeAll(async () => {
    bot = await startBotApi()
    hooks = await startReceiver()
    app = await startApp({
      env: {
        MESSENGER_API_BASE: bot.url, MESSENGER_BOT_TOKEN: bot.token, MESSENGER_POLL_SECONDS: "1", MESSENGER_PER_CHAT_GAP_MS: "50",
        ALERTS_WEBHOOK_ALLOW_PRIVATE: "true", ALERTS_RETRY_POLL_MS: "100", ALERTS_RETRY_SCALE: "0.0005",
        INTERNAL_SECRET: "test-internal-secret-value", DEMO_HISTORY_BLOCKS: "0", DEMO_BLOCK_MS: "600000"
      }
    })
    await createUser(app, { email: "whale@example.com", tier: "whale" })
    token = (await login(app, "whale@example.com")).token
  }, 180_000)
  afterAll(async () => {
    await app?.close()
    await bot?.close()
    await hooks?.close()
  })

  it("connects the messenger with /connect <code> through the bot", async () => {
    const code = await post("/api/alerts/channels/messenger", undefined)
    expect(code.status).toBe(200)
    expect(code.body.code).toMatch(/^\d{6}$/)
    expect(code.body.bot_username).toBe("whale_alerts_test_bot")
    bot.userSays(CHAT, "/connect 000000")
    await waitFor(() => sentTo(CHAT, "unknown or expired").length === 1, 10_000)
    bot.userSays(CHAT, `/connect ${code.body.code}`)
    await waitFor(() => sentTo(CHAT, "Connected").length === 1, 10_000)
    const channels = await call(app, "GET", "/api/alerts/channels", { token })
    expect(channels.body.messenger).toMatchObject({ connected: true, username: "username" })
    // The code is one-time.
    bot.userSays(CHAT + 1, `/connect ${code.body.code}`)
    await waitFor(() => sentTo(CHAT + 1, "unknown or expired").length === 1, 10_000)
    bot.userSays(CHAT, "/status")
    await waitFor(() => sentTo(CHAT, "This chat is connected").length === 1, 10_000)
  })

  it("sets up a signed webhook whose secret is shown once", async () => {
    const put = await call(app, "PUT", "/api/alerts/channels", { token, body: { webhook: { url: hooks.url } } })
    expect(put.status).toBe(200)
    expect(put.body.webhook_secret).toMatch(/^whsec_/)
    secret = put.body.webhook_secret
    const get = await call(app, "GET", "/api/alerts/channels", { token })
    expect(get.body.webhook).toMatchObject({ enabled: true, url: hooks.url, secret_set: true })
    expect(JSON.stringify(get.body)).not.toContain(secret)
  })

  it("delivers a matching record once on every channel, not a non-matching one, with latency in the history", async () => {
    const t = newToken()
    const created = await post("/api/alerts", { type: "whale_trade", params: { token: t.symbol, side: "buy", min_usd: 100_000 }, channels: ["messenger", "console", "webhook", "email"] })
    expect(created.status).toBe(200)
    const hit = record({ ...t, usd: 250_000 })
    expect((await feed(hit)).status).toBe(200)
    await waitFor(() => sentTo(CHAT, t.symbol).length === 1 && hooks.received.length === 1, 10_000)
    const msg = sentTo(CHAT, t.symbol)[0]!
    expect(msg.text).toContain(`Whale buy: $250K of ${t.symbol}`)
    expect(msg.text).toContain("Test whale bought $250K")
    expect(msg.text).toContain(`https://etherscan.io/tx/${hit.tx_hash}`)
    expect(msg.parse_mode).toBe("HTML")

    // The webhook is verifiable by a receiver with the secret.
    const h = hooks.received[0]!
    expect(verify(secret, { id: String(h.headers["webhook-id"]), timestamp: String(h.headers["webhook-timestamp"]), signature: String(h.headers["webhook-signature"]) }, h.body, Math.floor(Date.now() / 1000))).toBe(true)
    expect(JSON.parse(h.body)).toMatchObject({ type: "alert.whale_trade", data: { alert_id: created.body.id, details: { tx_hash: hit.tx_hash } } })

    // The same record again, a sell, a smaller buy: nothing more.
    await feed(hit)
    await feed(record({ ...t, category: "dex_sell", usd: 900_000 }))
    await feed(record({ ...t, usd: 50_000 }))
    await idle()
    expect(sentTo(CHAT, t.symbol)).toHaveLength(1)
    expect(hooks.received).toHaveLength(1)
    const events = (await consoleEvents()).filter((e) => e.kind === "alert" && e.data.alert_id === created.body.id)
    expect(events).toHaveLength(1)
    // The notifier runs in this process: the fan-out sent the delivery itself, with no `notify` message for it.
    const deliveryId = events[0].data.delivery_id as number
    expect(deliveryId).toBeGreaterThan(0)
    const notified = await app.runtime.runPromise(Effect.flatMap(Bus, (bus) => bus.tail(STREAMS.notify, 1000)))
    expect(notified.filter((m) => (m.payload as { delivery_ids: Array<number> }).delivery_ids.includes(deliveryId))).toHaveLength(0)
    const mails = await app.query<{ subject: string }>("SELECT subject FROM email_outbox WHERE kind = 'alert'")
    expect(mails.map((m) => m.subject)).toEqual([`[Whale alert] Whale buy: $250K of ${t.symbol}`])

    const history = await call(app, "GET", "/api/alerts/history?limit=50&page=0", { token })
    expect(history.status).toBe(200)
    const item = history.body.items.find((i: any) => i.alert_id === created.body.id)
    expect(item.channels.map((c: any) => [c.channel, c.status])).toEqual([["console", "sent"], ["email", "sent"], ["messenger", "sent"], ["webhook", "sent"]])
    for (const c of item.channels) expect(c.latency_ms).toBeGreaterThanOrEqual(0)
    expect(history.body.items.filter((i: any) => i.alert_id === created.body.id)).toHaveLength(1)
    const metrics = await (await fetch(`${app.metricsUrl}/metrics`)).text()
    expect(metrics).toMatch(/alert_delivery_latency_seconds_count\{channel="messenger"\} [1-9]/)

    // Deleting the alert keeps its history (alert_id NULL); a deleted delivery takes its channel rows with it.
    expect((await call(app, "DELETE", `/api/alerts/${created.body.id}`, { token })).status).toBe(200)
    const kept = await app.query<{ alert_id: number | null }>("SELECT alert_id FROM alert_deliveries WHERE id = $1", [item.id])
    expect(kept).toEqual([{ alert_id: null }])
    await app.query("DELETE FROM alert_deliveries WHERE id = $1", [item.id])
    expect(await app.query("SELECT 1 FROM alert_delivery_channels WHERE delivery_id = $1", [item.id])).toHaveLength(0)
  })

  it("sends a round's alerts for one endpoint in one signed alert.batch message, each event as it would go alone", async () => {
    const [a, b] = [newToken(), newToken()]
    const alertA = await post("/api/alerts", { type: "whale_trade", params: { token: a.symbol, side: "buy", min_usd: 100_000 }, channels: ["webhook"] })
    const alertB = await post("/api/alerts", { type: "whale_trade", params: { token: b.symbol, side: "buy", min_usd: 100_000 }, channels: ["webhook"] })
    const [hitA, hitB] = [record({ ...a, usd: 400_000 }), record({ ...b, usd: 500_000 })]
    const before = hooks.received.length
    // One batch of two records: one read of chain.tx, one notify message, one send round.
    expect((await call(app, "POST", "/api/alerts/dispatch", { body: { records: [hitA, hitB] }, headers: internalHeaders(app) })).status).toBe(200)
    await waitFor(() => hooks.received.length > before, 10_000)
    await idle()
    const sent = hooks.received.slice(before)
    expect(sent).toHaveLength(1)
    const h = sent[0]!
    const id = String(h.headers["webhook-id"])
    expect(id).toMatch(/^alerts_\d+_2_[0-9a-f]{16}$/)
    expect(verify(secret, { id, timestamp: String(h.headers["webhook-timestamp"]), signature: String(h.headers["webhook-signature"]) }, h.body, Math.floor(Date.now() / 1000))).toBe(true)
    const body = JSON.parse(h.body)
    expect(body).toMatchObject({ type: "alert.batch", data: { count: 2 } })
    const events = [...body.data.events].sort((x: any, y: any) => x.data.delivery_id.localeCompare(y.data.delivery_id, "en", { numeric: true }))
    expect(events.map((e: any) => [e.type, e.data.alert_id, e.data.details.tx_hash])).toEqual([
      ["alert.whale_trade", alertA.body.id, hitA.tx_hash], ["alert.whale_trade", alertB.body.id, hitB.tx_hash]
    ])
    const history = await call(app, "GET", "/api/alerts/history?limit=50&page=0", { token })
    for (const alertId of [alertA.body.id, alertB.body.id]) {
      const item = history.body.items.find((i: any) => i.alert_id === alertId)
      expect(`alert_${item.id}`).toBe(events.find((e: any) => e.data.alert_id === alertId).data.delivery_id)
      expect(item.channels.map((c: any) => [c.channel, c.status, c.attempts])).toEqual([["webhook", "sent", 1]])
    }
  })

  it("records and delivers a record whose texts hold a lone surrogate, stored as U+FFFD", async () => {
    const t = newToken()
    const created = await post("/api/alerts", { type: "whale_trade", params: { token: t.symbol, side: "buy", min_usd: 100_000 }, channels: ["console"] })
    expect(created.status).toBe(200)
    expect((await feed(record({ ...t, usd: 300_000, wallet_label: "Odd \ud800 whale" }))).status).toBe(200)
    const stored = () => app.query<{ summary: string; label: string }>(
      "SELECT summary, data->>'wallet_label' AS label FROM alert_deliveries WHERE alert_id = $1", [created.body.id])
    await waitFor(async () => (await stored()).length === 1, 10_000)
    const [row] = await stored()
    expect(row!.summary).toContain("Odd \ufffd whale")
    expect(row!.label).toBe("Odd \ufffd whale")
    await waitFor(async () => (await consoleEvents()).some((e) => e.kind === "alert" && e.data.alert_id === created.body.id), 10_000)
  })

  it("sends nothing twice when a notify message is handled again (a crash between delivery and ack)", async () => {
    const t = newToken()
    await post("/api/alerts", { type: "whale_trade", params: { token: t.symbol }, channels: ["messenger"] })
    await feed(record({ ...t }))
    await waitFor(() => sentTo(CHAT, t.symbol).length === 1, 10_000)
    const [row] = await app.query<{ id: number }>("SELECT id FROM alert_deliveries WHERE title LIKE $1", [`%${t.symbol}%`])
    await app.runtime.runPromise(Effect.flatMap(Bus, (bus) => bus.publish(STREAMS.notify, deliverMessage(1, [row!.id]))))
    await idle()
    expect(sentTo(CHAT, t.symbol)).toHaveLength(1)
  })

  it("honours a snooze and the global mute, and their removal with hours=0", async () => {
    const t = newToken()
    const alert = await post("/api/alerts", { type: "whale_trade", params: { token: t.symbol }, channels: ["messenger"] })
    expect((await post(`/api/alerts/${alert.body.id}/snooze`, { hours: 721 })).status).toBe(422)
    const snoozed = await post(`/api/alerts/${alert.body.id}/snooze`, { hours: 2 })
    expect(snoozed.status).toBe(200)
    expect(Date.parse(snoozed.body.snoozed_until) - Date.now()).toBeGreaterThan(7_000_000)
    await feed(record({ ...t, usd: 300_000 }))
    await idle()
    expect(sentTo(CHAT, t.symbol)).toHaveLength(0)
    expect((await post(`/api/alerts/${alert.body.id}/snooze`, { hours: 0 })).body.snoozed_until).toBeNull()

    const mute = await post("/api/alerts/mute", { hours: 1 })
    expect(mute.status).toBe(200)
    expect(mute.body.muted_until).not.toBeNull()
    await feed(record({ ...t, usd: 310_000 }))
    await idle()
    expect(sentTo(CHAT, t.symbol)).toHaveLength(0)
    expect((await call(app, "POST", "/api/alerts/mute?hours=0", { token })).body.muted_until).toBeNull()
    await feed(record({ ...t, usd: 320_000 }))
    await waitFor(() => sentTo(CHAT, t.symbol).length === 1, 10_000)
    expect(sentTo(CHAT, t.symbol)[0]!.text).toContain("$320K")
  })

  it("waits out a 429 retry_after and still delivers", async () => {
    const t = newToken()
    await post("/api/alerts", { type: "whale_trade", params: { token: t.symbol }, channels: ["messenger"] })
    bot.rateLimitNext(1, 1)
    const t0 = Date.now()
    await feed(record({ ...t }))
    await waitFor(() => sentTo(CHAT, t.symbol).length === 1, 10_000)
    expect(sentTo(CHAT, t.symbol)[0]!.at - t0).toBeGreaterThanOrEqual(1000)
  })

  it("fires each alert type on a crafted record or event", async () => {
    const tok = newToken()
    const wallet = newWallet()
    const conv = newToken()
    const pick = newToken()
    const ids: Record<string, number> = {}
    for (const [type, params] of [
      ["whale_trade", { token: tok.token, side: "sell", min_usd: 1_000 }],
      ["wallet_activity", { wallet }],
      ["exchange_flow", { direction: "deposit", token: tok.symbol, min_usd: 2_000_000 }],
      ["convergence", { token: conv.symbol, min_whales: 3, window_minutes: 30 }],
      ["index_cross", { level: 70, direction: "up" }],
      ["playbook_live", { category: "macro", min_severity: 3 }],
      ["pick_flagged", { token: pick.symbol, min_whales: 2 }]
    ] as const) {
      const r = await post("/api/alerts", { type, params, channels: ["console"] })
      expect(r.status, JSON.stringify(r.body)).toBe(200)
      ids[type] = r.body.id
    }
    await feed(record({ ...tok, category: "dex_sell", usd: 5_000 }))
    await feed(record({ ...newToken(), wallet, category: "dex_buy", usd: 10 }))
    await feed(record({ ...tok, category: "exchange_deposit", usd: 3_000_000, venue: "Binance" }))
    for (const w of [newWallet(), newWallet(), newWallet()]) await feed(record({ ...conv, wallet: w, usd: 60_000 }))
    const dispatch = (event: unknown) => call(app, "POST", "/api/alerts/dispatch", { body: { event }, headers: internalHeaders(app) })
    expect((await dispatch({ _tag: "IndexValue", value: 72.5, previous: 65, at: new Date().toISOString() })).status).toBe(200)
    await dispatch({ _tag: "PlaybookEventStatus", event_id: 7, title: "FOMC decision", category: "Macro", severity: 4, status: "LIVE", at: new Date().toISOString() })
    await dispatch({ _tag: "PickFlagged", pick_id: 99, token: pick.token, symbol: pick.symbol, flagged_at: new Date().toISOString(), entry_price: 0.5, whales: 3, conviction: 80 })
    await waitFor(async () => {
      const h = await call(app, "GET", "/api/alerts/history?limit=200", { token })
      const fired = new Set(h.body.items.map((i: any) => i.alert_id))
      return Object.values(ids).every((id) => fired.has(id))
    }, 15_000, 100)
    const h = await call(app, "GET", "/api/alerts/history?limit=200", { token })
    const byAlert = (type: string) => h.body.items.filter((i: any) => i.alert_id === ids[type])
    for (const type of Object.keys(ids)) expect(byAlert(type), type).toHaveLength(1)
    expect(byAlert("convergence")[0].title).toBe(`Convergence: 3 whales bought ${conv.symbol} within 30 min`)
    expect(byAlert("index_cross")[0].title).toContain("crossed 70")
    expect(byAlert("playbook_live")[0].title).toBe("LIVE: FOMC decision")
  })

  it("guards the internal endpoints with the shared secret", async () => {
    for (const path of ["/api/alerts/process-tx", "/api/alerts/custom-wallet-tx", "/api/alerts/dispatch", "/api/alerts/channels/messenger/verify"]) {
      expect((await call(app, "POST", path, { body: {} })).status, path).toBe(401)
      expect((await call(app, "POST", path, { body: {}, headers: { "x-internal-secret": "wrong" } })).status, path).toBe(401)
    }
    const bad = await call(app, "POST", "/api/alerts/process-tx", { body: { tx_hash: "0x12" }, headers: internalHeaders(app) })
    expect(bad.status).toBe(422)
    expect(bad.body.detail[0].loc).toEqual(["body", "tx_hash"])
  })

  it("validates alerts and applies the tier's limits", async () => {
    const missing = await post("/api/alerts", { type: "wallet_activity" })
    expect(missing.status).toBe(422)
    expect(missing.body.detail.some((d: any) => d.loc.join(".") === "body.params.wallet")).toBe(true)
    expect((await post("/api/alerts", { type: "whale_trade", params: { min_usd: -1 } })).status).toBe(422)
    const put = await call(app, "PUT", "/api/alerts/999999", { token, body: { enabled: false } })
    expect(put.status).toBe(404)
    expect((await call(app, "GET", "/api/alerts")).status).toBe(401)

    await createUser(app, { email: "free@example.com" })
    const free = (await login(app, "free@example.com")).token
    const conv = await call(app, "POST", "/api/alerts", { token: free, body: { type: "convergence" } })
    expect(conv.status).toBe(403)
    expect(conv.body.code).toBe("tier_required")
    expect((await call(app, "POST", "/api/alerts", { token: free, body: { type: "whale_trade", channels: ["webhook"] } })).body.code).toBe("tier_required")
    for (let i = 0; i < 3; i++) expect((await call(app, "POST", "/api/alerts", { token: free, body: { type: "whale_trade" } })).status).toBe(200)
    const fourth = await call(app, "POST", "/api/alerts", { token: free, body: { type: "whale_trade" } })
    expect(fourth.status).toBe(409)
    expect(fourth.body.code).toBe("too_many_alerts")
    const list = await call(app, "GET", "/api/alerts", { token: free })
    expect(list.body.alerts).toHaveLength(3)
    expect(list.body.limits).toMatchObject({ tier: "free", max_alerts: 3 })
    const wallets = await call(app, "GET", "/api/alerts/custom-wallets", { token: free })
    expect(wallets).toMatchObject({ status: 200, body: { wallets: [], cap: 0 } })
    expect((await call(app, "POST", "/api/alerts/custom-wallets", { token: free, body: { address: newWallet() } })).status).toBe(403)
  })

  it("adds custom wallets checked with viem, tracked by ingestion, and fed through custom-wallet-tx", async () => {
    const good = "0x52908400098527886E0F7030069857D2E4169EE7" // an EIP-55 test vector
    const bad = good.slice(0, -1) + "e"
    expect((await post("/api/alerts/custom-wallets", { address: bad })).status).toBe(422)
    expect((await post("/api/alerts/custom-wallets", { address: "0x0000000000000000000000000000000000000000" })).status).toBe(422)
    const exchange = await post("/api/alerts/custom-wallets", { address: "0x3f5ce5fbfe3e9af3971dd833d26ba9b5c936f0be" })
    expect(exchange.status).toBe(422)
    expect(exchange.body.detail[0].msg).toContain("Binance")
    const added = await post("/api/alerts/custom-wallets", { address: good, label: "My fund" })
    expect(added.status).toBe(200)
    expect((await post("/api/alerts/custom-wallets", { address: good })).body.code).toBe("wallet_exists")
    const tracked = await app.query<{ source: string; active: boolean; label: string }>("SELECT source, active, label FROM tracked_wallets WHERE address = $1", [good.toLowerCase()])
    expect(tracked).toEqual([{ source: "custom", active: true, label: "0x5290…9ee7" }])
    // The owner's label and the wallet itself are private: anonymous wallet search (and MCP, the same read) finds neither.
    for (const q of ["my fund", "0x52908400", "0x5290"]) {
      const found = await call(app, "GET", `/api/alerts/wallet-search?q=${encodeURIComponent(q)}`)
      expect(found.status, q).toBe(200)
      expect(found.body.wallets.map((w: any) => w.address), q).not.toContain(good.toLowerCase())
    }
    const list = await call(app, "GET", "/api/alerts/custom-wallets", { token })
    expect(list.body.cap).toBe(25)
    expect(list.body.wallets.map((w: any) => w.address)).toEqual([good.toLowerCase()])

    await post("/api/alerts", { type: "wallet_activity", params: { wallet: good }, channels: ["messenger"] })
    // Another user watching the same wallet (not theirs): they must never see the owner's label.
    await createUser(app, { email: "watcher@example.com", tier: "whale" })
    const watcher = (await login(app, "watcher@example.com")).token
    const watching = await call(app, "POST", "/api/alerts", { token: watcher, body: { type: "wallet_activity", params: { wallet: good }, channels: ["console"] } })
    expect(watching.status).toBe(200)
    const tx = record({ wallet: good.toLowerCase(), wallet_label: null, usd: 42_000 })
    expect((await call(app, "POST", "/api/alerts/custom-wallet-tx", { body: tx, headers: internalHeaders(app) })).status).toBe(200)
    // The owner's own delivery says their label (title and text)...
    await waitFor(() => sentTo(CHAT, "My fund bought $42.0K").length === 1, 10_000)
    expect(sentTo(CHAT, "Wallet activity: My fund")).toHaveLength(1)
    expect(sentTo(CHAT, "0x5290…9ee7")).toHaveLength(0)
    // ...while chain.tx, everyone's feed, carries the short address, and so does every other user's delivery.
    const onFeed = (await app.runtime.runPromise(Effect.flatMap(Bus, (bus) => bus.tail(STREAMS.chainTx, 100))))
      .map((e) => e.payload as any).filter((m) => m.tx_hash === tx.tx_hash)
    expect(onFeed.map((m) => m.wallet_label)).toEqual(["0x5290…9ee7"])
    await waitFor(async () => (await consoleEvents()).some((e) => e.kind === "alert" && e.data.alert_id === watching.body.id), 10_000)
    const seen = (await consoleEvents()).filter((e) => e.kind === "alert" && e.data.alert_id === watching.body.id)
    expect(seen.map((e) => e.data.summary)).toEqual([expect.stringMatching(/^0x5290…9ee7 bought \$42\.0K/)])
    const theirs = await call(app, "GET", "/api/alerts/history", { token: watcher })
    expect(theirs.body.items).toHaveLength(1)
    expect(JSON.stringify(theirs.body)).not.toContain("My fund")
    expect((await call(app, "POST", "/api/alerts/custom-wallet-tx", { body: record(), headers: internalHeaders(app) })).status).toBe(404)

    expect((await call(app, "DELETE", `/api/alerts/custom-wallets/${added.body.id}`, { token })).status).toBe(200)
    const after = await app.query<{ active: boolean }>("SELECT active FROM tracked_wallets WHERE address = $1", [good.toLowerCase()])
    expect(after).toEqual([{ active: false }])
    // No longer the owner's custom wallet: its records say the short address to them too (a fresh alert: the first is
    // in its cooldown).
    expect((await post("/api/alerts", { type: "wallet_activity", params: { wallet: good }, channels: ["messenger"] })).status).toBe(200)
    await feed(record({ wallet: good.toLowerCase(), wallet_label: null, usd: 43_000 }))
    await waitFor(() => sentTo(CHAT, "0x5290…9ee7 bought $43.0K").length === 1, 10_000)
  })

  it("sends test notifications and disconnects from the chat", async () => {
    const test = await post("/api/alerts/test", { channel: "messenger" })
    expect(test.status).toBe(200)
    expect(test.body.sent).toEqual([{ channel: "messenger", status: "sent", detail: null }])
    await waitFor(() => sentTo(CHAT, "Test: Whale buy").length === 1, 5_000)
    const sample = await post("/api/alerts/test-type", { type: "pick_flagged" })
    expect(sample.body.sent.map((s: any) => s.channel).sort()).toEqual(["console", "email", "messenger", "webhook"])
    bot.userSays(CHAT, "/disconnect")
    await waitFor(() => sentTo(CHAT, "Disconnected").length === 1, 10_000)
    expect((await post("/api/alerts/test", { channel: "messenger" })).body.code).toBe("channel_unavailable")

    // A bot in another process binds through the internal endpoint with the shared secret.
    const code = await post("/api/alerts/channels/messenger", undefined)
    const verify = (body: unknown) => call(app, "POST", "/api/alerts/channels/messenger/verify", { body, headers: internalHeaders(app) })
    expect((await verify({ code: "12345", chat_id: 777 })).status).toBe(422)
    const bound = await verify({ code: code.body.code, chat_id: 777, username: "other" })
    expect(bound).toMatchObject({ status: 200, body: { connected: true } })
    expect((await verify({ code: code.body.code, chat_id: 777 })).body.code).toBe("code_invalid")
    expect((await call(app, "GET", "/api/alerts/channels", { token })).body.messenger).toMatchObject({ connected: true, username: "other" })
  })
})
