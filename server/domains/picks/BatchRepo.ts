/**
 * The picks domain's batched SQL: what one mailbox read of `chain.tx` needs, in a handful of statements instead of a
 * few per record (Ingest.ts). Same tables as Repo.ts (migration 0080); writes are `INSERT … SELECT FROM unnest(…)`
 * with one array parameter per column, reads take every token of the read at once. Database faults are defects.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { arrayLiteral } from "../../platform/infra/PgArray"
import type { RecordRow } from "./Repo"
import type { WindowTrade } from "./Rules"

/** A DEX trade of the flagging window with its record's key (`recordKey`) and sort key, as `windowTrades` orders them. */
export interface KeyedTrade extends WindowTrade {
  readonly token: string
  readonly key: string
  readonly txHash: string
  readonly logIndex: number
}

/** A pick that a sell or a deposit may be an exit of. */
export interface ExitPick {
  readonly id: number
  readonly token: string
  readonly flaggedAt: number
  readonly entryPrice: number | null
  readonly flaggers: ReadonlyArray<string>
}

/** One (token, time) of a read's priced records: the highest and lowest price seen then. */
export interface PriceMark {
  readonly token: string
  readonly ts: number
  readonly high: number
  readonly low: number
}

const iso = (ms: number) => new Date(ms).toISOString()
const ROWS_PER_STATEMENT = 5000

