/**
 * The picks domain's SQL (migration 0080): its records, picks, exits, the ledger and the ETH closes. It reads two
 * reference tables of the chain domain, read-only: `tokens` (which tokens are eligible) and `tracked_wallets`
 * (the wallets view shows currently tracked wallets only). Database faults are defects here.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { type LedgerEntry, type LedgerKind, nextEntry } from "./Ledger"
import type { Exit, WindowTrade } from "./Rules"
import type { ExitRec, PickRec } from "./Views"
import { spanned } from "../../platform/ops/Spans"

export interface RecordRow {
  readonly txHash: string
  readonly logIndex: number
  readonly wallet: string
  readonly token: string
  readonly symbol: string
  readonly category: "dex_buy" | "dex_sell" | "exchange_deposit" | "exchange_withdraw"
  readonly amount: number
  readonly usd: number | null
  readonly price: number | null
  readonly ts: number
  readonly demo: boolean
}

/**
 * A record's key in picks, `<tx_hash>:<log_index>:<wallet>` (no token, unlike `recordId` in schema/records.ts): stored in
 * picks.flag_record and on exits, and compared with them on a retraction, so its form never changes.
 */
export const recordKey = (r: { txHash: string; logIndex: number; wallet: string }) => `${r.txHash}:${r.logIndex}:${r.wallet}`

export interface NewPick {
  readonly token: string
  readonly symbol: string
  readonly flaggedAt: number
  readonly flagRecord: string
  readonly entryPrice: number | null
  readonly flaggers: ReadonlyArray<string>
  readonly flagUsd: number
  readonly conviction: number
  readonly inputs: unknown
  readonly source: "live" | "rebuild"
  readonly demo: boolean
}

interface PickDbRow {
  id: number; token: string; symbol: string; flagged_at: Date; status: PickRec["status"]; whales: number; flaggers: Array<string>
  conviction: number; entry_price: number | null; peak_return: number | null; close_return: number | null; max_adverse: number | null
  exited_before_close: boolean | null; day_closes: Array<number | null> | null; graded_at: Date | null; demo: boolean
}

const toPick = (r: PickDbRow): PickRec => ({
  id: r.id, token: r.token, symbol: r.symbol, flaggedAt: r.flagged_at.getTime(), status: r.status, whales: r.whales, flaggers: r.flaggers,
  conviction: r.conviction, entryPrice: r.entry_price, peakReturn: r.peak_return, closeReturn: r.close_return, maxAdverse: r.max_adverse,
  exitedBeforeClose: r.exited_before_close, dayCloses: r.day_closes, gradedAt: r.graded_at?.getTime() ?? null, demo: r.demo
})

/** A PostgreSQL array literal, sent as one parameter and cast in SQL (`${textArray(xs)}::text[]`). */
const textArray = (xs: ReadonlyArray<string>) => `{${xs.map((x) => `"${x.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(",")}}`
const floatArray = (xs: ReadonlyArray<number | null>) => `{${xs.map((x) => (x === null || !Number.isFinite(x) ? "NULL" : String(x))).join(",")}}`

const PICK_COLUMNS = `id, token, symbol, flagged_at, status, whales, flaggers, conviction, entry_price, peak_return, close_return,
  max_adverse, exited_before_close, day_closes, graded_at, demo`

