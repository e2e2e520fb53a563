/**
 * "Private data stays private": what one user owns is visible to that user only. Two whale-tier users, A and B; A
 * makes one of each private thing (an alert and its deliveries, a messenger link and webhook, an API key and its
 * usage, an Echo portfolio with a trade and an auto-copy rule, a watchlist item, a card subscription, a profile, a
 * custom wallet), and B — and an anonymous caller — try to list, read, change and delete them by id, and to see
 * them in search, MCP and on the WebSocket. Every check names concrete content, and A's own view of the same thing
 * is the control that shows the content exists. The staff e-mail workspace is read by staff only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bearer, createUser, login, type LoggedIn } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { startBotApi, type BotApiServer } from "../support/telegram"
import { waitFor } from "../support/wait"
import { QUIET_CHAIN } from "../support/whales"
import { chainTx, openSocket, publishTrades, type TestSocket } from "../support/ws"
import { api, insertRecords, txHash, UNI, WHALE, WETH } from "../echo/support"
import { call, internalHeaders, newToken, record, settled } from "../alerts/support"

const WBTC = "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599"
const A_EMAIL = "alice@example.com"
const B_EMAIL = "bob@example.com"
const CHAT_A = 7101
const CHAT_B = 7102

let app: TestApp
let bot: BotApiServer
let a: LoggedIn
let b: LoggedIn
let staffToken: string
let aId: number
let bId: number
let asA: ReturnType<typeof api>
let asB: ReturnType<typeof api>
let anon: ReturnType<typeof api>
let socketA: TestSocket
let socketB: TestSocket
let socketAnon: TestSocket

const idOf = async (email: string) => Number((await app.query<{ id: string }>("SELECT id FROM users WHERE email = $1", [email]))[0]!.id)
const internal = (path: string, body: unknown) => call(app, "POST", path, { body, headers: internalHeaders(app) })
/** Data frames of a user topic that a socket received. */
const userFrames = (s: TestSocket, userId: number) => s.data(`user:${userId}`).map((f) => f.data as { kind: string; data: Record<string, any> })

beforeAll(async () => {
  bot = await startBotApi()
  app = await startApp({
    env: {
      ...QUIET_CHAIN, INTERNAL_SECRET: "private-data-internal-secret", WS_POLL_MS: "20",
      MESSENGER_API_BASE: bot.url, MESSENGER_BOT_TOKEN: bot.token, MESSENGER_POLL_SECONDS: "1", MESSENGER_PER_CHAT_GAP_MS: "20",
      ALERTS_WEBHOOK_ALLOW_PRIVATE: "true", ALERTS_RETRY_POLL_MS: "100",
      // Every Echo portfolio is on the leaderboard at once: B's view of it is checked.
      ECHO_BOARD_MIN_DAYS: "0", ECHO_BOARD_MIN_CLOSED_TRADES: "0"
    }
  })
  await createUser(app, { email: A_EMAIL, tier: "whale" })
  await createUser(app, { email: B_EMAIL, tier: "whale" })
  await createUser(app, { email: "staff@example.com", admin: true })
  a = await login(app, A_EMAIL)
  b = await login(app, B_EMAIL)
  staffToken = (await login(app, "staff@example.com")).token
  aId = await idOf(A_EMAIL)
  bId = await idOf(B_EMAIL)
  asA = api(app, a.token)
  asB = api(app, b.token)
  anon = api(app, null)
  expect((await asA("POST", "/auth/profile", { display_name: "Alice Private" })).status).toBe(200)

  // Each user follows its own topic; B and an anonymous socket also try A's.
  socketA = await openSocket(app, { headers: bearer(a.token) })
  socketB = await openSocket(app, { headers: bearer(b.token) })
  socketAnon = await openSocket(app)
  socketA.send({ type: "subscribe", topic: `user:${aId}` })
  socketB.send({ type: "subscribe", topic: `user:${bId}` })
  await socketA.waitFor((f) => f.type === "subscribed" && f.topic === `user:${aId}`)
  await socketB.waitFor((f) => f.type === "subscribed" && f.topic === `user:${bId}`)
}, 180_000)

