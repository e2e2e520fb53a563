/**
 * `npm run bench:demo`: the demo history a first start stores (DEMO_HISTORY_DAYS, default 120), timed in its two
 * parts — generation alone (pure, in memory) and generation + storage through the batched insert path into a fresh
 * database with every migration and roll-up trigger — and compared with the budget of the issue (60 s on the
 * embedded PostgreSQL). Uses DATABASE_URL (a throw-away database beside it, dropped after) or else the embedded
 * PGlite (in memory, as `npm start` without DATABASE_URL). The baseline printed beside it is the batched insert of
 * the same records measured in the same run without generation (records prepared first). Times are never asserted.
 */
import { throwawayDatabase } from "./support"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Effect, Layer, Logger, LogLevel, ManagedRuntime } from "effect"
import { DemoHistoryRepo } from "../server/domains/chain/demo/HistoryRepo"
import { DEFAULT_CLOCK } from "../server/domains/chain/demo/History"
import { demoWorld, writeDemoHistory } from "../server/domains/chain/demo/Writer"
import { DATA_DIR, loadReference } from "../server/domains/chain/Reference"
import { ChainRepo } from "../server/domains/chain/Repo"
import type { WhaleRecord } from "../server/domains/chain/Types"
import { AppConfig } from "../server/platform/Config"
import { DbInfo, SqlLive } from "../server/platform/infra/Sql"

const DAYS = Number(process.env.DEMO_HISTORY_DAYS ?? 120)
const SEED = Number(process.env.DEMO_SEED ?? 1)
const BUDGET_S = 60

// A database of its own: never the one DATABASE_URL names.
const db = await throwawayDatabase("demo")
const databaseUrl = db.databaseUrl
const env = { ...db.env, DB_POOL_SIZE: "2" }
const config = AppConfig.Default.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env) as Array<[string, string]>)))))
const runtime = ManagedRuntime.make(
  Layer.mergeAll(ChainRepo.Default, DemoHistoryRepo.Default).pipe(
    Layer.provideMerge(SqlLive()), Layer.provideMerge(config), Layer.provideMerge(Logger.minimumLogLevel(LogLevel.Warning))
  )
)

const reference = loadReference()
const settings = { seed: SEED, days: DAYS, clock: DEFAULT_CLOCK, listenerBlocks: 300, reference, dataDir: DATA_DIR }
const seconds = (ms: number) => (ms / 1000).toFixed(1)
try {
  const kind = (await runtime.runPromise(DbInfo)).kind
  console.log(`bench:demo — ${DAYS} days of demo history (seed ${SEED}) into ${kind === "embedded" ? "the embedded PostgreSQL (PGlite)" : "PostgreSQL"}`)

  // 1. Generation alone.
  const g0 = performance.now()
  const world = demoWorld(settings)
  const to = Date.now()
  let generated = 0
  for (const hour of world.history.hours(to - DAYS * 86_400_000, to)) generated += hour.length
  const generation = performance.now() - g0
  console.log(`generation:            ${seconds(generation)} s for ${generated.toLocaleString("en-US")} records (${Math.round(generated / (generation / 1000)).toLocaleString("en-US")} rec/s), ${world.wallets.length} wallets, calendar ${world.calendar.origin}`)

  // 2. Generation + storage, as the demo-history actor does it.
  const s0 = performance.now()
  const result = await runtime.runPromise(writeDemoHistory(settings, () => Effect.void))
  const total = performance.now() - s0
  const stored = result?.records ?? 0
  console.log(`generation + storage:  ${seconds(total)} s for ${stored.toLocaleString("en-US")} records (${Math.round(stored / (total / 1000)).toLocaleString("en-US")} rec/s)`)

  // Baseline: the batched insert alone of as many records (200 days earlier, prepared first), into the same table.
  const records: Array<WhaleRecord> = []
  for (const hour of world.history.hours(to - DAYS * 86_400_000 - 200 * 86_400_000, to - 200 * 86_400_000)) records.push(...hour)
  const b0 = performance.now()
  await runtime.runPromise(Effect.gen(function* () {
    const repo = yield* ChainRepo
    for (let i = 0; i < records.length; i += 4_000) yield* repo.insertRecords(records.slice(i, i + 4_000), "demo")
  }))
  const insertOnly = performance.now() - b0
  console.log(`baseline, insert only: ${seconds(insertOnly)} s for ${records.length.toLocaleString("en-US")} records (${Math.round(records.length / (insertOnly / 1000)).toLocaleString("en-US")} rec/s)`)
  const rows = await runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM whale_tx`))
  console.log(`rows in whale_tx: ${rows[0]!.n.toLocaleString("en-US")}`)
  console.log(`first start budget: ${seconds(total)} s of ${BUDGET_S} s (${(total / 1000 / BUDGET_S).toFixed(2)}× the budget) — ${total / 1000 <= BUDGET_S ? "met" : "NOT met"}; storage vs insert alone: ${(total / insertOnly).toFixed(2)}×`)
} finally {
  await runtime.dispose()
  await db.drop()
}