export class PicksRepo extends Effect.Service<PicksRepo>()("app/picks/PicksRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const d = (ms: number) => new Date(ms)

    /** Appends one ledger entry (inside the caller's transaction; the table lock serialises writers). */
    const appendLedger = (kind: LedgerKind, pickId: number | null, data: unknown, nowMs: number) =>
      Effect.gen(function* () {
        yield* sql`LOCK TABLE pick_ledger IN EXCLUSIVE MODE`
        const [head] = yield* sql<{ seq: number; hash: string; at: Date }>`SELECT seq, hash, at FROM pick_ledger ORDER BY seq DESC LIMIT 1`
        const at = new Date(Math.max(nowMs, head?.at.getTime() ?? 0)).toISOString()
        const e = nextEntry(head ?? null, { at, kind, pick_id: pickId, data })
        yield* sql`INSERT INTO pick_ledger (seq, at, kind, pick_id, payload, prev_hash, hash)
          VALUES (${e.seq}, ${e.at}, ${e.kind}, ${e.pick_id}, ${e.payload}, ${e.prev_hash}, ${e.hash})`
        return e
      })

    return spanned("PicksRepo", {
      deleteRecord: (txHash: string, logIndex: number, wallet: string, token: string) =>
        sql<{ ts: Date; category: string }>`DELETE FROM pick_records WHERE tx_hash = ${txHash} AND log_index = ${logIndex}
          AND wallet = ${wallet} AND token = ${token} RETURNING ts, category`.pipe(Effect.map((rows) => rows[0] ?? null), Effect.orDie),

      /**
       * Whales' DEX trades of the token in `(from, to]`: wallets the identity engine holds for bots, routers, pools,
       * exchanges or bridges are left out (`whale_counted`, migration 0120 — issue 28 part 5), so they never make a pick.
       */
      windowTrades: (token: string, from: number, to: number) =>
        sql<{ wallet: string; category: string; amount: number; usd: number | null; price_usd: number | null; ts: Date }>`
          SELECT wallet, category, amount, usd, price_usd, ts FROM pick_records
          WHERE token = ${token} AND ts > ${d(from)} AND ts <= ${d(to)} AND category IN ('dex_buy', 'dex_sell') AND whale_counted(wallet)
          ORDER BY ts, tx_hash, log_index, wallet`.pipe(
          Effect.map((rows) => rows.map((r): WindowTrade => ({
            wallet: r.wallet, side: r.category === "dex_buy" ? "buy" : "sell", amount: r.amount, usd: r.usd, price: r.price_usd, ts: r.ts.getTime()
          }))),
          Effect.orDie
        ),

      lastPrice: (token: string, at: number) =>
        sql<{ price_usd: number }>`SELECT price_usd FROM pick_records WHERE token = ${token} AND ts <= ${d(at)} AND price_usd > 0
          ORDER BY ts DESC LIMIT 1`.pipe(Effect.map((rows) => rows[0]?.price_usd ?? null), Effect.orDie),

      pricePoints: (token: string, from: number, to: number) =>
        sql<{ ts: Date; price_usd: number }>`SELECT ts, price_usd FROM pick_records WHERE token = ${token} AND ts > ${d(from)}
          AND ts <= ${d(to)} AND price_usd > 0 ORDER BY ts, tx_hash, log_index, wallet`.pipe(
          Effect.map((rows) => rows.map((r) => ({ ts: r.ts.getTime(), price: r.price_usd }))), Effect.orDie),

      /** The open (PENDING) pick of each of `tokens` (lower-case addresses); at most one per token (a unique index). */
      openPicks: (tokens: ReadonlyArray<string>) =>
        tokens.length === 0
          ? Effect.succeed([])
          : sql<{ id: number; token: string; symbol: string; flagged_at: Date; entry_price: number | null; conviction: number; whales: number; flaggers: Array<string> }>`
            SELECT id, token, symbol, flagged_at, entry_price, conviction, whales, flaggers FROM picks
            WHERE status = 'PENDING' AND token = ANY (${textArray(tokens)}::text[]) ORDER BY id`.pipe(Effect.orDie),

      /** Graded picks known at `at` (flag + 7 d ≤ at) flagged by any of `wallets`. */
      gradedHistory: (wallets: ReadonlyArray<string>, at: number, horizonMs: number) =>
        sql<{ flaggers: Array<string>; flagged_at: Date; close_return: number }>`
          SELECT flaggers, flagged_at, close_return FROM picks WHERE status = 'GRADED' AND flagged_at <= ${d(at - horizonMs)}
            AND flaggers && ${textArray(wallets)}::text[]`.pipe(
          Effect.map((rows) => rows.map((r) => ({ flaggers: r.flaggers, gradedAt: r.flagged_at.getTime() + horizonMs, closeReturn: r.close_return }))),
          Effect.orDie
        ),

      /** Inserts a pick and its ledger entry atomically; null when the token already has an open pick. */
      insertPick: (p: NewPick, nowMs: number) =>
        sql.withTransaction(Effect.gen(function* () {
          const rows = yield* sql<{ id: number }>`
            INSERT INTO picks (token, symbol, flagged_at, flag_record, entry_price, whales, flaggers, flag_usd, conviction, inputs, source,
              demo)
            VALUES (${p.token}, ${p.symbol}, ${d(p.flaggedAt)}, ${p.flagRecord}, ${p.entryPrice}, ${p.flaggers.length},
              ${textArray(p.flaggers)}::text[], ${p.flagUsd}, ${p.conviction},
              ${JSON.stringify(p.inputs)}::jsonb, ${p.source}, ${p.demo})
            ON CONFLICT DO NOTHING RETURNING id`
          const id = rows[0]?.id
          if (id === undefined) return null
          yield* appendLedger("flag", id, {
            token: p.token, symbol: p.symbol, flagged_at: new Date(p.flaggedAt).toISOString(), flag_record: p.flagRecord,
            entry_price: p.entryPrice, flaggers: p.flaggers, conviction: p.conviction, inputs: p.inputs
          }, nowMs)
          return id
        })).pipe(Effect.orDie),

      /** Records an exit (replacing a later one of the same wallet: the first exit counts) and its ledger entry. */
      insertExit: (pickId: number, e: Exit, record: string, nowMs: number) =>
        sql.withTransaction(Effect.gen(function* () {
          const rows = yield* sql<{ n: number }>`
            INSERT INTO pick_exits (pick_id, wallet, ts, day_offset, hours, price, move, route, record)
            VALUES (${pickId}, ${e.wallet}, ${d(e.ts)}, ${e.dayOffset}, ${e.hours}, ${e.price}, ${e.move}, ${e.route}, ${record})
            ON CONFLICT (pick_id, wallet) DO UPDATE SET ts = EXCLUDED.ts, day_offset = EXCLUDED.day_offset, hours = EXCLUDED.hours,
              price = EXCLUDED.price, move = EXCLUDED.move, route = EXCLUDED.route, record = EXCLUDED.record
            WHERE pick_exits.ts > EXCLUDED.ts
            RETURNING 1 AS n`
          if (rows.length === 0) return false
          yield* appendLedger("exit", pickId, { wallet: e.wallet, at: new Date(e.ts).toISOString(), day_offset: e.dayOffset, move: e.move, route: e.route, record }, nowMs)
          return true
        })).pipe(Effect.orDie),

      /** Exits that came from a record (a retraction removes them). */
      deleteExitsOf: (record: string, nowMs: number) =>
        sql.withTransaction(Effect.gen(function* () {
          const gone = yield* sql<{ pick_id: number; wallet: string }>`DELETE FROM pick_exits WHERE record = ${record} RETURNING pick_id, wallet`
          for (const g of gone) yield* appendLedger("exit", g.pick_id, { wallet: g.wallet, retracted: true, record, reason: "reorg" }, nowMs)
          return gone
        })).pipe(Effect.orDie),

      /** Picks of the token whose flagging window held a record at `ts` (a retraction of it re-checks them). */
      picksWindowing: (token: string, ts: number, windowMs: number) =>
        sql<{ id: number; flagged_at: Date; flag_record: string }>`
          SELECT id, flagged_at, flag_record FROM picks WHERE token = ${token} AND status <> 'VOID'
            AND flagged_at >= ${d(ts)} AND flagged_at < ${d(ts + windowMs)}`.pipe(Effect.orDie),

      voidPick: (pickId: number, reason: string, nowMs: number) =>
        sql.withTransaction(Effect.gen(function* () {
          const rows = yield* sql<{ id: number }>`UPDATE picks SET status = 'VOID', graded_at = ${d(nowMs)} WHERE id = ${pickId} AND status <> 'VOID' RETURNING id`
          if (rows.length > 0) yield* appendLedger("void", pickId, { reason }, nowMs)
          return rows.length > 0
        })).pipe(Effect.orDie),

      duePicks: (now: number, horizonMs: number, limit: number) =>
        sql<{ id: number; token: string; flagged_at: Date; entry_price: number | null }>`
          SELECT id, token, flagged_at, entry_price FROM picks WHERE status = 'PENDING' AND flagged_at <= ${d(now - horizonMs)}
          ORDER BY flagged_at, id LIMIT ${limit}`.pipe(Effect.orDie),

      exitTimes: (pickId: number) =>
        sql<{ ts: Date }>`SELECT ts FROM pick_exits WHERE pick_id = ${pickId}`.pipe(Effect.map((r) => r.map((x) => x.ts.getTime())), Effect.orDie),

      /** Writes a grade once (PENDING → GRADED/UNPRICED) and appends it to the ledger. */
      setGrade: (pickId: number, g: {
        status: "GRADED" | "UNPRICED"; reason: string | null; closePrice: number | null; closeReturn: number | null; peak: number | null
        trough: number | null; peakReturn: number | null; maxAdverse: number | null; dayCloses: ReadonlyArray<number | null>; exitedBeforeClose: boolean
        gradedAt: number
      }, nowMs: number) =>
        sql.withTransaction(Effect.gen(function* () {
          const rows = yield* sql<{ id: number }>`
            UPDATE picks SET status = ${g.status}, close_price = ${g.closePrice}, close_return = ${g.closeReturn}, peak_price = ${g.peak},
              trough_price = ${g.trough}, peak_return = ${g.peakReturn}, max_adverse = ${g.maxAdverse},
              day_closes = ${floatArray(g.dayCloses)}::double precision[],
              exited_before_close = ${g.exitedBeforeClose}, graded_at = ${d(g.gradedAt)}
            WHERE id = ${pickId} AND status = 'PENDING' RETURNING id`
          if (rows.length === 0) return false
          yield* appendLedger("grade", pickId, {
            status: g.status, reason: g.reason, close_price: g.closePrice, close_return: g.closeReturn, peak_return: g.peakReturn,
            max_adverse: g.maxAdverse, day_closes: g.dayCloses, exited_before_close: g.exitedBeforeClose
          }, nowMs)
          return true
        })).pipe(Effect.orDie),

      unpublished: sql<{ id: number; token: string; symbol: string; flagged_at: Date; entry_price: number | null; whales: number; conviction: number }>`
        SELECT id, token, symbol, flagged_at, entry_price, whales, conviction FROM picks WHERE published_at IS NULL AND status <> 'VOID' ORDER BY id LIMIT 500`.pipe(Effect.orDie),
      markPublished: (ids: ReadonlyArray<number>) =>
        ids.length === 0 ? Effect.void : sql`UPDATE picks SET published_at = now() WHERE id IN ${sql.in(ids)}`.pipe(Effect.asVoid, Effect.orDie),

      ethCloses: (from: number, to: number) =>
        sql<{ close_ts: Date; close: number }>`SELECT close_ts, close FROM pick_eth_daily
          WHERE day >= (${d(from)}::timestamptz AT TIME ZONE 'UTC')::date - 7 AND day <= (${d(to)}::timestamptz AT TIME ZONE 'UTC')::date
          ORDER BY day`.pipe(Effect.map((rows) => rows.map((r) => ({ ts: r.close_ts.getTime(), price: r.close }))), Effect.orDie),

      allPicks: sql<PickDbRow>`SELECT ${sql.literal(PICK_COLUMNS)} FROM picks ORDER BY flagged_at, id`.pipe(Effect.map((r) => r.map(toPick)), Effect.orDie),

      /** Graded picks after `(flagged_at, id)` in that order, with their dated exits counted (one batch of the streamed list). */
      gradedAfter: (after: { ts: number; id: number }, limit: number) =>
        sql<PickDbRow & { exits: number }>`SELECT ${sql.literal(PICK_COLUMNS)},
            (SELECT count(*)::int FROM pick_exits e WHERE e.pick_id = p.id) AS exits
          FROM picks p WHERE status = 'GRADED' AND (flagged_at, id) > (${d(after.ts)}, ${after.id})
          ORDER BY flagged_at, id LIMIT ${limit}`.pipe(Effect.map((r) => r.map((x) => ({ pick: toPick(x), exits: x.exits }))), Effect.orDie),

      allExits: sql<{ pick_id: number; wallet: string; ts: Date; day_offset: number; hours: number; price: number | null; move: number | null; route: ExitRec["route"] }>`
        SELECT pick_id, wallet, ts, day_offset, hours, price, move, route FROM pick_exits ORDER BY pick_id, ts, wallet`.pipe(
        Effect.map((rows) => rows.map((r): ExitRec => ({
          pickId: r.pick_id, wallet: r.wallet, ts: r.ts.getTime(), dayOffset: r.day_offset, hours: r.hours, price: r.price, move: r.move, route: r.route
        }))),
        Effect.orDie
      ),

      /** Graded picks of a flag range with their first priced exit (the backtest's input), one query. */
      backtestPicks: (from: number, to: number, limit: number) =>
        sql<{ id: number; symbol: string; flagged_at: Date; whales: number; conviction: number; entry_price: number; day_closes: Array<number | null>; exit_ts: Date | null; exit_price: number | null }>`
          SELECT p.id, p.symbol, p.flagged_at, p.whales, p.conviction, p.entry_price, p.day_closes, x.ts AS exit_ts, x.price AS exit_price
          FROM picks p LEFT JOIN LATERAL (
            SELECT ts, price FROM pick_exits e WHERE e.pick_id = p.id AND e.price > 0 ORDER BY e.ts, e.wallet LIMIT 1
          ) x ON true
          WHERE p.status = 'GRADED' AND p.entry_price > 0 AND p.flagged_at >= ${d(from)} AND p.flagged_at < ${d(to)}
          ORDER BY p.flagged_at, p.id LIMIT ${limit}`.pipe(Effect.orDie),

      anyDemo: sql<{ demo: boolean }>`SELECT EXISTS (SELECT 1 FROM picks WHERE demo) AS demo`.pipe(Effect.map((r) => r[0]?.demo === true), Effect.orDie),

      ledgerHead: sql<{ seq: number; hash: string }>`SELECT seq, hash FROM pick_ledger ORDER BY seq DESC LIMIT 1`.pipe(Effect.map((r) => r[0] ?? null), Effect.orDie),

      ledgerDays: sql<{ day: string; root: string; last_seq: number; entries: number }>`
        SELECT to_char(l.day, 'YYYY-MM-DD') AS day, h.hash AS root, l.last_seq, l.entries
        FROM (SELECT (at AT TIME ZONE 'UTC')::date AS day, max(seq) AS last_seq, count(*)::int AS entries FROM pick_ledger GROUP BY 1) l
        JOIN pick_ledger h ON h.seq = l.last_seq ORDER BY l.day`.pipe(Effect.orDie),

      ledgerEntries: (afterSeq: number, limit: number) =>
        sql<{ seq: number; at: Date; kind: LedgerKind; pick_id: number | null; payload: string; prev_hash: string; hash: string }>`
          SELECT seq, at, kind, pick_id, payload, prev_hash, hash FROM pick_ledger WHERE seq > ${afterSeq} ORDER BY seq LIMIT ${limit}`.pipe(
          Effect.map((rows) => rows.map((r): LedgerEntry => ({ ...r, at: r.at.toISOString() }))), Effect.orDie),

      appendRebuildMark: (data: unknown, nowMs: number) => sql.withTransaction(appendLedger("rebuild", null, data, nowMs)).pipe(Effect.orDie),

      /** Whether the demo history's picks were replayed (migration 0102). */
      historyReplayed: sql<{ n: number }>`SELECT count(*)::int AS n FROM picks_history_replay`.pipe(Effect.map((r) => r[0]!.n > 0), Effect.orDie),
      markHistoryReplayed: (figures: { records: number; flagged: number; graded: number }) =>
        sql`INSERT INTO picks_history_replay (records, flagged, graded) VALUES (${figures.records}, ${figures.flagged}, ${figures.graded})
          ON CONFLICT (id) DO NOTHING`.pipe(Effect.asVoid, Effect.orDie),

      /** Empties the derived tables (never the ledger) before a rebuild. */
      resetDerived: sql.withTransaction(Effect.gen(function* () {
        yield* sql`DELETE FROM pick_exits`
        yield* sql`DELETE FROM picks`
        yield* sql`DELETE FROM pick_records`
        yield* sql`DELETE FROM pick_eth_daily`
      })).pipe(Effect.orDie)
    } as const)
  })
}) {}