afterAll(async () => {
  for (const s of [socketA, socketB, socketAnon]) await s?.close()
  await app?.close()
  await bot?.close()
})

describe("WebSocket: a user topic is its user's only", () => {
  it("refuses A's topic to B (forbidden) and to an anonymous socket (login_required)", async () => {
    socketB.send({ type: "subscribe", topic: `user:${aId}` })
    const refused = await socketB.waitFor((f) => f.type === "error" && f.topic === `user:${aId}`)
    expect(refused.code).toBe("forbidden")
    socketAnon.send({ type: "subscribe", topic: `user:${aId}` })
    expect((await socketAnon.waitFor((f) => f.type === "error" && f.topic === `user:${aId}`)).code).toBe("login_required")
    // `user:0<A>` names A too; and a user that does not exist is refused alike (the answer tells nothing of A).
    for (const topic of [`user:0${aId}`, "user:987654"]) {
      socketB.send({ type: "subscribe", topic })
      expect((await socketB.waitFor((f) => f.type === "error" && f.topic === topic)).code, topic).toBe("forbidden")
    }
  })
})

describe("caching", () => {
  it("marks a signed-in caller's answers private, never for a shared cache; public answers keep their own policy", async () => {
    for (const path of ["/api/alerts", "/api/keys", "/api/watchlist", "/auth/me"]) {
      const res = await fetch(`${app.url}${path}`, { headers: bearer(a.token) })
      expect(res.status, path).toBe(200)
      expect(res.headers.get("cache-control"), path).toMatch(/private|no-store/)
    }
    expect((await fetch(`${app.url}/api/pricing`)).headers.get("cache-control")).not.toMatch(/private/)
  })
})

