/**
 * Issue 28, parts 3 and 5, on a database of its own (real PostgreSQL with DATABASE_URL, else embedded PGlite), through
 * the Analytics service without the app: exchange housekeeping reaches no roll-up (analytics and playbook) and no
 * listing; every figure — top tokens, flows, stats, the index and positioning — counts whales only, says what it left
 * out, and counts everything with `all` (`include=bots`); the index shows today's human-vs-bot split; the SQL
 * function `whale_counted` (playbook) leaves out the same classes as the analytics reads.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FIGURE_EXCLUDED_CLASSES, WalletClass } from "../../schema/identity"
import { Analytics, flowsOf, topTokensOf } from "../../server/domains/analytics/Analytics"
import { PicksBatchRepo } from "../../server/domains/picks/BatchRepo"
import { PicksRepo } from "../../server/domains/picks/Repo"
import { startServices, type TestServices } from "../support/serviceTest"
import { TOKENS } from "../support/whales"

/** Ten minutes ago, but never yesterday (UTC): the index and its split are today's, whatever time the test runs at. */
const todayish = () => Math.max(Math.floor(Date.now() / 86_400_000) * 86_400_000, Date.now() - 10 * 60_000)
const WHALE = "0x1111111111111111111111111111111111111111"
const TRADER = "0x2222222222222222222222222222222222222222"
const BOT = "0x6b75d8af000000000000000000000000000000e1"
const ROUTER = "0xef1c6e67703c7bd7107eed8303fbe6ec2554bf6b"
const BINANCE_14 = "0x28c6c06298d514db089934071355e5743bf21d60"

