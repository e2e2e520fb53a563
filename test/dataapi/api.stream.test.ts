/**
 * The keyed WebSocket feed `/api/v1/stream` (issue 29, part 3): the key in the header or the first message (none,
 * unknown → 4401; below the whale tier → 4403); trades filtered by token, wallet, min_usd and side; resume after a
 * reconnect from the last seq without gap or duplicate; the caller's own alerts only; each delivered frame counted
 * against the daily quota; past the limit, a close with 4429; a bad message answered with an error frame; at most
 * STREAM_MAX_CONNECTIONS_PER_ACCOUNT feeds per account (4430 past it).
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { STREAM_CLOSE, STREAM_PATH } from "../../schema/dataapi-stream"
import { CONSOLE_STREAMS } from "../../schema/ws"
import { quotaKey } from "../../server/gateways/dataapi/Quota"
import { Kv } from "../../server/platform/infra/Kv"
import { setTier } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { QUIET_CHAIN, whaleWithKey } from "../support/whales"
import { chainTx, openSocket, publish, publishTrades, type TestSocket } from "../support/ws"

let app: TestApp
let key: string
let userId: number
const open: Array<TestSocket> = []

const UNI = "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984"
/** Feeds per account: more than the main account opens over this file (6, kept open until the end). */
const PER_ACCOUNT = 8
const WHALE = "0x1111111111111111111111111111111111111111"

beforeAll(async () => {
  app = await startApp({ env: { ...QUIET_CHAIN, API_KEY_CACHE_MS: "200", STREAM_AUTH_TIMEOUT_MS: "1000", STREAM_MAX_CONNECTIONS_PER_ACCOUNT: String(PER_ACCOUNT) } })
  ;({ key, userId } = await whaleWithKey(app, "stream@example.com"))
}, 120_000)
afterAll(async () => {
  for (const s of open) await s.close().catch(() => undefined)
  await app?.close()
})

const connect = async (headers: Record<string, string> = { "x-api-key": key }) => {
  const s = await openSocket(app, { path: STREAM_PATH, headers })
  open.push(s)
  return s
}
const used = async (k = key) => (await (await fetch(`${app.url}/api/v1/usage`, { headers: { "x-api-key": k } })).json()).data.used as number

describe("authentication", () => {
  it("closes with 4401 without a key, with an unknown key, or when the first message is not auth; 4403 below the whale tier", async () => {
    const none = await connect({})
    none.send({ type: "subscribe", topic: "trades" })
    expect((await none.closed).code).toBe(STREAM_CLOSE.unauthorized)
    const silent = await connect({})
    expect((await silent.closed).code).toBe(STREAM_CLOSE.unauthorized)
    const wrong = await connect({ "x-api-key": "wk_live_nope" })
    expect((await wrong.closed).code).toBe(STREAM_CLOSE.unauthorized)
    const fallen = await whaleWithKey(app, "fallen-stream@example.com")
    await setTier(app, "fallen-stream@example.com", "pro")
    await waitFor(async () => (await fetch(`${app.url}/api/v1/stats`, { headers: { "x-api-key": fallen.key } })).status === 403, 10_000, 50)
    const pro = await connect({ "x-api-key": fallen.key })
    expect((await pro.closed).code).toBe(STREAM_CLOSE.tierRequired)
  })

  it("takes the key in the first message; a bad message gets an error frame, not a close", async () => {
    const s = await connect({})
    s.send({ type: "auth", key })
    s.send({ type: "ping", id: 7 })
    expect(await s.waitFor((f) => f.type === "welcome")).toMatchObject({ tier: "whale", topics: ["trades", "index", "alerts"] })
    expect(await s.waitFor((f) => f.type === "pong")).toMatchObject({ id: 7 })
    s.send({ type: "subscribe", topic: "nope" })
    expect(await s.waitFor((f) => f.type === "error")).toMatchObject({ code: "bad_message" })
    s.send({ type: "subscribe", topic: "trades", filters: { min_usd: -1 } })
    await waitFor(() => s.frames.filter((f) => f.type === "error").length === 2, 5_000)
    expect(s.isClosed()).toBe(false)
  })
})

describe("connections", () => {
  it("holds at most STREAM_MAX_CONNECTIONS_PER_ACCOUNT feeds per account (another account is not held); a closed one frees its place", async () => {
    const acct = await whaleWithKey(app, "many-feeds@example.com")
    const feeds: Array<TestSocket> = []
    for (let i = 0; i < PER_ACCOUNT; i++) {
      const s = await connect({ "x-api-key": acct.key })
      await s.waitFor((f) => f.type === "welcome")
      feeds.push(s)
    }
    const fourth = await connect({ "x-api-key": acct.key })
    expect((await fourth.closed).code).toBe(STREAM_CLOSE.tooManyConnections)
    // Another account is not held by this one's feeds.
    const other = await connect()
    await other.waitFor((f) => f.type === "welcome")
    await feeds[0]!.close()
    const again = await connect({ "x-api-key": acct.key })
    expect(await again.waitFor((f) => f.type === "welcome")).toMatchObject({ tier: "whale" })
    expect(feeds.slice(1).every((f) => !f.isClosed())).toBe(true)
  })
})

