/**
 * The roll-ups stay exact through everything the block listener does to whale_tx: batched inserts, reorg rollbacks
 * (deletes), records moved to another block hash (INSERT … ON CONFLICT DO UPDATE), truncation. After each step the
 * hourly and daily roll-ups equal an aggregate over whale_tx itself (computed here, as a request never would).
 * The backfill's batched path (ChainRepo.insertRecords) stores odd text exactly and counts only the rows it wrote.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ChainRepo } from "../../server/domains/chain/Repo"
import type { WhaleRecord } from "../../server/domains/chain/Types"
import { startServices, type TestServices } from "../support/serviceTest"
import { HOUR, insertTx, TOKENS, W } from "../support/whales"

// A service test: the chain's repository on a migrated database (the roll-ups are its triggers), no app.
let app: TestServices<ChainRepo>
beforeAll(async () => {
  app = await startServices(ChainRepo.Default)
})
afterAll(async () => {
  await app?.close()
})

const FIGURES = `sum(dex_buy_usd)::float8 AS buy, sum(dex_sell_usd)::float8 AS sell, sum(exchange_withdraw_usd)::float8 AS withdraw,
  sum(exchange_deposit_usd)::float8 AS deposit, sum(dex_buys)::int AS buys, sum(dex_sells)::int AS sells,
  sum(exchange_withdraws)::int AS withdraws, sum(exchange_deposits)::int AS deposits`
const DIRECT = `
  SELECT date_trunc('hour', ts AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour, token, wallet,
    coalesce(sum(usd) FILTER (WHERE category = 'dex_buy'), 0)::float8 AS buy, coalesce(sum(usd) FILTER (WHERE category = 'dex_sell'), 0)::float8 AS sell,
    coalesce(sum(usd) FILTER (WHERE category = 'exchange_withdraw'), 0)::float8 AS withdraw,
    coalesce(sum(usd) FILTER (WHERE category = 'exchange_deposit'), 0)::float8 AS deposit,
    (count(*) FILTER (WHERE category = 'dex_buy'))::int AS buys, (count(*) FILTER (WHERE category = 'dex_sell'))::int AS sells,
    (count(*) FILTER (WHERE category = 'exchange_withdraw'))::int AS withdraws, (count(*) FILTER (WHERE category = 'exchange_deposit'))::int AS deposits
  FROM whale_tx GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`

const expectExact = async () => {
  const direct = await app.query(DIRECT)
  const hourly = await app.query(`SELECT hour, token, wallet, ${FIGURES} FROM whale_flow_hourly GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`)
  expect(hourly).toEqual(direct)
  const daily = await app.query(`SELECT day::text AS day, ${FIGURES} FROM whale_flow_daily GROUP BY 1 ORDER BY 1`)
  const directDaily = await app.query(`SELECT (ts AT TIME ZONE 'UTC')::date::text AS day,
      coalesce(sum(usd) FILTER (WHERE category = 'dex_buy'), 0)::float8 AS buy, coalesce(sum(usd) FILTER (WHERE category = 'dex_sell'), 0)::float8 AS sell,
      coalesce(sum(usd) FILTER (WHERE category = 'exchange_withdraw'), 0)::float8 AS withdraw,
      coalesce(sum(usd) FILTER (WHERE category = 'exchange_deposit'), 0)::float8 AS deposit,
      (count(*) FILTER (WHERE category = 'dex_buy'))::int AS buys, (count(*) FILTER (WHERE category = 'dex_sell'))::int AS sells,
      (count(*) FILTER (WHERE category = 'exchange_withdraw'))::int AS withdraws, (count(*) FILTER (WHERE category = 'exchange_deposit'))::int AS deposits
    FROM whale_tx GROUP BY 1 ORDER BY 1`)
  expect(daily).toEqual(directDaily)
  const sources = await app.query(`SELECT day::text AS day, source, records FROM whale_source_daily ORDER BY 1, 2`)
  const directSources = await app.query(`SELECT (ts AT TIME ZONE 'UTC')::date::text AS day, source, count(*)::int AS records
    FROM whale_tx GROUP BY 1, 2 ORDER BY 1, 2`)
  expect(sources).toEqual(directSources)
  return direct.length
}

describe("roll-ups", () => {
  it("are maintained by statement-level triggers only", async () => {
    const triggers = await app.query<{ tgname: string; row_level: boolean }>(
      `SELECT tgname, (tgtype & 1) = 1 AS row_level FROM pg_trigger WHERE tgrelid = 'whale_tx'::regclass AND NOT tgisinternal ORDER BY tgname`)
    expect(triggers.filter((t) => t.tgname.startsWith("whale_tx_rollup"))).toEqual([
      { tgname: "whale_tx_rollup_delete", row_level: false },
      { tgname: "whale_tx_rollup_insert", row_level: false },
      { tgname: "whale_tx_rollup_truncate", row_level: false },
      { tgname: "whale_tx_rollup_update", row_level: false }
    ])
  })

  it("stay exact through batched inserts, reorg deletes, moved records and truncation", async () => {
    const t0 = Math.floor(Date.now() / HOUR) * HOUR - 30 * HOUR
    const batch = Array.from({ length: 60 }, (_, i) => ({
      wallet: [W.W1, W.W2, W.W3][i % 3]!,
      token: (["WETH", "UNI", "PEPE", "USDC"] as const)[i % 4]!,
      category: (["dex_buy", "dex_sell", "exchange_withdraw", "exchange_deposit", "dex_buy"] as const)[i % 5]!,
      usd: i % 7 === 0 ? null : 10.25 * (i + 1),
      at: t0 + i * 37 * 60_000,
      source: i % 2 === 0 ? ("rpc" as const) : ("demo" as const)
    }))
    await insertTx(app, batch)
    expect(await expectExact()).toBeGreaterThan(20)

    // A reorg rolls back the newest blocks.
    const cut = (await app.query<{ b: number }>("SELECT max(block_number) - 3000 AS b FROM whale_tx"))[0]!.b
    const deleted = await app.query("DELETE FROM whale_tx WHERE block_number > $1 RETURNING id", [cut])
    expect(deleted.length).toBeGreaterThan(0)
    await expectExact()

    // The listener moves a record to the new block of the same height, with a new time and price.
    await app.query(`
      INSERT INTO whale_tx (tx_hash, log_index, wallet, token, symbol, category, amount, amount_raw, usd, block_number, block_hash, ts, source)
      SELECT tx_hash, log_index, wallet, token, symbol, 'dex_sell', amount, amount_raw, 99.99, block_number, block_hash || 'x', ts + interval '2 hours', source
      FROM whale_tx ORDER BY id LIMIT 5
      ON CONFLICT (tx_hash, log_index, wallet, token) DO UPDATE SET block_hash = EXCLUDED.block_hash, ts = EXCLUDED.ts, usd = EXCLUDED.usd,
        category = EXCLUDED.category WHERE whale_tx.block_hash <> EXCLUDED.block_hash`)
    await expectExact()

    // Rows whose last record is gone disappear from the roll-ups (no zero rows left behind).
    await app.query("DELETE FROM whale_tx WHERE wallet = $1", [W.W1])
    await expectExact()
    expect(await app.query("SELECT * FROM whale_flow_hourly WHERE wallet = $1", [W.W1])).toEqual([])

    await app.query("TRUNCATE whale_tx")
    expect(await expectExact()).toBe(0)
    expect(await app.query("SELECT * FROM whale_flow_daily")).toEqual([])
  })
})

describe("batched inserts (ChainRepo.insertRecords)", () => {
  const insertRecords = (records: ReadonlyArray<WhaleRecord>) =>
    app.runtime.runPromise(Effect.flatMap(ChainRepo, (repo) => repo.insertRecords(records, "replay")))
  const t0 = Math.floor(Date.now() / HOUR) * HOUR - 5 * HOUR
  const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`
  const record = (i: number, overrides: Partial<WhaleRecord> = {}): WhaleRecord => ({
    txHash: hash(0xbead0000 + i), logIndex: i, block: 18_000_000 + i, blockHash: hash(18_000_000 + i), ts: new Date(t0 + i * 17 * 60_000),
    wallet: [W.W1, W.W2][i % 2]!, token: TOKENS.UNI, symbol: "UNI", decimals: 18, category: i % 3 === 0 ? "dex_sell" : "dex_buy",
    amount: "1.25", amountRaw: "1250000000000000000", usd: i % 4 === 0 ? null : 100.5 + i, priceUsd: 80.4, counterToken: TOKENS.USDC,
    counterSymbol: "USDC", counterAmount: "100.5", venue: "Uniswap", ...overrides
  })

  it("store odd text exactly, skip what is already stored, and the roll-ups count only the rows written", async () => {
    const odd = ['say "hi"', "back\\slash", "a,b {c}", "NULL", "", "ünï ☃"]
    const first = odd.map((symbol, i) => record(i, { symbol, venue: symbol === "" ? null : `${symbol} venue` }))
    expect(await insertRecords([...first, first[0]!])).toBe(first.length)
    const stored = await app.query<{ symbol: string; venue: string | null }>(
      "SELECT symbol, venue FROM whale_tx WHERE source = 'replay' ORDER BY log_index")
    expect(stored).toEqual(first.map((r) => ({ symbol: r.symbol, venue: r.venue })))
    await expectExact()

    // Half already stored (a backfill run again over an overlapping range): only the others are new and counted.
    const second = [...first.slice(3), ...Array.from({ length: 5 }, (_, k) => record(odd.length + k))]
    expect(await insertRecords(second)).toBe(5)
    expect(await insertRecords(second)).toBe(0)
    expect(await app.query("SELECT count(*)::int AS n FROM whale_tx WHERE source = 'replay'")).toEqual([{ n: odd.length + 5 }])
    await expectExact()
  })
})
