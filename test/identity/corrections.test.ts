/**
 * The identity service on a database of its own (real PostgreSQL with DATABASE_URL, else embedded PGlite): what a
 * block's observation stores (identities, evidence, class history), operators' corrections winning over rules and
 * never undone by later blocks, vetoes, labels set and removed, refused corrections, and a fresh service (a restart)
 * answering from the database alone.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WalletIdentity } from "../../server/domains/identity/WalletIdentity"
import { startServices, type TestServices } from "../support/serviceTest"
import { addr, blockOf, deposit, poolSwap, TOKEN_A, WETH } from "./support"

const POOL = addr(0x9001)
const BOT = addr(0xb07)
const BOT_EOA = addr(0xe0a1)
const ROUTER = "0xef1c6e67703c7bd7107eed8303fbe6ec2554bf6b" // Uniswap: Universal Router (old), labelled
const BINANCE_14 = "0x28c6c06298d514db089934071355e5743bf21d60"

/** A block in which BOT sandwiches a user's buy through the Universal Router; the user also pays Binance 14. */
const sandwichBlock = (n: number) => {
  const victim = addr(0xf100 + n)
  return blockOf(n, [
    { from: BOT_EOA, to: BOT, logs: poolSwap({ pool: POOL, payer: BOT, recipient: BOT, tokenIn: WETH, tokenOut: TOKEN_A, amountIn: 10n ** 18n, amountOut: 1000n }) },
    { from: victim, to: ROUTER, value: 10n ** 18n, logs: [deposit(ROUTER, 10n ** 18n), ...poolSwap({ pool: POOL, payer: ROUTER, recipient: victim, tokenIn: WETH, tokenOut: TOKEN_A, amountIn: 10n ** 18n, amountOut: 900n })] },
    { from: BOT_EOA, to: BOT, logs: poolSwap({ pool: POOL, payer: BOT, recipient: BOT, tokenIn: TOKEN_A, tokenOut: WETH, amountIn: 1000n, amountOut: 11n * 10n ** 17n }) },
    { from: BINANCE_14, to: addr(0x5eed), value: 10n ** 17n, logs: [] }
  ])
}

