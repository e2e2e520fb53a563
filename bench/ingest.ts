/**
 * `npm run bench:ingest`: sustained records/s into whale_tx, in one run, through
 *   - the batched path the listener and backfill use (`ChainRepo.insertRecords`: one INSERT … SELECT FROM unnest
 *     per batch), and
 *   - one-row INSERTs of the same records (same columns, same ON CONFLICT): with the same transaction per batch as
 *     the batched path, and each committed on its own (the naive loop),
 * then prints the rates, the ratios and whether the targets are met. The paths take turns a second at a time (same
 * table sizes, same disturbances from the rest of the machine); only the write calls are timed. Uses DATABASE_URL (a
 * throw-away database created beside it and dropped after), else the embedded PostgreSQL (in memory). Whatever
 * triggers the migrations put on whale_tx run in every path (BENCH_TRIGGERS=off measures storage alone). Times are
 * never asserted. BENCH_SECONDS (per path, default 5), BENCH_BATCH (records per batch, default 1000: the backfill's).
 */
import { throwawayDatabase } from "./support"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Effect, Layer, Logger, LogLevel, ManagedRuntime } from "effect"
import { ChainRepo } from "../server/domains/chain/Repo"
import type { WhaleRecord } from "../server/domains/chain/Types"
import { AppConfig } from "../server/platform/Config"
import { DbInfo, SqlLive } from "../server/platform/infra/Sql"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const BATCH = Number(process.env.BENCH_BATCH ?? 1000)

// A database of its own: never the one DATABASE_URL names.
const db = await throwawayDatabase("ingest")
const databaseUrl = db.databaseUrl
const env = { ...db.env, DB_POOL_SIZE: "2" }
const config = AppConfig.Default.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env) as Array<[string, string]>)))))
const runtime = ManagedRuntime.make(
  ChainRepo.Default.pipe(Layer.provideMerge(SqlLive()), Layer.provideMerge(config), Layer.provideMerge(Logger.minimumLogLevel(LogLevel.Warning)))
)

// Synthetic records shaped like real ones: 2,000 wallets, 100 tokens, a block every 20 records.
let serial = 0
const hex = (n: number, width: number) => `0x${n.toString(16).padStart(width, "0")}`
const CATEGORIES = ["dex_buy", "dex_sell", "exchange_deposit", "exchange_withdraw"] as const
const nextBatch = (): Array<WhaleRecord> =>
  Array.from({ length: BATCH }, () => {
    const i = serial++
    const block = 20_000_000 + Math.floor(i / 20)
    const swap = i % 4 < 2
    const amount = ((i * 7919) % 1_000_000) / 100 + 1
    return {
      txHash: hex(i, 64), logIndex: i % 300, block, blockHash: hex(block, 64), ts: new Date(1_717_200_000_000 + block * 12_000),
      wallet: hex(i % 2_000, 40), token: hex(1_000_000 + (i % 100), 40), symbol: `TK${i % 100}`, decimals: 18,
      category: CATEGORIES[i % 4]!, amount: amount.toFixed(6), amountRaw: `${Math.round(amount * 1e6)}000000000000`,
      usd: amount * 3.1, priceUsd: 3.1, counterToken: swap ? hex(2, 40) : null, counterSymbol: swap ? "WETH" : null,
      counterAmount: swap ? (amount / 1000).toFixed(9) : null, venue: swap ? "Uniswap" : "Binance"
    }
  })

const batched = (records: ReadonlyArray<WhaleRecord>) =>
  Effect.flatMap(ChainRepo, (repo) => repo.insertRecords(records, "demo"))

