/**
 * The batched write path of the echo-portfolio actor (issue 31): a read of `echo.cmd` applied in one transaction for
 * all its users. Its guarantees, each tested: a command applied exactly once by `messageId` (twice in a read, again in
 * a later read, under another user's id); a user's commands in stream order; cash never negative with batches and
 * HTTP trades of the same users at once; a read acked only after its commit (a read whose transaction fails stays
 * pending, is redelivered and then applied once). The crash of a process mid-read: test/faults/echo-kill.test.ts.
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
import { api, insertRecords, publish, txHash, UNI, USDC, WETH, WHALE } from "./support"

const START = 10_000
let app: TestApp
let users: Array<number>
let seq = 0

beforeAll(async () => {
  app = await startApp({ env: { ...QUIET_CHAIN, ECHO_START_CASH: String(START) } })
  await insertRecords(app, [
    { tx: txHash(1), log: 0, wallet: WHALE, token: WETH, symbol: "WETH", category: "dex_buy", price: 3000, usd: 30_000, block: 100 },
    { tx: txHash(2), log: 0, wallet: WHALE, token: UNI, symbol: "UNI", category: "dex_buy", price: 10, usd: 100_000, block: 100 }
  ])
  users = []
  for (let i = 0; i < 6; i++) users.push((await createUser(app, { email: `batch${i}@example.com`, tier: "whale" })).id)
})
afterAll(async () => {
  await app?.close()
})

const run = (commands: ReadonlyArray<TradeCommand>) => app.runtime.runPromise(Effect.flatMap(EchoBatch, (b) => b.trades(commands)))
const buy = (userId: number, usd: number, id = `t:${++seq}`): TradeCommand => ({ messageId: id, userId, side: "BUY", token: UNI, usd })
const sell = (userId: number, quantity: number, id = `t:${++seq}`): TradeCommand => ({ messageId: id, userId, side: "SELL", token: UNI, quantity })
const tradesOf = (userId: number) => app.query<{ command_id: string; side: string; quantity: number; usd: number; gas_usd: number }>(
  "SELECT command_id, side, quantity::float8 AS quantity, usd::float8 AS usd, gas_usd::float8 AS gas_usd FROM echo_trades WHERE user_id = $1 ORDER BY id", [userId])
const bookOf = async (userId: number) => {
  const [p] = await app.query<{ cash: number; realized: number; start_cash: number }>("SELECT cash::float8 AS cash, realized::float8 AS realized, start_cash::float8 AS start_cash FROM echo_portfolios WHERE user_id = $1", [userId])
  const hs = await app.query<{ token: string; quantity: number; cost: number }>("SELECT token, quantity::float8 AS quantity, cost::float8 AS cost FROM echo_holdings WHERE user_id = $1", [userId])
  return { ...p!, holdings: hs }
}
const outcome = async (commandId: string) => (await app.query<{ outcome: any }>("SELECT outcome FROM echo_commands WHERE command_id = $1", [commandId]))[0]?.outcome

/** cash ≥ 0, each holding = the sum of its trades, cash + Σ cost = start + realized. */
const expectConsistent = async (userId: number) => {
  const b = await bookOf(userId)
  const ts = await tradesOf(userId)
  expect(b.cash).toBeGreaterThanOrEqual(0)
  const net = ts.reduce((s, t) => s + (t.side === "BUY" ? t.quantity : -t.quantity), 0)
  expect(b.holdings.find((h) => h.token === UNI)?.quantity ?? 0).toBeCloseTo(net, 6)
  expect(b.cash + b.holdings.reduce((s, h) => s + h.cost, 0)).toBeCloseTo(b.start_cash + b.realized, 4)
}