describe("whales only (issue 28 parts 3 and 5)", () => {
  let services: TestServices<Analytics | PicksRepo>
  const run = <A, E>(e: Effect.Effect<A, E, Analytics | PicksRepo | SqlClient.SqlClient>) => services.runtime.runPromise(e)
  const analytics = <A, E>(f: (s: Analytics) => Effect.Effect<A, E>) => run(Effect.flatMap(Analytics, f))
  const query = <T extends object>(text: string, params: ReadonlyArray<unknown> = []) =>
    run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<T>(text, params as Array<unknown>)).pipe(Effect.map((rows) => [...rows])))
  let serial = 0
  const insert = (rows: ReadonlyArray<{ wallet: string; token: keyof typeof TOKENS; category: string; usd: number; venue?: string }>) =>
    query(`INSERT INTO whale_tx (tx_hash, log_index, wallet, token, symbol, category, amount, amount_raw, usd, price_usd, venue,
        block_number, block_hash, ts, source)
      SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::numeric[], $8::numeric[],
        $9::numeric[], $10::numeric[], $11::text[], $12::int8[], $13::text[], $14::timestamptz[], $15::text[])`, [
      rows.map(() => `0xwhales${(++serial).toString(16).padStart(8, "0")}`), rows.map(() => 0), rows.map((r) => r.wallet),
      rows.map((r) => TOKENS[r.token]), rows.map((r) => r.token), rows.map((r) => r.category), rows.map(() => "1"), rows.map(() => "1"),
      rows.map((r) => r.usd), rows.map((r) => r.usd), rows.map((r) => r.venue ?? null), rows.map((_, i) => 100 + serial + i),
      rows.map((_, i) => `0xblock${serial + i}`), rows.map(() => new Date(todayish()).toISOString()), rows.map(() => "rpc")
    ])

  beforeAll(async () => {
    services = await startServices(Layer.mergeAll(Analytics.Default, PicksRepo.Default))
    await query(`INSERT INTO wallet_identity (address, class, class_source, confidence) VALUES
      ('${WHALE}', 'whale', 'seed', 0.9), ('${TRADER}', 'trader', 'rule', 0.5), ('${BOT}', 'mev_bot', 'rule', 0.9),
      ('${ROUTER}', 'router', 'label_file', 0.95), ('${BINANCE_14}', 'exchange', 'label_file', 0.95)`)
    // A whale buys PEPE and deposits UNI at Binance; a trader sells PEPE; a sandwich bot and a router trade PEPE
    // (a lot); Binance 14 moves UNI to its cold wallet (housekeeping) and to Coinbase (cross-exchange).
    await insert([
      { wallet: WHALE, token: "PEPE", category: "dex_buy", usd: 1000 },
      { wallet: WHALE, token: "UNI", category: "exchange_deposit", usd: 300, venue: "Binance" },
      { wallet: TRADER, token: "PEPE", category: "dex_sell", usd: 400 },
      { wallet: BOT, token: "PEPE", category: "dex_buy", usd: 50_000 },
      { wallet: BOT, token: "PEPE", category: "dex_sell", usd: 50_100 },
      { wallet: ROUTER, token: "LINK", category: "dex_buy", usd: 9000 },
      { wallet: BINANCE_14, token: "UNI", category: "exchange_housekeeping", usd: 7_000_000, venue: "Binance" },
      { wallet: BINANCE_14, token: "UNI", category: "exchange_housekeeping", usd: 2_000_000, venue: "Binance → Coinbase" }
    ])
  }, 60_000)
  afterAll(async () => {
    await services?.close()
  })

  it("exchange housekeeping is stored but counted in no roll-up and listed only when asked for", async () => {
    const hourly = await query<{ wallet: string; records: number }>(`SELECT wallet, sum(dex_buys + dex_sells + exchange_withdraws + exchange_deposits)::int AS records,
      sum(exchange_deposit_usd + exchange_withdraw_usd)::float8 AS usd FROM whale_flow_hourly GROUP BY wallet ORDER BY wallet`)
    expect(hourly.map((r) => r.wallet)).not.toContain(BINANCE_14)
    const daily = await query<{ n: number }>(`SELECT count(*)::int AS n FROM whale_flow_daily WHERE wallet = '${BINANCE_14}'`)
    expect(daily[0]!.n).toBe(0)
    const listed = await analytics((a) => a.transactions({ limit: 50 }))
    expect(listed.transactions.map((t) => t.category)).not.toContain("exchange_housekeeping")
    const asked = await analytics((a) => a.transactions({ limit: 50, category: "exchange_housekeeping" }))
    expect(asked.transactions.map((t) => t.venue).sort()).toEqual(["Binance", "Binance → Coinbase"])
  })

  it("the playbook's hourly roll-up counts whales' flows only", async () => {
    const rows = await query<{ buy: number; sell: number; deposit: number; records: number }>(
      `SELECT sum(dex_buy_usd)::float8 AS buy, sum(dex_sell_usd)::float8 AS sell, sum(exchange_deposit_usd)::float8 AS deposit,
        sum(records)::int AS records FROM playbook_flow_hourly`)
    expect(rows[0]).toEqual({ buy: 1000, sell: 400, deposit: 300, records: 3 })
  })

  it("top tokens and flows count whales only and say so; with bots (all) they count everything but housekeeping", async () => {
    const whales = topTokensOf("24H", await analytics((a) => a.tokenWindow("24H")), 10)
    expect(whales.tokens.map((t) => [t.symbol, t.buy_volume_usd, t.sell_volume_usd, t.whales])).toEqual([["PEPE", 1000, 400, 2]])
    expect(whales.excludes).toMatchObject({ classes: [...FIGURE_EXCLUDED_CLASSES], exchange_housekeeping: true, bots_included: false })
    const all = topTokensOf("24H", await analytics((a) => a.tokenWindow("24H", "all")), 10, "all")
    expect(all.tokens.map((t) => [t.symbol, t.buy_volume_usd, t.sell_volume_usd])).toEqual([["PEPE", 51_000, 50_500], ["LINK", 9000, 0]])
    expect(all.excludes).toMatchObject({ classes: [], exchange_housekeeping: true, bots_included: true })
    const flows = flowsOf("24H", await analytics((a) => a.tokenWindow("24H")), 10)
    expect(flows.tokens.map((t) => [t.symbol, t.exchange_deposit_usd, t.exchange_withdraw_usd])).toEqual([["PEPE", 0, 0], ["UNI", 300, 0]])
    const flowsAll = flowsOf("24H", await analytics((a) => a.tokenWindow("24H", "all")), 10, undefined, "all")
    expect(flowsAll.tokens.find((t) => t.symbol === "UNI")).toMatchObject({ exchange_deposit_usd: 300, exchange_withdraw_usd: 0, trades: 1 })
  })

  it("flows say how much exchange housekeeping they left out over the same window, with bots too, per token asked for", async () => {
    const kept = await analytics((a) => a.housekeeping("24H"))
    const whales = flowsOf("24H", await analytics((a) => a.tokenWindow("24H")), 10, undefined, "whales", kept)
    expect(whales.excluded).toEqual({ exchange_housekeeping: { count: 2, usd: 9_000_000 } })
    const all = flowsOf("24H", await analytics((a) => a.tokenWindow("24H", "all")), 10, undefined, "all", kept)
    expect(all.excluded).toEqual(whales.excluded)
    // Of one token: UNI's housekeeping; none of PEPE's.
    expect(flowsOf("24H", [], 10, new Set([TOKENS.UNI]), "whales", kept).excluded.exchange_housekeeping).toEqual({ count: 2, usd: 9_000_000 })
    expect(flowsOf("24H", [], 10, new Set([TOKENS.PEPE]), "whales", kept).excluded.exchange_housekeeping).toEqual({ count: 0, usd: 0 })
    // The window is the timeframe's: minutes-old records are in the last hour; two days old, only in 7D.
    expect((await analytics((a) => a.housekeeping("1H"))).reduce((n, r) => n + r.records, 0)).toBe(2)
    await query(`UPDATE whale_tx SET ts = now() - interval '2 days' WHERE category = 'exchange_housekeeping'`)
    expect(await analytics((a) => a.housekeeping("24H"))).toEqual([])
    expect((await analytics((a) => a.housekeeping("7D"))).map((r) => [r.records, r.usd])).toEqual([[2, 9_000_000]])
    await query(`UPDATE whale_tx SET ts = $1 WHERE category = 'exchange_housekeeping'`, [new Date(todayish()).toISOString()])
  })

  it("stats count whales only unless asked", async () => {
    const whales = await analytics((a) => a.stats())
    expect([whales.buy_volume_24h_usd, whales.sell_volume_24h_usd, whales.transactions_24h]).toEqual([1000, 400, 3])
    const all = await analytics((a) => a.stats("all"))
    expect([all.buy_volume_24h_usd, all.sell_volume_24h_usd, all.transactions_24h]).toEqual([60_000, 50_500, 6])
  })

  it("the index counts whales only and shows today's human-vs-bot split", async () => {
    const index = await analytics((a) => a.whaleIndex())
    expect(index.split).toEqual({ human_volume_usd: 1400, bot_volume_usd: 109_100, bot_share: 0.9873, human_wallets: 2, bot_wallets: 2 })
    expect(index.excludes?.bots_included).toBe(false)
    const flow = index.components.find((c) => c.raw !== null)
    expect(flow).toBeDefined()
    const all = await analytics((a) => a.whaleIndex("all"))
    expect(all.split).toEqual(index.split)
    expect(all.excludes?.bots_included).toBe(true)
    // The bot's and the router's buying tips the index with bots; whales alone bought 1000 and sold 400.
    expect(all.components).not.toEqual(index.components)
  })

  it("positioning leaves the bots' wallets out", async () => {
    const whales = await analytics((a) => a.positioning())
    const all = await analytics((a) => a.positioning("all"))
    const pepe = (p: typeof whales) => p.assets.find((x) => x.symbol === "PEPE")?.net_flow_7d_usd
    expect(pepe(whales)).toBe(600)
    expect(pepe(all)).toBe(500)
    expect(whales.excludes?.bots_included).toBe(false)
  })

  it("picks see whales' trades only: a bot buying with the whales never counts as a buyer", async () => {
    const at = Date.now()
    const wallets = [WHALE, TRADER, BOT, ROUTER]
    await run(Effect.flatMap(PicksBatchRepo, (r) => r.insertRecords(wallets.map((wallet, i) => ({
      txHash: `0xpick${i}`, logIndex: 0, wallet, token: TOKENS.PEPE, symbol: "PEPE", category: "dex_buy" as const, amount: 1, usd: 1000, price: 1, ts: at - 1000 * i, demo: false
    })))).pipe(Effect.provide(PicksBatchRepo.Default)))
    const trades = await run(Effect.flatMap(PicksRepo, (r) => r.windowTrades(TOKENS.PEPE, at - 3_600_000, at)))
    expect(trades.map((t) => t.wallet).sort()).toEqual([WHALE, TRADER].sort())
    // The batched read (the picks-grader's path): stored trades and the read's own wallets, the same rule.
    const batched = await run(Effect.flatMap(PicksBatchRepo, (r) => r.windowTrades([TOKENS.PEPE], at - 3_600_000, at)).pipe(Effect.provide(PicksBatchRepo.Default)))
    expect(batched.map((t) => t.wallet).sort()).toEqual([WHALE, TRADER].sort())
    const counted = await run(Effect.flatMap(PicksBatchRepo, (r) => r.countedWallets(wallets)).pipe(Effect.provide(PicksBatchRepo.Default)))
    expect([...counted].sort()).toEqual([WHALE, TRADER].sort())
  })

  it("whale_counted (the playbook's test) leaves out exactly FIGURE_EXCLUDED_CLASSES", async () => {
    const classes = WalletClass.options
    await query(`INSERT INTO wallet_identity (address, class, confidence)
      SELECT '0xc1a55' || lpad(i::text, 35, '0'), c, 0.5 FROM unnest($1::text[]) WITH ORDINALITY AS u(c, i)`, [classes])
    const rows = await query<{ class: string; counted: boolean }>(
      `SELECT class, whale_counted(address) AS counted FROM wallet_identity WHERE address LIKE '0xc1a55%' ORDER BY class`)
    expect(rows.filter((r) => !r.counted).map((r) => r.class).sort()).toEqual([...FIGURE_EXCLUDED_CLASSES].sort())
  })
})
