/**
 * The demo history's SQL (migration 0040): its progress row and the demo wallets. The records themselves go
 * through `ChainRepo.insertRecords`, the batched insert path. Database faults are defects here.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { DemoWallet } from "./Wallets"
import { spanned } from "../../../platform/ops/Spans"

export interface HistoryRow {
  readonly seed: number
  readonly days: number
  readonly from_ts: Date
  readonly to_ts: Date
  readonly stored_to: Date
  readonly records: number
  readonly finished_at: Date | null
}

export class DemoHistoryRepo extends Effect.Service<DemoHistoryRepo>()("app/chain/DemoHistoryRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const state = sql<HistoryRow>`
      SELECT seed, days, from_ts, to_ts, stored_to, records::int AS records, finished_at FROM demo_history WHERE id = 1`.pipe(
      Effect.map((rows) => rows[0] ?? null),
      Effect.orDie
    )

    /** Records the window of a new history; a history already begun is kept (returned as it is). */
    const begin = (row: { seed: number; days: number; from: Date; to: Date }) =>
      sql`INSERT INTO demo_history (id, seed, days, from_ts, to_ts, stored_to)
          VALUES (1, ${row.seed}, ${row.days}, ${row.from}, ${row.to}, ${row.from})
          ON CONFLICT (id) DO NOTHING`.pipe(Effect.zipRight(state), Effect.map((r) => r!), Effect.orDie)

    /** Everything before `storedTo` is stored; `records` rows were written by the history so far. */
    const progress = (storedTo: Date, records: number) =>
      sql`UPDATE demo_history SET stored_to = ${storedTo}, records = ${records} WHERE id = 1`.pipe(Effect.asVoid, Effect.orDie)

    const finish = sql`UPDATE demo_history SET finished_at = now() WHERE id = 1 AND finished_at IS NULL`.pipe(Effect.asVoid, Effect.orDie)

    /** The oldest record's time (a history added to a database that already has records ends there). */
    const earliestRecord = sql<{ ts: Date | null }>`SELECT min(ts) AS ts FROM whale_tx`.pipe(
      Effect.map((rows) => rows[0]?.ts ?? null),
      Effect.orDie
    )

    /** Tracks the demo wallets (source 'demo'); wallets already tracked are left as the operator has them. */
    const trackDemoWallets = (demo: ReadonlyArray<DemoWallet>) => {
      return demo.length === 0 ? Effect.succeed(0) : sql`
        INSERT INTO tracked_wallets (address, label, cohort, source)
        SELECT * FROM unnest(${demo.map((w) => w.address)}::text[], ${demo.map((w) => w.label)}::text[],
          ${demo.map((w) => w.cohort)}::text[], ${demo.map(() => "demo")}::text[])
        ON CONFLICT (address) DO NOTHING
        RETURNING address`.pipe(Effect.map((rows) => rows.length), Effect.orDie)
    }

    return spanned("DemoHistoryRepo", { state, begin, progress, finish, earliestRecord, trackDemoWallets } as const)
  })
}) {}
