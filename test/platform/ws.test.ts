/**
 * The WebSocket protocol (schema/ws.ts) against the whole app: authentication at the upgrade, subscriptions and
 * their gates, seq derived from the bus entry, resume without gaps or duplicates, bounded history, error frames.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CONSOLE_STREAMS, seqOfId } from "../../schema/ws"
import { createUser, login, setTier } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { chainTx, openSocket, publish, publishTrades, type TestSocket } from "../support/ws"

const ANON_DELAY_MS = 600
const HISTORY = 50

let app: TestApp
let token: string
let userId: number
beforeAll(async () => {
  // The http role alone: no block listener publishing demo trades between the ones these tests publish.
  app = await startApp({ env: { WHALE_ROLES: "http", WS_ANON_DELAY_MS: String(ANON_DELAY_MS), WS_HISTORY: String(HISTORY), WS_POLL_MS: "50", WS_RESUME_WAIT_MS: "500" } })
  await createUser(app, { email: "trader@example.com" })
  const session = await login(app, "trader@example.com")
  token = session.token
  userId = session.body.user.id
})
afterAll(async () => {
  await app?.close()
})

const signedIn = () => openSocket(app, { headers: { authorization: `Bearer ${token}` } })
const subscribe = async (s: TestSocket, topic: string, extra: Record<string, unknown> = {}) => {
  const before = s.frames.length
  s.send({ type: "subscribe", topic, ...extra })
  return s.waitFor((f) => s.frames.indexOf(f) >= before && (f.type === "subscribed" || f.type === "error") && f.topic === topic)
}

describe("connecting", () => {
  it("welcomes an anonymous client, and a signed-in one with its user", async () => {
    const anon = await openSocket(app)
    expect(await anon.waitFor((f) => f.type === "welcome")).toMatchObject({ user: null, auth: "none", anon_delay_ms: ANON_DELAY_MS })
    const user = await signedIn()
    expect(await user.waitFor((f) => f.type === "welcome")).toMatchObject({ user: { id: userId, tier: "free", admin: false }, auth: "ok" })
    await Promise.all([anon.close(), user.close()])
  })

  it("takes the token from the subprotocol (answering whale.v1) or the query; a bad token connects anonymously", async () => {
    const viaProtocol = await openSocket(app, { protocols: ["whale.v1", `whale.token.${token}`] })
    expect(viaProtocol.ws.protocol).toBe("whale.v1")
    expect((await viaProtocol.waitFor((f) => f.type === "welcome")).user.id).toBe(userId)
    const viaQuery = await openSocket(app, { query: `token=${encodeURIComponent(token)}` })
    expect((await viaQuery.waitFor((f) => f.type === "welcome")).user.id).toBe(userId)
    const bad = await openSocket(app, { query: "token=not-a-jwt" })
    expect(await bad.waitFor((f) => f.type === "welcome")).toMatchObject({ user: null, auth: "invalid" })
    await Promise.all([viaProtocol.close(), viaQuery.close(), bad.close()])
  })

  it("accepts the session cookie from its own origin only", async () => {
    const cookie = `whale_token=${encodeURIComponent(token)}`
    const own = await openSocket(app, { headers: { cookie, origin: app.url } })
    expect((await own.waitFor((f) => f.type === "welcome")).user?.id).toBe(userId)
    const foreign = await openSocket(app, { headers: { cookie, origin: "https://evil.example" } })
    expect((await foreign.waitFor((f) => f.type === "welcome")).user).toBeNull()
    await Promise.all([own.close(), foreign.close()])
  })
})

describe("subscriptions and gates", () => {
  it("answers bad frames with error frames and keeps the connection", async () => {
    const s = await openSocket(app)
    s.send("{not json")
    expect(await s.waitFor((f) => f.type === "error")).toMatchObject({ code: "bad_json" })
    s.send({ type: "subscribe" })
    expect(await s.waitFor((f) => f.code === "bad_message")).toMatchObject({ type: "error" })
    s.send({ type: "dance" })
    await s.waitFor((f) => f.code === "bad_message" && s.frames.filter((x) => x.code === "bad_message").length === 2)
    expect(await subscribe(s, "no-such-topic")).toMatchObject({ type: "error", code: "unknown_topic" })
    s.send({ type: "ping", id: "p1" })
    expect(await s.waitFor((f) => f.type === "pong")).toMatchObject({ id: "p1" })
    expect(s.isClosed()).toBe(false)
    await s.close()
  })

  it("refuses gated topics: ops to non-admins, playbook below whale, another user's topic", async () => {
    const anon = await openSocket(app)
    expect(await subscribe(anon, "ops:actors")).toMatchObject({ type: "error", code: "login_required" })
    expect(await subscribe(anon, `user:${userId}`)).toMatchObject({ type: "error", code: "login_required" })
    const user = await signedIn()
    expect(await subscribe(user, "ops:actors")).toMatchObject({ type: "error", code: "admin_required" })
    expect(await subscribe(user, "playbook:live")).toMatchObject({ type: "error", code: "tier_required", required_tier: "whale" })
    expect(await subscribe(user, `user:${userId + 1}`)).toMatchObject({ type: "error", code: "forbidden" })
    expect(await subscribe(user, `user:${userId}`)).toMatchObject({ type: "subscribed", kind: "log" })
    await Promise.all([anon.close(), user.close()])
  })

  it("lets a whale-tier user follow the live playbook topic", async () => {
    await createUser(app, { email: "big@example.com", tier: "whale" })
    await setTier(app, "big@example.com", "whale")
    const whale = await openSocket(app, { headers: { authorization: `Bearer ${(await login(app, "big@example.com")).token}` } })
    expect(await subscribe(whale, "playbook:live")).toMatchObject({ type: "subscribed" })
    // The playbook domain's topic relays the actor's snapshots; a payload that is not one is skipped.
    const totals = { dex_buy_usd: 5, dex_sell_usd: 0, exchange_deposit_usd: 0, exchange_withdraw_usd: 0, net_flow_usd: 5, whales_active: 1, records: 1 }
    await publish(app, CONSOLE_STREAMS.playbook, [
      { messageId: "live:bad", event_id: "not a number" },
      { messageId: "live:1:1", event_id: 1, title: "Rate decision", timestamp: "2026-01-01T00:00:00.000Z", as_of: "2026-01-01T00:05:00.000Z", buckets: [], totals, fastest: [] }
    ])
    const frame = await whale.waitFor((f) => f.topic === "playbook:live" && f.seq)
    expect(frame.data).toEqual({ event_id: 1, title: "Rate decision", timestamp: "2026-01-01T00:00:00.000Z", as_of: "2026-01-01T00:05:00.000Z", buckets: [], totals, fastest: [] })
    await whale.close()
  })

  it("delivers user:<id> events only to that user", async () => {
    const user = await signedIn()
    await subscribe(user, `user:${userId}`)
    await publish(app, CONSOLE_STREAMS.user, [
      { messageId: "u1", user_id: userId + 7, kind: "alert", data: { text: "not yours" } },
      { messageId: "u2", user_id: userId, kind: "alert", data: { text: "yours" } }
    ])
    expect((await user.waitFor((f) => f.topic === `user:${userId}` && f.seq)).data).toEqual({ kind: "alert", data: { text: "yours" } })
    await new Promise((r) => setTimeout(r, 200))
    expect(user.frames.filter((f) => f.seq !== undefined)).toHaveLength(1)
    await user.close()
  })
})

describe("feed:trades", () => {
  it("sends a signed-in client each trade live with seq from its bus entry; anonymous clients get it delayed and masked", async () => {
    const user = await signedIn()
    const anon = await openSocket(app)
    await subscribe(user, "feed:trades")
    expect(await subscribe(anon, "feed:trades")).toMatchObject({ type: "subscribed", delay_ms: ANON_DELAY_MS })
    const [id] = await publishTrades(app, [chainTx(1)])
    const started = Date.now()
    const live = await user.waitFor((f) => f.topic === "feed:trades" && f.seq === seqOfId(id!))
    const liveMs = Date.now() - started
    expect(live.data).toMatchObject({ tx_hash: chainTx(1).tx_hash, wallet: chainTx(1).wallet, usd: 40_001 })
    expect(live.data.messageId).toBeUndefined()
    expect(anon.data("feed:trades")).toHaveLength(0)
    const delayed = await anon.waitFor((f) => f.topic === "feed:trades" && f.seq === seqOfId(id!), 5_000)
    expect(Date.now() - started).toBeGreaterThanOrEqual(ANON_DELAY_MS - liveMs - 50)
    expect(delayed.data.wallet).toBe("0x28c6…1d60")
    await Promise.all([user.close(), anon.close()])
  })

  it("resumes from since_seq with exactly the missed trades, then live ones, in order", async () => {
    const first = await signedIn()
    await subscribe(first, "feed:trades")
    const seen = (await publishTrades(app, [chainTx(10), chainTx(11)])).map((id) => seqOfId(id)!)
    await first.waitFor((f) => f.seq === seen[1])
    await first.close()

    // An observer that stays connected tells when this process has relayed the trades published meanwhile.
    const observer = await signedIn()
    await subscribe(observer, "feed:trades")
    const missed = (await publishTrades(app, [12, 13, 14, 15, 16].map((n) => chainTx(n)))).map((id) => seqOfId(id)!)
    await observer.waitFor((f) => f.seq === missed[4])
    await observer.close()
    const again = await signedIn()
    expect(await subscribe(again, "feed:trades", { since_seq: seen[1] })).toMatchObject({ replayed: 5, truncated: false, head: missed[4] })
    const later = (await publishTrades(app, [chainTx(17), chainTx(18)])).map((id) => seqOfId(id)!)
    await again.waitFor((f) => f.seq === later[1])
    const seqs = again.data("feed:trades").map((f) => f.seq)
    expect(seqs).toEqual([...missed, ...later])
    expect(again.data("feed:trades").map((f) => f.data.id)).toEqual([12, 13, 14, 15, 16, 17, 18])
    await again.close()
  })

  it("bounds history: a client that missed more than it holds is told the resume is truncated", async () => {
    const first = await signedIn()
    await subscribe(first, "feed:trades")
    const [mark] = (await publishTrades(app, [chainTx(100)])).map((id) => seqOfId(id)!)
    await first.waitFor((f) => f.seq === mark)
    await first.close()
    const observer = await signedIn()
    await subscribe(observer, "feed:trades")
    const missed = (await publishTrades(app, Array.from({ length: HISTORY + 10 }, (_, i) => chainTx(101 + i)))).map((id) => seqOfId(id)!)
    await observer.waitFor((f) => f.seq === missed.at(-1))
    await observer.close()
    const again = await signedIn()
    expect(await subscribe(again, "feed:trades", { since_seq: mark })).toMatchObject({ truncated: true, replayed: HISTORY })
    expect(again.data("feed:trades").map((f) => f.seq)).toEqual(missed.slice(-HISTORY))
    await again.close()
  })

  it("gives a fresh subscription the asked backlog, and an unknown future seq a fresh start marked truncated", async () => {
    const s = await signedIn()
    expect(await subscribe(s, "feed:trades", { backlog: 3 })).toMatchObject({ replayed: 3, truncated: false })
    const newest = s.data("feed:trades").at(-1)!.seq as number
    s.send({ type: "unsubscribe", topic: "feed:trades" })
    await s.waitFor((f) => f.type === "unsubscribed")
    s.send({ type: "subscribe", topic: "feed:trades", since_seq: newest + 4096 * 3_600_000 })
    expect(await s.waitFor((f) => f.type === "error" && f.code === "seq_unknown", 3_000)).toMatchObject({ topic: "feed:trades" })
    expect(await s.waitFor((f) => f.type === "subscribed" && f.truncated === true)).toMatchObject({ replayed: 0 })
    await s.close()
  })
})

describe("state topics", () => {
  it("sends only the newest index snapshot on subscribe, then each new one", async () => {
    const snapshot = (score: number) => ({
      messageId: `idx-${score}`, source: "demo", demo: true, generated_at: new Date().toISOString(),
      index: { date: "2026-01-01", score, label: "Neutral", components: [], history: [] }
    })
    const observer = await openSocket(app)
    await subscribe(observer, "index")
    await publish(app, CONSOLE_STREAMS.index, [snapshot(40), snapshot(45)])
    await observer.waitFor((f) => f.topic === "index" && f.seq !== undefined && f.data.index.score === 45)
    const s = await openSocket(app)
    expect(await subscribe(s, "index")).toMatchObject({ kind: "state", replayed: 1 })
    expect(s.data("index").map((f) => f.data.index.score)).toEqual([45])
    await publish(app, CONSOLE_STREAMS.index, [snapshot(61)])
    expect((await s.waitFor((f) => f.topic === "index" && f.seq !== undefined && f.data.index.score === 61)).data.demo).toBe(true)
    await Promise.all([s.close(), observer.close()])
  })
})
