/**
 * Whale discovery's SQL (migration 0140): the candidates' queue. Database faults are defects (the adapter boundary).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { arrayLiteral } from "../../platform/infra/PgArray"
import { spanned } from "../../platform/ops/Spans"

export type CandidateStatus = "pending" | "joined" | "below" | "rejected" | "left"
export type Cohort = "mega" | "large" | "mid"

export interface Holding {
  readonly symbol: string
  readonly units: number
  readonly usd: number | null
}

export interface CandidateRow {
  readonly address: string
  readonly status: CandidateStatus
  readonly move_verb: string
  readonly move_usd: number
  readonly move_symbol: string
  readonly move_block: number
  readonly move_tx: string
  readonly holdings_usd: number | null
  readonly holdings: ReadonlyArray<Holding>
  readonly cohort: Cohort | null
  readonly reason: string
  readonly note: string | null
  readonly measured_at: Date | null
  readonly last_active_at: Date
  readonly last_block: number
  readonly first_seen_at: Date
  readonly decided_at: Date | null
  readonly decided_by: string | null
}

export type CandidateWrite = Omit<CandidateRow, "first_seen_at" | "decided_at" | "decided_by"> & { readonly decided_by?: string | null }

const COLUMNS = `address, status, move_verb, move_usd, move_symbol, move_block::int8 AS move_block, move_tx, holdings_usd, holdings,
  cohort, reason, note, measured_at, last_active_at, last_block::int8 AS last_block, first_seen_at, decided_at, decided_by`

export class DiscoveryRepo extends Effect.Service<DiscoveryRepo>()("app/identity/DiscoveryRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(COLUMNS)
    const fix = (rows: ReadonlyArray<CandidateRow>): Array<CandidateRow> =>
      rows.map((r) => ({ ...r, move_block: Number(r.move_block), last_block: Number(r.last_block),
        holdings: typeof r.holdings === "string" ? JSON.parse(r.holdings) : r.holdings }))
    return spanned("DiscoveryRepo", {
      /** The candidates among these addresses. */
      byAddress: (addresses: ReadonlyArray<string>) =>
        addresses.length === 0 ? Effect.succeed([] as Array<CandidateRow>) :
          sql<CandidateRow>`SELECT ${cols} FROM whale_candidates WHERE address = ANY (${arrayLiteral(addresses, (a) => a)}::text[])`.pipe(
            Effect.map(fix), Effect.orDie),

      /** The queue: by status (all when null), largest move first. */
      list: (status: CandidateStatus | null, limit: number) =>
        (status === null
          ? sql<CandidateRow>`SELECT ${cols} FROM whale_candidates ORDER BY status = 'pending' DESC, move_usd DESC, address LIMIT ${limit}`
          : sql<CandidateRow>`SELECT ${cols} FROM whale_candidates WHERE status = ${status} ORDER BY move_usd DESC, address LIMIT ${limit}`).pipe(Effect.map(fix), Effect.orDie),

      /** Joined and pending candidates measured before `before` (due for a new measure). */
      dueForMeasure: (before: Date, limit: number) =>
        sql<CandidateRow>`SELECT ${cols} FROM whale_candidates WHERE status IN ('joined', 'pending')
          AND (measured_at IS NULL OR measured_at < ${before}) ORDER BY measured_at NULLS FIRST LIMIT ${limit}`.pipe(Effect.map(fix), Effect.orDie),

      /** Joined candidates with no activity since `before`. */
      idleSince: (before: Date) =>
        sql<CandidateRow>`SELECT ${cols} FROM whale_candidates WHERE status = 'joined' AND last_active_at < ${before} ORDER BY address`
          .pipe(Effect.map(fix), Effect.orDie),

      /** Pending candidates large enough to join, largest first. */
      waitingToJoin: (minHoldingsUsd: number, limit: number) =>
        sql<CandidateRow>`SELECT ${cols} FROM whale_candidates WHERE status = 'pending' AND holdings_usd >= ${minHoldingsUsd}
          ORDER BY holdings_usd DESC, address LIMIT ${limit}`.pipe(Effect.map(fix), Effect.orDie),

      upsert: (c: CandidateWrite) =>
        sql`INSERT INTO whale_candidates (address, status, move_verb, move_usd, move_symbol, move_block, move_tx, holdings_usd, holdings,
            cohort, reason, note, measured_at, last_active_at, last_block, decided_by, decided_at)
          VALUES (${c.address}, ${c.status}, ${c.move_verb}, ${c.move_usd}, ${c.move_symbol}, ${c.move_block}, ${c.move_tx}, ${c.holdings_usd},
            ${JSON.stringify(c.holdings)}::jsonb, ${c.cohort}, ${c.reason}, ${c.note}, ${c.measured_at}, ${c.last_active_at}, ${c.last_block},
            ${c.decided_by ?? null}, ${c.decided_by == null ? null : new Date()})
          ON CONFLICT (address) DO UPDATE SET status = EXCLUDED.status, move_verb = EXCLUDED.move_verb, move_usd = EXCLUDED.move_usd,
            move_symbol = EXCLUDED.move_symbol, move_block = EXCLUDED.move_block, move_tx = EXCLUDED.move_tx,
            holdings_usd = EXCLUDED.holdings_usd, holdings = EXCLUDED.holdings, cohort = EXCLUDED.cohort, reason = EXCLUDED.reason,
            note = EXCLUDED.note, measured_at = EXCLUDED.measured_at, last_active_at = GREATEST(whale_candidates.last_active_at, EXCLUDED.last_active_at),
            last_block = GREATEST(whale_candidates.last_block, EXCLUDED.last_block),
            decided_by = coalesce(EXCLUDED.decided_by, whale_candidates.decided_by),
            decided_at = coalesce(EXCLUDED.decided_at, whale_candidates.decided_at)`.pipe(Effect.asVoid, Effect.orDie),

      /** Joined wallets seen active in a block (one statement for the block's participants). */
      touch: (addresses: ReadonlyArray<string>, at: Date, block: number) =>
        addresses.length === 0 ? Effect.succeed(0) :
          sql`UPDATE whale_candidates SET last_active_at = GREATEST(last_active_at, ${at}), last_block = GREATEST(last_block, ${block})
            WHERE status = 'joined' AND address = ANY (${arrayLiteral(addresses, (a) => a)}::text[]) RETURNING address`.pipe(
            Effect.map((rows) => rows.length), Effect.orDie)
    } as const)
  })
}) {}
