/**
 * The batched write path of the echo-portfolio actor (issue 31), on the service alone (EchoBatch, no app): a read of
 * `echo.cmd` applied in one transaction for all its users. A command applied exactly once by `messageId` (twice in a
 * read, again in a later read, under another user's id); a user's commands in stream order. Through the actor — the
 * stream order kept, cash never negative with batches and HTTP trades at once, a read acked only after its commit —
 * in test/echo/echo.actor.test.ts; the crash of a process mid-read: test/faults/echo-kill.test.ts.
 */
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { EchoBatch, type TradeCommand } from "../../server/domains/echo/Batch"
import { EchoBook } from "../../server/domains/echo/Book"
import { EchoConfig } from "../../server/domains/echo/Config"
import { createUser } from "../support/auth"
import { ChainReads } from "../support/layers"
import { startServices, type TestServices } from "../support/serviceTest"
import { buy, expectConsistent, insertRecords, outcome, sell, tradesOf, txHash, UNI, USDC, WETH, WHALE } from "./support"

const START = 10_000
let app: TestServices<EchoBatch | EchoBook | EchoConfig | Layer.Layer.Success<typeof ChainReads>>
let users: Array<number>

beforeAll(async () => {
  // A service test: the batch, the book and their settings on the platform, the chain's reads (prices) beside them.
  app = await startServices(EchoBatch.Default.pipe(Layer.provideMerge(EchoBook.Default), Layer.provideMerge(EchoConfig.Default), Layer.provideMerge(ChainReads)), { env: { ECHO_START_CASH: String(START) } })
  await insertRecords(app, [
    { tx: txHash(1), log: 0, wallet: WHALE, token: WETH, symbol: "WETH", category: "dex_buy", price: 3000, usd: 30_000, block: 100 },
    { tx: txHash(2), log: 0, wallet: WHALE, token: UNI, symbol: "UNI", category: "dex_buy", price: 10, usd: 100_000, block: 100 }
  ])
  users = []
  for (let i = 0; i < 5; i++) users.push((await createUser(app, { email: `batch${i}@example.com`, tier: "whale" })).id)
})
afterAll(async () => {
  await app?.close()
})

const run = (commands: ReadonlyArray<TradeCommand>) => app.runtime.runPromise(Effect.flatMap(EchoBatch, (b) => b.trades(commands)))

describe("exactly once by messageId", () => {
  it("twice in one read, again in a later read: one trade; another user's id is a conflict, not a trade", async () => {
    const [u, other] = [users[0]!, users[1]!]
    const first = await run([buy(u, 100, "once:a"), buy(u, 100, "once:a"), buy(other, 50)])
    expect(first).toMatchObject({ applied: 2, replayed: 1 })
    const again = await run([buy(u, 100, "once:a"), buy(other, 100, "once:a")])
    expect(again).toMatchObject({ applied: 0, replayed: 1, rejected: 1 })
    expect((await tradesOf(app, u)).filter((t) => t.command_id === "once:a")).toHaveLength(1)
    expect((await tradesOf(app, other)).some((t) => t.command_id === "once:a")).toBe(false)
    // a rejection is recorded once and answers the same on redelivery, even after the cash that was missing arrives
    await run([buy(u, 1e9, "once:big")])
    expect((await outcome(app, "once:big")).rejected).toBe("InsufficientCash")
    expect(await run([buy(u, 1e9, "once:big")])).toMatchObject({ applied: 0, replayed: 1 })
    await expectConsistent(app, u)
  })

  it("an untradable token rejects its commands and the read's other commands still apply", async () => {
    const u = users[2]!
    const r = await run([{ messageId: "stable:1", userId: u, side: "BUY", token: USDC, usd: 10 }, buy(u, 10, "stable:2")])
    expect(r).toMatchObject({ applied: 1, rejected: 1 })
    expect((await outcome(app, "stable:1")).rejected).toBe("NotTradable")
  })
})

describe("a user's commands in order", () => {
  it("applies a read's commands of one user in stream order, users interleaved", async () => {
    const [a, b] = [users[3]!, users[4]!]
    // a: buy then sell all of it (the sell is possible only after the buy); b: sell first (nothing held) then buy.
    await run([buy(a, 1000, "ord:a1"), sell(b, 1, "ord:b1"), sell(a, 1000 / 10.1, "ord:a2"), buy(b, 500, "ord:b2"), buy(a, 200, "ord:a3")])
    const aTrades = (await tradesOf(app, a)).map((t) => t.command_id)
    expect(aTrades).toEqual(["ord:a1", "ord:a2", "ord:a3"])
    expect((await tradesOf(app, b)).map((t) => t.command_id)).toEqual(["ord:b2"])
    expect((await outcome(app, "ord:b1")).rejected).toBe("InsufficientHoldings")
    await expectConsistent(app, a)
    await expectConsistent(app, b)
  })
})
