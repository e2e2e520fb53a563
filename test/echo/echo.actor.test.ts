/**
 * The echo-portfolio actor (issue 13 §4): commands on `echo.cmd` applied once per id, auto-copy of a followed
 * wallet from a record on `chain.tx`, skips kept as shadow positions, a reorg retraction undoing the copy, the live
 * valuation on `console.user` (kind `echo`) when a held token's price moves (passivation: entities.test.ts). The
 * batched write path through the actor (issue 31): a user's commands stored in stream order, cash never negative
 * with batches and HTTP trades of the same users at once, a read acked only after its commit (a read waiting on its
 * transaction stays pending and unapplied); the batch's own rules on the service alone: echo.batch.test.ts.
 */
import { SqlClient } from "@effect/sql"
import { Deferred, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { EchoBatch, type TradeCommand } from "../../server/domains/echo/Batch"
import { Bus } from "../../server/platform/infra/Bus"
import { createUser, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { QUIET_CHAIN } from "../support/whales"
import { api, buy, chainMessage, expectConsistent, insertRecords, publish, tail, tradesOf, txHash, UNI, WETH, WHALE, WHALE2, type Rec } from "./support"

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

describe("the batched write path through the actor (the service alone: echo.batch.test.ts)", () => {
  const START = 10_000 // ECHO_START_CASH of this app
  let batchUser: number
  const run = (commands: ReadonlyArray<TradeCommand>) => app.runtime.runPromise(Effect.flatMap(EchoBatch, (b) => b.trades(commands)))
  beforeAll(async () => {
    batchUser = (await createUser(app, { email: "batch-actor@example.com", tier: "whale" })).id
  })

  it("through the actor: a user's commands published in order are stored in that order", async () => {
    const u = batchUser
    const ids = Array.from({ length: 40 }, (_, i) => `seq:${i}`)
    await app.runtime.runPromise(Effect.flatMap(Bus, (bus) => bus.publishMany("echo.cmd", ids.map((id, i) =>
      i % 2 === 0 ? { _tag: "Trade", messageId: id, userId: u, side: "BUY", token: UNI, usd: 100 } : { _tag: "Trade", messageId: id, userId: u, side: "SELL", token: UNI, usd: 90 }))))
    await waitFor(async () => (await tradesOf(app, u)).length + (await app.query("SELECT 1 FROM echo_commands WHERE command_id LIKE 'seq:%'")).length === ids.length, 15_000, 50)
    // every SELL follows its BUY, so none is rejected, and the ids come in publication order
    expect((await tradesOf(app, u)).map((t) => t.command_id)).toEqual(ids)
    await expectConsistent(app, u)
  })

  describe("cash never negative", () => {
    it("concurrent batches and HTTP trades of the same users never overdraw", async () => {
      const fresh: Array<number> = []
      for (let i = 0; i < 3; i++) fresh.push((await createUser(app, { email: `race${i}@example.com`, tier: "whale" })).id)
      const http = api(app, (await login(app, "race0@example.com")).token)
      // each user asks for 3 × START in $700 buys, spread over 6 concurrent batches, plus HTTP buys for the first user
      const commands = fresh.flatMap((u) => Array.from({ length: 42 }, () => buy(u, 700)))
      const chunks = Array.from({ length: 6 }, (_, k) => commands.filter((_, i) => i % 6 === k))
      const [, responses] = await Promise.all([
        Promise.all(chunks.map((c) => run(c))),
        Promise.all(Array.from({ length: 12 }, () => http("POST", "/api/echo/trade", { side: "BUY", token: UNI, usd: 700 })))
      ])
      expect(responses.every((r) => r.status === 200 || r.status === 409)).toBe(true)
      for (const u of fresh) {
        await expectConsistent(app, u)
        const ts = await tradesOf(app, u)
        // about START / (700 + gas) buys fit; the rest were rejected, none overdrew
        expect(ts.reduce((s, t) => s + t.usd + t.gas_usd, 0)).toBeLessThanOrEqual(START + 1e-6)
        expect(ts.length).toBeGreaterThan(10)
      }
    })
  })

  describe("acked only after the commit", () => {
    it("a read waiting on its transaction stays pending (not acked) and unapplied; after the commit it is acked, applied once", async () => {
      // the user of the ordered commands above: its portfolio row exists, so the lock below holds the actor's batch
      const u = batchUser
      const pending = () => app.runtime.runPromise(Effect.flatMap(Bus, (bus) => bus.groupInfo("echo.cmd", "echo-portfolio"))).then((i) => i.pending)
      await waitFor(async () => (await pending()) === 0, 10_000, 20)
      // Another writer holds the user's portfolio row: the actor's batch reads the command, then waits inside its transaction.
      const release = await app.runtime.runPromise(Deferred.make<void>())
      const locked = await app.runtime.runPromise(Deferred.make<void>())
      const holder = app.runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(Effect.gen(function* () {
        yield* sql`SELECT 1 FROM echo_portfolios WHERE user_id = ${u} FOR UPDATE`
        yield* Deferred.succeed(locked, undefined)
        yield* Deferred.await(release)
      }))))
      await app.runtime.runPromise(Deferred.await(locked))
      await publish(app, "echo.cmd", { _tag: "Trade", messageId: "held:1", userId: u, side: "BUY", token: UNI, usd: 10 })
      await waitFor(async () => (await pending()) === 1, 10_000, 20)
      if (app.env.DATABASE_URL) {
        // The actor's transaction is inside, waiting for the row: the command was read, is not stored, and is not acked.
        await waitFor(async () => (await app.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).length > 0, 10_000, 20)
        expect((await tradesOf(app, u)).some((t) => t.command_id === "held:1")).toBe(false)
      }
      expect(await pending()).toBe(1)
      await app.runtime.runPromise(Deferred.succeed(release, undefined))
      await holder
      await waitFor(async () => (await pending()) === 0 && (await tradesOf(app, u)).some((t) => t.command_id === "held:1"), 15_000, 20)
      expect((await tradesOf(app, u)).filter((t) => t.command_id === "held:1")).toHaveLength(1)
      await expectConsistent(app, u)
    })
  })
})