describe("trades", () => {
  it("filters by token, wallet, min_usd and side; resumes from the last seq without gap or duplicate; counts each frame", async () => {
    const a = await connect()
    await a.waitFor((f) => f.type === "welcome")
    a.send({ type: "subscribe", topic: "trades", filters: { tokens: ["UNI"], wallets: [WHALE.toUpperCase().replace("0X", "0x")], min_usd: 1_000, side: "buy" } })
    await a.waitFor((f) => f.type === "subscribed" && f.topic === "trades")
    const before = await used()
    const match = (n: number) => chainTx(n, { token: UNI, symbol: "UNI", wallet: WHALE, usd: 5_000 + n, category: "dex_buy" })
    await publishTrades(app, [
      match(1),
      chainTx(2, { token: UNI, symbol: "UNI", wallet: WHALE, usd: 500, category: "dex_buy" }), // too small
      chainTx(3, { token: UNI, symbol: "UNI", wallet: WHALE, usd: 5_000, category: "dex_sell" }), // a sell
      chainTx(4, { wallet: WHALE, usd: 9_000, category: "dex_buy" }), // WETH
      chainTx(5, { token: UNI, symbol: "UNI", usd: 9_000, category: "dex_buy" }), // another wallet
      match(6), match(7)
    ])
    await waitFor(() => a.data("trades").length === 3, 10_000)
    const first = a.data("trades")
    expect(first.map((f) => f.data.id)).toEqual([1, 6, 7])
    expect(first[0]!.data).not.toHaveProperty("messageId")
    const seqs = first.map((f) => f.seq as number)
    expect([...seqs].sort((x, y) => x - y)).toEqual(seqs)
    // Each delivered frame is one request; the usage call itself is one more.
    expect(await used()).toBe(before + 3 + 1)

    // Disconnect after the second frame; three more come meanwhile; resume from the second frame's seq.
    await a.close()
    // A watcher sees the three arrive live: only then are they in the relay for b to replay (publishing returns
    // before the relay reads them).
    const w = await connect()
    await w.waitFor((f) => f.type === "welcome")
    w.send({ type: "subscribe", topic: "trades", filters: { tokens: [UNI], wallets: [WHALE], min_usd: 1_000, side: "buy" } })
    await w.waitFor((f) => f.type === "subscribed" && f.topic === "trades")
    await publishTrades(app, [match(8), chainTx(9, { usd: 1 }), match(10)])
    await waitFor(() => w.data("trades").some((f) => f.data.id === 10), 10_000)
    await w.close()
    const b = await connect()
    await b.waitFor((f) => f.type === "welcome")
    b.send({ type: "subscribe", topic: "trades", since_seq: seqs[1], filters: { tokens: [UNI], wallets: [WHALE], min_usd: 1_000, side: "buy" } })
    expect(await b.waitFor((f) => f.type === "subscribed")).toMatchObject({ replayed: 3, truncated: false })
    await publishTrades(app, [match(11)])
    await waitFor(() => b.data("trades").length === 4, 10_000)
    await new Promise((r) => setImmediate(r))
    expect(b.data("trades").map((f) => f.data.id)).toEqual([7, 8, 10, 11])
  })
})

describe("alerts and quota", () => {
  it("sends the caller's own alerts only", async () => {
    const other = await whaleWithKey(app, "other-stream@example.com")
    const s = await connect()
    await s.waitFor((f) => f.type === "welcome")
    s.send({ type: "subscribe", topic: "alerts" })
    await s.waitFor((f) => f.type === "subscribed" && f.topic === "alerts")
    await publish(app, CONSOLE_STREAMS.user, [
      { user_id: other.userId, kind: "alert", data: { alert_id: 1, mine: false } },
      { user_id: userId, kind: "watchlist", data: { not: "an alert" } },
      { user_id: userId, kind: "alert", data: { alert_id: 2, mine: true } }
    ])
    await waitFor(() => s.data("alerts").length > 0, 10_000)
    expect(s.data("alerts").map((f) => f.data)).toEqual([{ alert_id: 2, mine: true }])
  })

  it("closes with 4429 once the daily quota is used up, after the frames it covered", async () => {
    const capped = await whaleWithKey(app, "capped-stream@example.com")
    const s = await connect({ "x-api-key": capped.key })
    await s.waitFor((f) => f.type === "welcome")
    s.send({ type: "subscribe", topic: "trades" })
    await s.waitFor((f) => f.type === "subscribed")
    const day = new Date().toISOString().slice(0, 10)
    await app.runtime.runPromise(Effect.flatMap(Kv, (kv) => kv.set(quotaKey(capped.userId, day), "24998", 172_800)))
    await publishTrades(app, [chainTx(101), chainTx(102), chainTx(103), chainTx(104)])
    const closed = await s.closed
    expect(closed).toMatchObject({ code: STREAM_CLOSE.quotaExceeded, reason: "daily_limit_reached" })
    expect(s.data("trades").map((f) => f.data.id)).toEqual([101, 102])
  })
})