export class PicksBatchRepo extends Effect.Service<PicksBatchRepo>()("app/picks/PicksBatchRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const d = (ms: number) => new Date(ms)
    const texts = (xs: ReadonlyArray<string>) => arrayLiteral(xs, (x) => x)

    const insertChunk = (rows: ReadonlyArray<RecordRow>) =>
      sql`INSERT INTO pick_records (tx_hash, log_index, wallet, token, symbol, category, amount, usd, price_usd, ts, demo)
        SELECT * FROM unnest(${arrayLiteral(rows, (r) => r.txHash)}::text[], ${arrayLiteral(rows, (r) => r.logIndex)}::int[],
          ${arrayLiteral(rows, (r) => r.wallet)}::text[], ${arrayLiteral(rows, (r) => r.token)}::text[],
          ${arrayLiteral(rows, (r) => r.symbol)}::text[], ${arrayLiteral(rows, (r) => r.category)}::text[],
          ${arrayLiteral(rows, (r) => r.amount)}::float8[], ${arrayLiteral(rows, (r) => r.usd)}::float8[],
          ${arrayLiteral(rows, (r) => r.price)}::float8[], ${arrayLiteral(rows, (r) => iso(r.ts))}::timestamptz[],
          ${arrayLiteral(rows, (r) => String(r.demo))}::boolean[])
        ON CONFLICT DO NOTHING`

    return {
      /** Stores records (a redelivered one is left as it is), one statement per ROWS_PER_STATEMENT rows. */
      insertRecords: Effect.fn("PicksBatchRepo.insertRecords")(function* (rows: ReadonlyArray<RecordRow>) {
        for (let i = 0; i < rows.length; i += ROWS_PER_STATEMENT) yield* insertChunk(rows.slice(i, i + ROWS_PER_STATEMENT))
      }, Effect.orDie),

      /** The ETH close of each day: one record per day (the caller keeps the one a sequence of upserts would leave). */
      upsertEthCloses: Effect.fn("PicksBatchRepo.upsertEthCloses")(function* (rows: ReadonlyArray<{ ts: number; price: number }>) {
        if (rows.length === 0) return
        yield* sql`INSERT INTO pick_eth_daily (day, close, close_ts)
          SELECT (c.ts AT TIME ZONE 'UTC')::date, c.close, c.ts
          FROM unnest(${arrayLiteral(rows, (r) => iso(r.ts))}::timestamptz[], ${arrayLiteral(rows, (r) => r.price)}::float8[]) AS c (ts, close)
          ON CONFLICT (day) DO UPDATE SET close = EXCLUDED.close, close_ts = EXCLUDED.close_ts
          WHERE pick_eth_daily.close_ts <= EXCLUDED.close_ts`
      }, Effect.orDie),

      /**
       * `markPending` of many records at once: each PENDING pick flagged within the horizon before a mark takes the
       * highest and lowest of all its marks (GREATEST/LEAST commute, so one statement equals the sequence).
       */
      markPending: Effect.fn("PicksBatchRepo.markPending")(function* (marks: ReadonlyArray<PriceMark>, horizonMs: number) {
        if (marks.length === 0) return
        yield* sql`UPDATE picks p SET peak_price = GREATEST(coalesce(p.peak_price, a.high), a.high),
            trough_price = LEAST(coalesce(p.trough_price, a.low), a.low),
            peak_return = CASE WHEN p.entry_price > 0 THEN GREATEST(coalesce(p.peak_price, a.high), a.high) / p.entry_price - 1 END,
            max_adverse = CASE WHEN p.entry_price > 0 THEN LEAST(0, LEAST(coalesce(p.trough_price, a.low), a.low) / p.entry_price - 1) END
          FROM (
            SELECT q.id, max(m.high) AS high, min(m.low) AS low
            FROM unnest(${arrayLiteral(marks, (m) => m.token)}::text[], ${arrayLiteral(marks, (m) => iso(m.ts))}::timestamptz[],
              ${arrayLiteral(marks, (m) => m.high)}::float8[], ${arrayLiteral(marks, (m) => m.low)}::float8[]) AS m (token, ts, high, low)
            JOIN picks q ON q.token = m.token AND q.status = 'PENDING' AND q.flagged_at < m.ts
              AND q.flagged_at >= m.ts - ${horizonMs} * interval '1 millisecond'
            GROUP BY q.id
          ) a
          WHERE p.id = a.id`
      }, Effect.orDie),

      /** Which of `tokens` have an open (PENDING) pick. */
      openTokens: Effect.fn("PicksBatchRepo.openTokens")(function* (tokens: ReadonlyArray<string>) {
        if (tokens.length === 0) return new Set<string>()
        const rows = yield* sql<{ token: string }>`SELECT token FROM picks WHERE status = 'PENDING' AND token = ANY (${texts(tokens)}::text[])`
        return new Set(rows.map((r) => r.token))
      }, Effect.orDie),

      /** Which of `wallets` count in figures (`whale_counted`): the read's own trades join a window only if so. */
      countedWallets: Effect.fn("PicksBatchRepo.countedWallets")(function* (wallets: ReadonlyArray<string>) {
        if (wallets.length === 0) return new Set<string>()
        const rows = yield* sql<{ wallet: string }>`SELECT w AS wallet FROM unnest(${texts(wallets)}::text[]) AS w WHERE whale_counted(w)`
        return new Set(rows.map((r) => r.wallet))
      }, Effect.orDie),

      /** When the earliest open pick was flagged (epoch ms), or null: a rebuild grades once a record reaches its horizon. */
      firstPendingFlag: sql<{ at: Date | null }>`SELECT min(flagged_at) AS at FROM picks WHERE status = 'PENDING'`.pipe(
        Effect.map((rows) => rows[0]?.at?.getTime() ?? null), Effect.orDie),

      /**
       * Whales' DEX trades of `tokens` in `(from, to]`, in `windowTrades`' order, with their keys: wallets the identity
       * engine holds for bots, routers, pools, exchanges or bridges are left out (`whale_counted`, migration 0120).
       */
      windowTrades: Effect.fn("PicksBatchRepo.windowTrades")(function* (tokens: ReadonlyArray<string>, from: number, to: number) {
        if (tokens.length === 0) return []
        const rows = yield* sql<{ tx_hash: string; log_index: number; wallet: string; token: string; category: string; amount: number; usd: number | null; price_usd: number | null; ts: Date }>`
          SELECT tx_hash, log_index, wallet, token, category, amount, usd, price_usd, ts FROM pick_records
          WHERE token = ANY (${texts(tokens)}::text[]) AND ts > ${d(from)} AND ts <= ${d(to)} AND category IN ('dex_buy', 'dex_sell')
            AND whale_counted(wallet)
          ORDER BY ts, tx_hash, log_index, wallet`
        return rows.map((r): KeyedTrade => ({
          token: r.token, key: `${r.tx_hash}:${r.log_index}:${r.wallet}`, txHash: r.tx_hash, logIndex: r.log_index,
          wallet: r.wallet, side: r.category === "dex_buy" ? "buy" : "sell", amount: r.amount, usd: r.usd, price: r.price_usd, ts: r.ts.getTime()
        }))
      }, Effect.orDie),

      /**
       * Picks of `tokens` (not VOID) flagged in `[from, to)` and the first exit of each of their flaggers so far: what
       * `exitCandidates` asks per record, for a whole read.
       */
      exitScan: Effect.fn("PicksBatchRepo.exitScan")(function* (tokens: ReadonlyArray<string>, from: number, to: number) {
        if (tokens.length === 0) return { picks: [] as Array<ExitPick>, exits: [] as Array<{ pickId: number; wallet: string; ts: number }> }
        const picks = yield* sql<{ id: number; token: string; flagged_at: Date; entry_price: number | null; flaggers: Array<string> }>`
          SELECT id, token, flagged_at, entry_price, flaggers FROM picks
          WHERE token = ANY (${texts(tokens)}::text[]) AND status <> 'VOID' AND flagged_at >= ${d(from)} AND flagged_at < ${d(to)}
          ORDER BY id`
        const ids = picks.map((p) => Number(p.id))
        const exits = ids.length === 0 ? [] : yield* sql<{ pick_id: number; wallet: string; ts: Date }>`
          SELECT pick_id, wallet, ts FROM pick_exits WHERE pick_id = ANY (${arrayLiteral(ids, (i) => i)}::int8[])`
        return {
          picks: picks.map((p): ExitPick => ({ id: Number(p.id), token: p.token, flaggedAt: p.flagged_at.getTime(), entryPrice: p.entry_price, flaggers: p.flaggers })),
          exits: exits.map((x) => ({ pickId: Number(x.pick_id), wallet: x.wallet, ts: x.ts.getTime() }))
        }
      }, Effect.orDie)
    } as const
  })
}) {}
