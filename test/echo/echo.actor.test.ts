/**
 * The echo-portfolio actor (issue 13 §4): commands on `echo.cmd` applied once per id, auto-copy of a followed
 * wallet from a record on `chain.tx`, skips kept as shadow positions, a reorg retraction undoing the copy, the live
 * valuation on `console.user` (kind `echo`) when a held token's price moves (passivation: entities.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUser, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { QUIET_CHAIN } from "../support/whales"
import { api, chainMessage, insertRecords, publish, tail, txHash, UNI, WETH, WHALE, WHALE2, type Rec } from "./support"

let app: TestApp
let call: ReturnType<typeof api>
let userId: number

const base: ReadonlyArray<Rec> = [
  { tx: txHash(101), log: 0, wallet: WHALE2, token: WETH, symbol: "WETH", category: "dex_buy", price: 2500, usd: 25_000, block: 500 },
  { tx: txHash(102), log: 0, wallet: WHALE2, token: UNI, symbol: "UNI", category: "dex_buy", price: 8, usd: 8_000, block: 500 }
]

beforeAll(async () => {
  app = await startApp({ env: { ...QUIET_CHAIN, ECHO_ACTOR_IDLE_MS: "1500", ECHO_START_CASH: "10000" } })
  await insertRecords(app, base)
  userId = (await createUser(app, { email: "follower@example.com", tier: "whale" })).id
  call = api(app, (await login(app, "follower@example.com")).token)
})
afterAll(async () => {
  await app?.close()
})

const trades = async () => (await call("GET", "/api/echo/trades?limit=100")).body.trades as Array<any>

describe("commands on echo.cmd", () => {
  it("a Trade command is applied once, however often it is delivered", async () => {
    const cmd = { _tag: "Trade", messageId: "bench:1:abc", userId, side: "BUY", token: UNI, usd: 100 }
    await publish(app, "echo.cmd", cmd)
    await publish(app, "echo.cmd", cmd)
    await waitFor(async () => (await trades()).some((t) => t.command_id === "bench:1:abc"), 10_000, 50)
    // a later command proves the duplicate was handled too
    await publish(app, "echo.cmd", { ...cmd, messageId: "bench:1:def" })
    await waitFor(async () => (await trades()).some((t) => t.command_id === "bench:1:def"), 10_000, 50)
    expect((await trades()).filter((t) => t.command_id === "bench:1:abc")).toHaveLength(1)
  })

  it("a rejected command is recorded as its outcome and acked (not retried forever)", async () => {
    await publish(app, "echo.cmd", { _tag: "Trade", messageId: "too-big-1", userId, side: "BUY", token: UNI, usd: 1e9 })
    await waitFor(async () => (await app.query("SELECT 1 FROM echo_commands WHERE command_id = 'too-big-1'")).length === 1, 10_000, 50)
    const [row] = await app.query<{ outcome: any }>("SELECT outcome FROM echo_commands WHERE command_id = 'too-big-1'")
    expect(row!.outcome.rejected).toBe("InsufficientCash")
  })
})

describe("auto-copy", () => {
  it("follows a wallet from a record on chain.tx, skips when cash is short (shadow), undoes a retracted copy", async () => {
    const rule = await call("POST", "/api/echo/autocopy", { wallet: WHALE, mode: "fraction", amount: 0.1, cap_usd: 1_000 })
    expect(rule.status).toBe(200)
    expect(rule.body.rules).toEqual([{ wallet: WHALE, mode: "fraction", amount: 0.1, cap_usd: 1_000, copy_sells: true, enabled: true }])
    expect((await call("POST", "/api/echo/autocopy", { wallet: WHALE, mode: "fraction", amount: 2, cap_usd: 1 })).status).toBe(422)

    // the whale buys UNI for $5,000: 10 % = $500 (under the cap)
    const buy: Rec = { tx: txHash(103), log: 2, wallet: WHALE, token: UNI, symbol: "UNI", category: "dex_buy", price: 9, usd: 5_000, block: 501 }
    const [id] = await insertRecords(app, [buy])
    await publish(app, "chain.tx", chainMessage(buy, id!))
    await waitFor(async () => (await trades()).some((t) => t.origin === "auto"), 15_000, 50)
    const auto = (await trades()).find((t) => t.origin === "auto")!
    expect(auto).toMatchObject({ side: "BUY", usd: 500, whale_price: 9, delay_blocks: 1 })
    expect(auto.whale).toMatchObject({ tx_hash: buy.tx, log_index: 2, wallet: WHALE })
    // redelivery of the same record copies nothing more
    await publish(app, "chain.tx", { ...chainMessage(buy, id!), messageId: "again" })

    // a huge buy: capped at $1,000 — cash is ~9,400, so it fills; then drain cash and a further copy is skipped
    await call("POST", "/api/echo/trade", { side: "BUY", token: UNI, usd: (await call("GET", "/api/echo/portfolio")).body.cash - 50 })
    const big: Rec = { tx: txHash(104), log: 0, wallet: WHALE, token: UNI, symbol: "UNI", category: "dex_buy", price: 9, usd: 90_000, block: 502 }
    const [id2] = await insertRecords(app, [big])
    await publish(app, "chain.tx", chainMessage(big, id2!))
    await waitFor(async () => (await call("GET", "/api/echo/shadow")).body.items.length === 1, 15_000, 50)
    const shadow = (await call("GET", "/api/echo/shadow")).body.items[0]
    expect(shadow).toMatchObject({ reason: "cash_short", side: "BUY", token: UNI, usd: 1_000, whale_tx_hash: big.tx })
    expect(shadow.value_now_usd).not.toBeNull()
    expect((await trades()).filter((t) => t.origin === "auto")).toHaveLength(1)
    const analytics = (await call("GET", "/api/echo/analytics")).body
    expect(analytics.shadow.skipped).toBe(1)

    // a reorg retracts the first copied record: the copy is reversed at its own price
    await publish(app, "chain.tx", { messageId: "retract-1", kind: "retraction", id: id!, tx_hash: buy.tx, log_index: 2, block: 501, wallet: WHALE, token: UNI, category: "dex_buy", usd: 5_000, reason: "reorg" })
    await waitFor(async () => (await trades()).some((t) => t.origin === "retraction"), 15_000, 50)
    const rev = (await trades()).find((t) => t.origin === "retraction")!
    expect(rev).toMatchObject({ side: "SELL", reverses: auto.id, price: auto.price, gas_usd: 0 })
    expect(rev.quantity).toBeCloseTo(auto.quantity, 8)
    // a retraction of the skipped record drops its shadow
    await publish(app, "chain.tx", { messageId: "retract-2", kind: "retraction", id: id2!, tx_hash: big.tx, log_index: 0, block: 502, wallet: WHALE, token: UNI, category: "dex_buy", usd: 90_000, reason: "reorg" })
    await waitFor(async () => (await call("GET", "/api/echo/shadow")).body.items.length === 0, 15_000, 50)

    expect((await call("DELETE", `/api/echo/autocopy/${WHALE}`)).body.rules).toEqual([])
    expect((await call("DELETE", `/api/echo/autocopy/${WHALE}`)).status).toBe(404)
  })
})

describe("live valuation", () => {
  it("a new price of a held token pushes the portfolio on console.user (kind echo)", async () => {
    await call("GET", "/api/echo/portfolio") // touches the entity
    const price: Rec = { tx: txHash(105), log: 0, wallet: WHALE2, token: UNI, symbol: "UNI", category: "dex_sell", price: 20, usd: 2_000, block: 510 }
    const [id] = await insertRecords(app, [price])
    await publish(app, "chain.tx", chainMessage(price, id!))
    await waitFor(async () => (await tail(app, "console.user", 50)).some((e) => {
      const p = e.payload as any
      return p.user_id === userId && p.kind === "echo" && p.data.reason === "price" && p.data.portfolio.holdings.some((h: any) => h.price === 20)
    }), 15_000, 100)
  })
})