describe("alerts: subscriptions, deliveries, channels and the messenger link", () => {
  const t = newToken()
  let alertId = 0

  it("B and anonymous callers cannot list, change, snooze or delete A's alert (404, never 403)", async () => {
    const created = await asA("POST", "/api/alerts", {
      type: "whale_trade", name: "alice-secret-alert", params: { token: t.symbol, side: "buy", min_usd: 1_000 }, channels: ["console", "messenger", "webhook"]
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    alertId = created.body.id

    const listed = await asB("GET", "/api/alerts")
    expect(listed.status).toBe(200)
    expect(listed.body.alerts.map((x: any) => x.id)).not.toContain(alertId)
    expect(JSON.stringify(listed.body)).not.toContain("alice-secret-alert")
    for (const [method, path, body] of [
      ["PUT", `/api/alerts/${alertId}`, { enabled: false, name: "taken over" }],
      ["DELETE", `/api/alerts/${alertId}`, undefined],
      ["POST", `/api/alerts/${alertId}/snooze`, { hours: 5 }]
    ] as const) {
      const r = await asB(method, path, body)
      expect(r.status, `${method} ${path}`).toBe(404)
      expect(r.body.code).toBe("alert_not_found")
      expect((await anon(method, path, body)).status, `anonymous ${method} ${path}`).toBe(401)
    }
    expect((await anon("GET", "/api/alerts")).status).toBe(401)
    const mine = (await asA("GET", "/api/alerts")).body.alerts.find((x: any) => x.id === alertId)
    expect(mine).toMatchObject({ name: "alice-secret-alert", enabled: true, snoozed_until: null })
  })

  it("keeps A's messenger chat and webhook out of B's channel settings, and each chat bound to its own user", async () => {
    const link = async (as: typeof asA, chat: number, username: string) => {
      const code = await as("POST", "/api/alerts/channels/messenger")
      expect(code.status, JSON.stringify(code.body)).toBe(200)
      const bound = await internal("/api/alerts/channels/messenger/verify", { code: code.body.code, chat_id: chat, username })
      expect(bound.status).toBe(200)
      return bound.body.user_id as number
    }
    expect(await link(asA, CHAT_A, "alice_tg")).toBe(aId)
    expect(await link(asB, CHAT_B, "bob_tg")).toBe(bId)
    const hook = await asA("PUT", "/api/alerts/channels", { webhook: { url: "http://127.0.0.1:9/alice-private-hook" } })
    expect(hook.status, JSON.stringify(hook.body)).toBe(200)

    const own = await asA("GET", "/api/alerts/channels")
    expect(own.body.messenger).toMatchObject({ connected: true, username: "alice_tg" })
    expect(own.body.webhook.url).toBe("http://127.0.0.1:9/alice-private-hook")
    const theirs = await asB("GET", "/api/alerts/channels")
    expect(theirs.body.messenger).toMatchObject({ connected: true, username: "bob_tg" })
    expect(theirs.body.webhook.url).toBeNull()
    for (const secret of ["alice_tg", "alice-private-hook", A_EMAIL]) expect(JSON.stringify(theirs.body)).not.toContain(secret)
    // The bot answers each chat about its own user: A has one alert, B none.
    expect((await internal("/api/alerts/channels/messenger/status", { chat_id: CHAT_A })).body).toMatchObject({ connected: true, alerts: 1 })
    expect((await internal("/api/alerts/channels/messenger/status", { chat_id: CHAT_B })).body).toMatchObject({ connected: true, alerts: 0 })
  })

  it("delivers A's alert to A's history, chat and topic only", async () => {
    const hit = record({ ...t, usd: 250_000, wallet_label: "Delivery whale" })
    expect((await internal("/api/alerts/process-tx", hit)).status).toBe(200)
    await waitFor(() => bot.sent.some((m) => m.chat_id === String(CHAT_A) && m.text.includes(t.symbol)), 15_000)
    const frame = await socketA.waitFor((f) => f.topic === `user:${aId}` && f.data?.kind === "alert" && f.data.data.alert_id === alertId, 10_000)
    const deliveryId = frame.data.data.delivery_id as number
    await waitFor(() => settled(app), 15_000, 50)

    const own = await asA("GET", "/api/alerts/history?limit=200")
    expect(own.body.items.map((i: any) => i.id)).toContain(deliveryId)
    const theirs = await asB("GET", "/api/alerts/history?limit=200")
    expect(theirs.status).toBe(200)
    expect(theirs.body.items.map((i: any) => i.id)).not.toContain(deliveryId)
    expect(JSON.stringify(theirs.body)).not.toContain(t.symbol)
    expect((await anon("GET", "/api/alerts/history")).status).toBe(401)
    expect(bot.sent.filter((m) => m.chat_id === String(CHAT_B))).toEqual([])
    expect(JSON.stringify(socketB.frames)).not.toContain(t.symbol)
    expect(userFrames(socketB, aId)).toEqual([])
  })
})

describe("API keys and their usage", () => {
  let aKey = ""
  let aPrefix = ""
  let bKey = ""

  it("lists only the caller's keys, and revoking A's prefix as B is 404 (A's key keeps working)", async () => {
    const made = await asA("POST", "/api/keys/create", { name: "alice-laptop" })
    expect(made.status).toBe(200)
    aKey = made.body.key
    aPrefix = made.body.prefix
    bKey = (await asB("POST", "/api/keys/create", { name: "bob-server" })).body.key

    const own = await asA("GET", "/api/keys")
    expect(own.body.keys.map((k: any) => k.prefix)).toContain(aPrefix)
    const theirs = await asB("GET", "/api/keys")
    expect(theirs.body.keys.map((k: any) => k.name)).toEqual(["bob-server"])
    expect(JSON.stringify(theirs.body)).not.toContain(aPrefix)
    const revoke = await asB("POST", "/api/keys/revoke", { prefix: aPrefix })
    expect(revoke.status).toBe(404)
    expect(revoke.body.code).toBe("key_not_found")
    expect((await anon("GET", "/api/keys")).status).toBe(401)
    expect((await anon("POST", "/api/keys/revoke", { prefix: aPrefix })).status).toBe(401)
    expect((await asA("GET", "/api/keys")).body.keys.map((k: any) => k.prefix)).toContain(aPrefix)
  })

  it("reports each account's own usage: B's key never shows A's keys or requests", async () => {
    const usage = (key: string) => anon("GET", "/api/v1/usage", undefined, { "x-api-key": key })
    for (let i = 0; i < 3; i++) expect((await usage(aKey)).status).toBe(200)
    const own = (await usage(aKey)).body.data
    expect(own.used).toBe(4)
    expect(own.keys).toEqual([{ prefix: aPrefix, name: "alice-laptop", requests: 4 }])
    const theirs = (await usage(bKey)).body.data
    expect(theirs.used).toBe(1)
    expect(theirs.keys.map((k: any) => k.name)).toEqual(["bob-server"])
    expect(JSON.stringify(theirs)).not.toContain(aPrefix)
  })
})

describe("Echo: portfolio, trades, auto-copy, results", () => {
  let tradeId = 0

  it("keeps A's portfolio, trade history, rules and analytics out of B's reads", async () => {
    await insertRecords(app, [
      { tx: txHash(0xe1), log: 0, wallet: WHALE, token: WETH, symbol: "WETH", category: "dex_buy", price: 2000, usd: 20_000, block: 999 },
      { tx: txHash(0xe2), log: 0, wallet: WHALE, token: UNI, symbol: "UNI", category: "dex_buy", price: 10, usd: 50_000, block: 1000 }
    ])
    const trade = await asA("POST", "/api/echo/trade", { side: "BUY", token: UNI, usd: 1_000 }, { "idempotency-key": "alice-order-0001" })
    expect(trade.status, JSON.stringify(trade.body)).toBe(200)
    tradeId = trade.body.trade.id
    const rule = await asA("POST", "/api/echo/autocopy", { wallet: WHALE, mode: "fixed", amount: 100, cap_usd: 500 })
    expect(rule.status, JSON.stringify(rule.body)).toBe(200)
    // A's own reads are the control.
    expect((await asA("GET", "/api/echo/portfolio")).body.holdings.map((h: any) => h.token)).toEqual([UNI])
    expect((await asA("GET", "/api/echo/trades")).body.trades.map((x: any) => x.id)).toEqual([tradeId])

    const portfolio = await asB("GET", "/api/echo/portfolio")
    expect(portfolio.status).toBe(200)
    expect(portfolio.body).toMatchObject({ cash: 100_000, holdings: [] })
    expect((await asB("GET", "/api/echo/trades")).body).toMatchObject({ total: 0, trades: [] })
    expect((await asB("GET", "/api/echo/autocopy")).body).toEqual({ rules: [] })
    expect((await asB("GET", "/api/echo/analytics")).body).toMatchObject({ trades: 0 })
    expect((await asB("GET", "/api/echo/shadow")).body).toEqual({ items: [] })
    for (const path of ["/api/echo/portfolio", "/api/echo/trades", "/api/echo/autocopy", "/api/echo/analytics"]) {
      expect((await anon("GET", path)).status, path).toBe(401)
    }
  })

  it("B cannot delete A's auto-copy rule", async () => {
    const del = await asB("DELETE", `/api/echo/autocopy/${WHALE}`)
    expect(del.status).toBe(404)
    expect(del.body.code).toBe("autocopy_rule_not_found")
    expect((await asA("GET", "/api/echo/autocopy")).body.rules.map((r: any) => r.wallet)).toEqual([WHALE])
  })

  it("an order id is the caller's own: A's id neither reveals A's order to B nor blocks A's retry", async () => {
    const sameKey = { "idempotency-key": "alice-order-0001" }
    // B's order with the same id is B's own new order (not a 409 telling B that A used the id).
    const theirs = await asB("POST", "/api/echo/trade", { side: "BUY", token: UNI, usd: 400 }, sameKey)
    expect(theirs.status, JSON.stringify(theirs.body)).toBe(200)
    expect(theirs.body.replayed).toBe(false)
    expect(theirs.body.trade.id).not.toBe(tradeId)
    expect(theirs.body.trade.usd).toBeCloseTo(400, 6)
    // …and a body command_id the same way.
    const body = { side: "BUY", token: UNI, usd: 100, command_id: "shared-body-id-01" }
    const first = await asA("POST", "/api/echo/trade", body)
    const second = await asB("POST", "/api/echo/trade", body)
    expect([first.status, second.status]).toEqual([200, 200])
    expect(second.body.replayed).toBe(false)
    expect(second.body.trade.id).not.toBe(first.body.trade.id)
    // A's retry still answers A's trade.
    const retry = await asA("POST", "/api/echo/trade", { side: "BUY", token: UNI, usd: 1_000 }, sameKey)
    expect(retry.body).toMatchObject({ replayed: true, trade: { id: tradeId } })
    expect((await asA("GET", "/api/echo/trades")).body.total).toBe(2)
    expect((await asB("GET", "/api/echo/trades")).body.total).toBe(2)
    expect((await asB("POST", "/api/echo/reset")).status).toBe(200)
  })

  it("pushes each valuation to its owner's topic only", async () => {
    await socketA.waitFor((f) => f.topic === `user:${aId}` && f.data?.kind === "echo" && f.data.data.trade?.id === tradeId, 10_000)
    const own = await asB("POST", "/api/echo/trade", { side: "BUY", token: UNI, usd: 500 })
    expect(own.status).toBe(200)
    await socketB.waitFor((f) => f.topic === `user:${bId}` && f.data?.kind === "echo" && f.data.data.trade?.id === own.body.trade.id, 10_000)
    expect(userFrames(socketB, bId).filter((e) => e.kind === "echo").map((e) => e.data.trade?.id)).not.toContain(tradeId)
    expect(userFrames(socketA, aId).filter((e) => e.kind === "echo").map((e) => e.data.trade?.id)).not.toContain(own.body.trade.id)
    // Nor does an operator's /metrics (loopback only; the public port refuses it) say which users were sent events.
    expect((await fetch(`${app.url}/metrics`)).status).toBe(404)
    const metrics = await (await fetch(`${app.metricsUrl}/metrics`)).text()
    expect(metrics).toMatch(/ws_published_total\{channel="user"\} [1-9]/)
    expect(metrics).not.toMatch(new RegExp(`user:(${aId}|${bId})\\b`))
  })

  it("shows A on B's leaderboard by display name only: no e-mail, no holdings, no trades", async () => {
    const board = await asB("GET", "/api/echo/leaderboard")
    expect(board.status).toBe(200)
    expect(board.body.rows.map((r: any) => r.display_name)).toContain("Alice Private")
    const text = JSON.stringify(board.body)
    for (const secret of [A_EMAIL, UNI, WHALE, "alice-order-0001"]) expect(text).not.toContain(secret)
    for (const row of board.body.rows) {
      expect(Object.keys(row).sort()).toEqual(["closed_trades", "days", "display_name", "rank", "resets", "return_pct", "risk_adjusted", "trades"])
    }
  })
})

describe("watchlist", () => {
  let itemId = 0

  it("B cannot see or delete A's item (404), and live updates go to A's topic only", async () => {
    const added = await asA("POST", "/api/watchlist", { token: WBTC })
    expect(added.status, JSON.stringify(added.body)).toBe(200)
    itemId = added.body.item.id
    const theirs = await asB("GET", "/api/watchlist")
    expect(theirs.status).toBe(200)
    expect(theirs.body.items).toEqual([])
    const del = await asB("DELETE", `/api/watchlist/${itemId}`)
    expect(del.status).toBe(404)
    expect(del.body.code).toBe("item_not_found")
    expect((await anon("DELETE", `/api/watchlist/${itemId}`)).status).toBe(401)
    expect((await asA("GET", "/api/watchlist")).body.items.map((i: any) => i.id)).toEqual([itemId])

    await publishTrades(app, [chainTx(0x77, { token: WBTC, symbol: "WBTC", price_usd: 61_234 })])
    await socketA.waitFor((f) => f.topic === `user:${aId}` && f.data?.kind === "watchlist" && f.data.data.item_id === itemId, 10_000)
    // B watches nothing: one more trade of a token B does watch shows B's socket is live, and carries nothing of A's.
    expect((await asB("POST", "/api/watchlist", { token: "ETH" })).status).toBe(200)
    await publishTrades(app, [chainTx(0x78, { token: WETH, symbol: "WETH", price_usd: 3_100 })])
    await socketB.waitFor((f) => f.topic === `user:${bId}` && f.data?.kind === "watchlist", 10_000)
    const bWatch = userFrames(socketB, bId).filter((e) => e.kind === "watchlist")
    expect(bWatch.map((e) => e.data.item_id)).not.toContain(itemId)
    expect(bWatch.map((e) => e.data.token)).not.toContain(WBTC)
  })
})

describe("billing", () => {
  it("B sees no subscription, customer or portal of A's, and cannot cancel it", async () => {
    const checkout = await asA("POST", "/api/subscribe/cardprocessor", { tier: "alpha", interval: "monthly" })
    expect(checkout.status, JSON.stringify(checkout.body)).toBe(200)
    const paid = await fetch(`${app.url}/billing/test-payments/checkout/${checkout.body.id}/pay`, { method: "POST", redirect: "manual" })
    expect(paid.status).toBe(303)
    await waitFor(async () => (await asA("GET", "/api/billing/status")).body.subscription?.status === "active", 10_000, 100)
    expect((await asA("GET", "/api/billing/status")).body).toMatchObject({ has_card_customer: true, subscription: { tier: "alpha", cancel_at_period_end: false } })

    const theirs = await asB("GET", "/api/billing/status")
    expect(theirs.status).toBe(200)
    expect(theirs.body).toMatchObject({ subscription: null, has_card_customer: false })
    const portal = await asB("POST", "/api/billing/portal")
    expect(portal.status).toBe(409)
    expect(portal.body.code).toBe("no_card_customer")
    // B's own (absent) subscription is what these act on.
    for (const [path, body] of [["/api/subscribe/cancel", {}], ["/api/subscribe/downgrade", { tier: "pro" }]] as const) {
      const r = await asB("POST", path, body)
      expect(r.status, path).toBe(409)
      expect(r.body.code, path).toBe("no_subscription")
    }
    expect((await anon("GET", "/api/billing/status")).status).toBe(401)
    expect((await asA("GET", "/api/billing/status")).body.subscription).toMatchObject({ tier: "alpha", cancel_at_period_end: false, pending_change: null })
  })
})

describe("custom wallets: search and MCP", () => {
  it("B cannot remove A's custom wallet; its label is found by no search, API or MCP tool", async () => {
    const address = `0x${"ab".repeat(19)}cd`
    const added = await asA("POST", "/api/alerts/custom-wallets", { address, label: "Alice Hidden Fund" })
    expect(added.status, JSON.stringify(added.body)).toBe(200)
    // A public wallet with a like label: the searches below do find what is public.
    await app.query("INSERT INTO tracked_wallets (address, label, cohort, source) VALUES ($1, 'Public Hidden Fund', 'large', 'seed')", [`0x${"12".repeat(20)}`])

    const del = await asB("DELETE", `/api/alerts/custom-wallets/${added.body.id}`)
    expect(del.status).toBe(404)
    expect((await asB("GET", "/api/alerts/custom-wallets")).body.wallets).toEqual([])
    expect((await asA("GET", "/api/alerts/custom-wallets")).body.wallets.map((w: any) => w.id)).toEqual([added.body.id])

    const searched = (await anon("GET", "/api/alerts/wallet-search?q=hidden%20fund")).body.wallets.map((w: any) => w.label)
    expect(searched).toContain("Public Hidden Fund")
    expect(searched).not.toContain("Alice Hidden Fund")
    const init = await fetch(`${app.url}/mcp`, {
      method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } } })
    })
    const session = init.headers.get("mcp-session-id")!
    const tool = await fetch(`${app.url}/mcp`, {
      method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": session },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "wallet_search", arguments: { query: "hidden fund" } } })
    })
    const labels = ((await tool.json()) as any).result.structuredContent.wallets.map((w: any) => w.label)
    expect(labels).toContain("Public Hidden Fund")
    expect(labels).not.toContain("Alice Hidden Fund")
    for (const q of ["hidden fund", address.slice(0, 10)]) {
      const keyed = await anon("GET", `/api/v1/wallets?q=${encodeURIComponent(q)}`, undefined, { "x-api-key": (await asB("POST", "/api/keys/create", { name: `search ${q}` })).body.key })
      expect(keyed.status).toBe(200)
      expect(JSON.stringify(keyed.body)).not.toContain("Alice Hidden Fund")
      expect(keyed.body.data.wallets.map((w: any) => w.address)).not.toContain(address)
    }
  })
})