describe("identity service: storage and corrections", () => {
  let services: TestServices<WalletIdentity>
  const run = <A, E>(e: Effect.Effect<A, E, WalletIdentity | SqlClient.SqlClient>) => services.runtime.runPromise(e)
  const identity = <A, E>(f: (s: WalletIdentity) => Effect.Effect<A, E>) => run(Effect.flatMap(WalletIdentity, f))
  /** The same calls through a new instance of the service (empty memory: a restart). */
  const restarted = <A, E>(f: (s: WalletIdentity) => Effect.Effect<A, E>) =>
    run(Effect.flatMap(WalletIdentity, f).pipe(Effect.provide(WalletIdentity.Default)))
  const query = <T extends object>(text: string) =>
    run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<T>(text)).pipe(Effect.map((rows) => [...rows])))
  const observe = (n: number) => identity((s) => { const b = sandwichBlock(n); return s.observe(b.block, b.logs, {}) })

  beforeAll(async () => {
    services = await startServices(WalletIdentity.Default)
  }, 60_000)
  afterAll(async () => {
    await services?.close()
  })

  it("stores what a block shows: identities, rule evidence and the class history", async () => {
    await observe(100)
    expect(await identity((s) => s.classOf(BOT))).toBe("mev_bot")
    const rows = await query<{ address: string; class: string; class_source: string; first_block: number }>(
      `SELECT address, class, class_source, first_block FROM wallet_identity WHERE address IN ('${BOT}', '${BOT_EOA}', '${ROUTER}', '${POOL}') ORDER BY address`)
    expect(rows.map((r) => [r.address, r.class, r.class_source, r.first_block])).toEqual([
      [addr(0xb07), "mev_bot", "rule", 100], [addr(0x9001), "pool", "rule", 100], [addr(0xe0a1), "mev_bot", "rule", 100], [ROUTER, "router", "label_file", 100]
    ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))))
    const evidence = await query<{ rule: string; hits: number; txs: Array<string> }>(`SELECT rule, hits, txs FROM wallet_identity_evidence WHERE address = '${BOT}'`)
    expect(evidence).toEqual([{ rule: "sandwich", hits: 1, txs: [sandwichBlock(100).hashes[0], sandwichBlock(100).hashes[2]] }])
    const history = await identity((s) => s.history(BOT))
    expect(history.map((h) => [h.previous_class, h.class, h.block])).toEqual([[null, "mev_bot", 100]])
  })

  it("lets an operator's class win, and later sandwiches never undo it", async () => {
    const after = await identity((s) => s.correct({ address: BOT.toUpperCase().replace("0X", "0x"), action: "set", field: "class", value: "market_maker", exchange: null, reason: "Acme's hedging contract, confirmed by Acme" }, "ops-anna"))
    expect(after).toMatchObject({ class: "market_maker", classSource: "operator", confidence: 1 })
    await observe(101)
    const view = await identity((s) => s.identityOf(BOT))
    expect(view).toMatchObject({ class: "market_maker", classSource: "operator", firstBlock: 100, lastBlock: 101 })
    expect(view.evidence).toEqual([expect.objectContaining({ rule: "sandwich", hits: 2 })])
    expect(view.reasons[0]).toBe("operator set class market_maker: Acme's hedging contract, confirmed by Acme")
    expect(view.corrections.map((c) => [c.action, c.field, c.value, c.operator])).toEqual([["set", "class", "market_maker", "ops-anna"]])
    const history = await identity((s) => s.history(BOT))
    expect(history.map((h) => h.class)).toEqual(["mev_bot", "market_maker"])
  })

  it("keeps a vetoed class away however strong the rule, and removes or sets labels", async () => {
    await identity((s) => s.correct({ address: BOT_EOA, action: "unset", field: "class", value: "mev_bot", exchange: null, reason: "a test account of ours" }))
    await observe(102)
    expect(await identity((s) => s.classOf(BOT_EOA))).toBe("unknown")
    expect((await identity((s) => s.identityOf(BOT_EOA))).reasons).toContain("operator: not mev_bot: a test account of ours")
    await identity((s) => s.correct({ address: BINANCE_14, action: "unset", field: "label", value: null, exchange: null, reason: "label under review" }))
    expect(await identity((s) => s.identityOf(BINANCE_14))).toMatchObject({ class: "exchange", exchange: "Binance", label: null })
    await identity((s) => s.correct({ address: BINANCE_14, action: "set", field: "label", value: "Binance hot wallet 14", exchange: null, reason: "named by Binance" }))
    expect(await identity((s) => s.identityOf(BINANCE_14))).toMatchObject({ label: "Binance hot wallet 14", labelSource: "operator" })
  })

  it("refuses corrections without a reason, with an unknown class, or on something not an address", async () => {
    const refused = async (c: Parameters<WalletIdentity["correct"]>[0]) =>
      Either.getLeft(await identity((s) => Effect.either(s.correct(c)))).pipe((o) => (o._tag === "Some" ? o.value.message : null))
    expect(await refused({ address: BOT, action: "set", field: "class", value: "whale", exchange: null, reason: "  " })).toBe("a correction needs a reason")
    expect(await refused({ address: BOT, action: "set", field: "class", value: "villain", exchange: null, reason: "x" })).toMatch(/^unknown class villain/)
    expect(await refused({ address: "0x1234", action: "unset", field: "label", value: null, exchange: null, reason: "x" })).toBe("not an address: 0x1234")
    expect(await refused({ address: BOT, action: "set", field: "class", value: "router", exchange: "Binance", reason: "x" })).toBe("an exchange name goes with set class exchange")
    expect((await query<{ n: number }>("SELECT count(*)::int AS n FROM wallet_identity_corrections"))[0]!.n).toBe(4)
  })

  it("answers from the database after a restart: identities, corrections, classes in bulk", async () => {
    expect(await restarted((s) => s.classOf(BOT))).toBe("market_maker")
    const classes = await restarted((s) => s.classesOf([BOT, BOT_EOA, ROUTER, BINANCE_14, addr(0xdead)]))
    expect(Object.fromEntries(classes)).toEqual({ [BOT]: "market_maker", [BOT_EOA]: "unknown", [ROUTER]: "router", [BINANCE_14]: "exchange", [addr(0xdead)]: "unknown" })
    await restarted((s) => { const b = sandwichBlock(103); return s.observe(b.block, b.logs, {}) })
    expect(await restarted((s) => s.identityOf(BOT))).toMatchObject({ class: "market_maker", lastBlock: 103 })
    expect((await restarted((s) => s.identityOf(BOT))).evidence).toEqual([expect.objectContaining({ rule: "sandwich", hits: 4 })])
  })
})