const insertOne = (r: WhaleRecord) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
    INSERT INTO whale_tx (tx_hash, log_index, wallet, token, symbol, decimals, category, amount, amount_raw, usd, price_usd,
      counter_token, counter_symbol, counter_amount, venue, block_number, block_hash, ts, source)
    VALUES (${r.txHash}, ${r.logIndex}, ${r.wallet}, ${r.token}, ${r.symbol}, ${r.decimals}, ${r.category}, ${r.amount},
      ${r.amountRaw}, ${r.usd}, ${r.priceUsd}, ${r.counterToken}, ${r.counterSymbol}, ${r.counterAmount}, ${r.venue},
      ${r.block}, ${r.blockHash}, ${r.ts}, 'demo')
    ON CONFLICT (tx_hash, log_index, wallet, token) DO NOTHING`)

/** One INSERT per record, the batch in one transaction (the same commits as the batched path). */
const rowByRow = (records: ReadonlyArray<WhaleRecord>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(Effect.forEach(records, insertOne, { discard: true }))).pipe(Effect.orDie)

/** One INSERT per record, each its own transaction (the naive loop). */
const rowByRowCommitted = (records: ReadonlyArray<WhaleRecord>) => Effect.forEach(records, insertOne, { discard: true }).pipe(Effect.orDie)

/** Records written by one path and the time spent in its write calls. */
interface Tally { records: number; ms: number }

/**
 * Adds about `seconds` of fresh batches through `insert` to `tally`. Only the write calls are timed: making up the
 * synthetic records (the same for every path) is not ingestion.
 */
const measure = async (insert: (records: ReadonlyArray<WhaleRecord>) => Effect.Effect<unknown, never, any>, tally: Tally, seconds: number) => {
  const until = tally.ms + seconds * 1000
  while (tally.ms < until) {
    const batch = nextBatch()
    const started = performance.now()
    await runtime.runPromise(insert(batch))
    tally.ms += performance.now() - started
    tally.records += BATCH
  }
}
const perSecond = (t: Tally) => t.records / (t.ms / 1000)

/** The user triggers on whale_tx (the analytics roll-ups); BENCH_TRIGGERS=off disables them in the throw-away database. */
const triggers = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.gen(function* () {
    if (process.env.BENCH_TRIGGERS === "off") yield* sql`ALTER TABLE whale_tx DISABLE TRIGGER USER`
    const rows = yield* sql<{ name: string }>`
      SELECT tgname AS name FROM pg_trigger WHERE tgrelid = 'whale_tx'::regclass AND NOT tgisinternal AND tgenabled <> 'D'`
    return rows.map((r) => r.name)
  })).pipe(Effect.orDie)

try {
  const kind = (await runtime.runPromise(DbInfo)).kind
  const active = await runtime.runPromise(triggers)
  console.error(`whale_tx ingest on ${kind === "postgres" ? "PostgreSQL (DATABASE_URL)" : "embedded PostgreSQL (PGlite)"}, ` +
    `triggers on whale_tx: ${active.length === 0 ? "none" : active.join(", ")}; warming up, then ${SECONDS}s per path ` +
    `(taking turns), ${BATCH} records per batch, one transaction per batch`)
  await measure(batched, { records: 0, ms: 0 }, 1)
  await measure(rowByRow, { records: 0, ms: 0 }, 1)
  // The paths take turns (a second each per round), so that they see the same table sizes and the same load from
  // whatever else runs on the machine.
  const paths = [batched, rowByRow, rowByRowCommitted].map((insert) => ({ insert, tally: { records: 0, ms: 0 } }))
  const rounds = Math.max(1, Math.round(SECONDS))
  for (let round = 0; round < rounds; round++) {
    for (const path of paths) await measure(path.insert, path.tally, SECONDS / rounds)
  }
  const [fast, slow, slowest] = paths.map((p) => perSecond(p.tally)) as [number, number, number]
  const stored = await runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM whale_tx`))
  const rate = (x: number) => `${Math.round(x).toLocaleString("en-US").padStart(8)} records/s`
  const ratio = (x: number) => `${(fast / x).toFixed(1)}x`.padStart(7)
  console.log(`batched: 1 INSERT … SELECT FROM unnest per batch                 ${rate(fast)}`)
  console.log(`row by row: 1 INSERT per record, 1 transaction per batch        ${rate(slow)}   batched/this ${ratio(slow)}`)
  console.log(`row by row: 1 INSERT per record, each committed                 ${rate(slowest)}   batched/this ${ratio(slowest)}`)
  const verdict = (ok: boolean) => (ok ? "met" : "NOT met")
  // The target: ≥ 10× one-row INSERTs, i.e. the naive row-by-row loop (each INSERT its own statement and
  // commit). The one-row INSERTs inside the batch's transaction are a stricter baseline, printed beside it.
  console.log(`targets: ≥ 20,000 records/s batched (${verdict(fast >= 20_000)}); ≥ 10x row by row, each committed ` +
    `(${verdict(fast >= 10 * slowest)}); stricter, one-row INSERTs in the batch's transaction: ${ratio(slow).trim()} ` +
    `(${stored[0]!.n.toLocaleString("en-US")} rows written)`)
} finally {
  await runtime.dispose()
  await db.drop()
}