describe("exactly once by messageId", () => {
  it("twice in one read, again in a later read: one trade; another user's id is a conflict, not a trade", async () => {
    const [u, other] = [users[0]!, users[1]!]
    const first = await run([buy(u, 100, "once:a"), buy(u, 100, "once:a"), buy(other, 50)])
    expect(first).toMatchObject({ applied: 2, replayed: 1 })
    const again = await run([buy(u, 100, "once:a"), buy(other, 100, "once:a")])
    expect(again).toMatchObject({ applied: 0, replayed: 1, rejected: 1 })
    expect((await tradesOf(u)).filter((t) => t.command_id === "once:a")).toHaveLength(1)
    expect((await tradesOf(other)).some((t) => t.command_id === "once:a")).toBe(false)
    // a rejection is recorded once and answers the same on redelivery, even after the cash that was missing arrives
    await run([buy(u, 1e9, "once:big")])
    expect((await outcome("once:big")).rejected).toBe("InsufficientCash")
    expect(await run([buy(u, 1e9, "once:big")])).toMatchObject({ applied: 0, replayed: 1 })
    await expectConsistent(u)
  })

  it("an untradable token rejects its commands and the read's other commands still apply", async () => {
    const u = users[2]!
    const r = await run([{ messageId: "stable:1", userId: u, side: "BUY", token: USDC, usd: 10 }, buy(u, 10, "stable:2")])
    expect(r).toMatchObject({ applied: 1, rejected: 1 })
    expect((await outcome("stable:1")).rejected).toBe("NotTradable")
  })
})

describe("a user's commands in order", () => {
  it("applies a read's commands of one user in stream order, users interleaved", async () => {
    const [a, b] = [users[3]!, users[4]!]
    // a: buy then sell all of it (the sell is possible only after the buy); b: sell first (nothing held) then buy.
    await run([buy(a, 1000, "ord:a1"), sell(b, 1, "ord:b1"), sell(a, 1000 / 10.1, "ord:a2"), buy(b, 500, "ord:b2"), buy(a, 200, "ord:a3")])
    const aTrades = (await tradesOf(a)).map((t) => t.command_id)
    expect(aTrades).toEqual(["ord:a1", "ord:a2", "ord:a3"])
    expect((await tradesOf(b)).map((t) => t.command_id)).toEqual(["ord:b2"])
    expect((await outcome("ord:b1")).rejected).toBe("InsufficientHoldings")
    await expectConsistent(a)
    await expectConsistent(b)
  })

  it("through the actor: a user's commands published in order are stored in that order", async () => {
    const u = users[5]!
    const ids = Array.from({ length: 40 }, (_, i) => `seq:${i}`)
    await app.runtime.runPromise(Effect.flatMap(Bus, (bus) => bus.publishMany("echo.cmd", ids.map((id, i) =>
      i % 2 === 0 ? { _tag: "Trade", messageId: id, userId: u, side: "BUY", token: UNI, usd: 100 } : { _tag: "Trade", messageId: id, userId: u, side: "SELL", token: UNI, usd: 90 }))))
    await waitFor(async () => (await tradesOf(u)).length + (await app.query("SELECT 1 FROM echo_commands WHERE command_id LIKE 'seq:%'")).length === ids.length, 15_000, 50)
    // every SELL follows its BUY, so none is rejected, and the ids come in publication order
    expect((await tradesOf(u)).map((t) => t.command_id)).toEqual(ids)
    await expectConsistent(u)
  })
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
      await expectConsistent(u)
      const ts = await tradesOf(u)
      // about START / (700 + gas) buys fit; the rest were rejected, none overdrew
      expect(ts.reduce((s, t) => s + t.usd + t.gas_usd, 0)).toBeLessThanOrEqual(START + 1e-6)
      expect(ts.length).toBeGreaterThan(10)
    }
  })
})

describe("acked only after the commit", () => {
  it("a read waiting on its transaction stays pending (not acked) and unapplied; after the commit it is acked, applied once", async () => {
    const u = users[0]!
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
      expect((await tradesOf(u)).some((t) => t.command_id === "held:1")).toBe(false)
    }
    expect(await pending()).toBe(1)
    await app.runtime.runPromise(Deferred.succeed(release, undefined))
    await holder
    await waitFor(async () => (await pending()) === 0 && (await tradesOf(u)).some((t) => t.command_id === "held:1"), 15_000, 20)
    expect((await tradesOf(u)).filter((t) => t.command_id === "held:1")).toHaveLength(1)
    await expectConsistent(u)
  })
})