describe("e-mail workspace (staff only)", () => {
  it("answers A and B 403 and anonymous 401 on every read and form, while staff read the thread", async () => {
    const staff = api(app, staffToken)
    const contact = await staff("POST", "/email/contact", { email: "lead@outside.example", name: "Private Lead" })
    expect(contact.status, JSON.stringify(contact.body)).toBe(200)
    const contactId = contact.body.id
    expect((await staff("POST", "/email/send", { contact_id: contactId, subject: "Private pitch", body: "Numbers only for you" })).status).toBe(200)
    const thread = await staff("GET", `/api/email/contacts/${contactId}/thread`)
    expect(thread.body.messages.map((m: any) => m.subject)).toEqual(["Private pitch"])
    const msgId = thread.body.messages[0].id

    for (const [method, path, body] of [
      ["GET", "/api/email/workspace", undefined],
      ["GET", `/api/email/contacts/${contactId}/thread`, undefined],
      ["GET", `/email/message/${msgId}/body`, undefined],
      ["GET", `/email/compose/${contactId}`, undefined],
      ["GET", "/email/attachment/1", undefined],
      ["POST", `/email/inbox/${msgId}/read`, {}],
      ["POST", `/email/messages/${msgId}/delete`, {}],
      ["POST", `/email/contact/${contactId}/status`, { status: "replied" }],
      ["POST", `/email/contact/${contactId}/delete`, {}]
    ] as const) {
      for (const [who, as, status] of [["A", asA, 403], ["B", asB, 403], ["anonymous", anon, 401]] as const) {
        const r = await as(method, path, body)
        expect(r.status, `${who} ${method} ${path}`).toBe(status)
        expect(JSON.stringify(r.body), `${who} ${method} ${path}`).not.toMatch(/Private (Lead|pitch)|Numbers only/)
      }
    }
    expect((await staff("GET", `/api/email/contacts/${contactId}/thread`)).body).toMatchObject({ contact: { name: "Private Lead", status: "sent" } })
  })
})

describe("account: profile and sessions", () => {
  it("answers B with B's own account, and B ending every session of its own leaves A's", async () => {
    const me = await asB("GET", "/auth/me")
    expect(me.body.email).toBe(B_EMAIL)
    expect(JSON.stringify(me.body)).not.toMatch(/alice|Alice Private/)
    expect((await asB("POST", "/auth/logout", { everywhere: true })).status).toBe(200)
    expect((await asB("GET", "/auth/me")).status).toBe(401)
    const still = await asA("GET", "/auth/me")
    expect(still.status).toBe(200)
    expect(still.body).toMatchObject({ email: A_EMAIL, display_name: "Alice Private" })
  })
})
