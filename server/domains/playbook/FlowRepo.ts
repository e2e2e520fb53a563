/**
 * Whale-flow reads of the playbook. Market-wide figures of spans come from the playbook's own per-hour roll-up
 * `playbook_flow_hourly` (migration 0072: one row per hour with its wallets as a bit string, so distinct wallets over
 * many hours stay exact); figures narrowed to tokens, top tokens and hour buckets from the analytics roll-up
 * `whale_flow_hourly` (migration 0030); the partial edge hours from `whale_tx` through its `ts` index — never a scan
 * of all records. Record-level reads (fastest movers, biggest trades, sub-hour buckets) walk the `ts` index over a
 * bounded range only. `whale_tx` and `whale_flow_hourly` belong to the chain/analytics domains; this file only reads them,
 * and only in statements that union or join them with a roll-up (one plan each, measured by `bench:playbook`); reads of
 * the chain's tables alone (records of a span, token addresses) are the `Chain` service's.
 *
 * Whales only (issue 28 part 5): every read leaves out exchange housekeeping and the wallets `whale_counted` (migration
 * 0120) rejects — bots, routers, pools, exchanges, bridges as the identity engine holds them; `playbook_flow_hourly`
 * applies the same test when a record is stored (it sums wallets away), the other reads when they run.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { SpanRecord } from "../chain/Chain"
import { HOUR_MS, type Span, split } from "./Spans"
import { spanned } from "../../platform/ops/Spans"

export interface RawFigures {
  readonly dex_buy_usd: number
  readonly dex_sell_usd: number
  readonly exchange_deposit_usd: number
  readonly exchange_withdraw_usd: number
  readonly whales_active: number
  readonly records: number
}

export interface RawBucket extends Omit<RawFigures, "whales_active"> {
  readonly b: number
}

export interface TokenRow {
  readonly token: string
  readonly symbol: string
  readonly dex_buy_usd: number
  readonly dex_sell_usd: number
  readonly net: number
}

/** A wallet's activity over a span (not a tracked_wallets row: see chain's `WalletRow`). */
export interface ActiveWalletRow {
  readonly wallet: string
  readonly label: string | null
  readonly records: number
  readonly dex_buy_usd: number
  readonly dex_sell_usd: number
  readonly net: number
}

/** A record of a span with its wallet's label: the chain's read shape (one type for both reads). */
export type RecordRow = SpanRecord

const iso = (ms: number) => new Date(ms).toISOString()

export class FlowRepo extends Effect.Service<FlowRepo>()("app/playbook/FlowRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tokenFilter = (column: string, tokens: ReadonlyArray<string> | null) =>
      tokens === null ? sql`true` : sql`${sql.unsafe(column)} = ANY(${tokens as Array<string>}::text[])`

    /** The first hour with data (null when nothing is stored). */
    const dataSince = sql<{ h: Date | null }>`SELECT min(hour) AS h FROM whale_flow_hourly`.pipe(
      Effect.map((r) => r[0]?.h?.getTime() ?? null),
      Effect.orDie
    )

    /**
     * Runs a read with JIT compilation off. The planner cannot see how few rows a lateral range over `whale_tx.ts`
     * or the roll-ups returns (it guesses a third of the table per range), so it prices these statements in the
     * millions and JIT-compiles them: measured at 1,000,000 records, 0.9–1.7 s of compiling for a 30–90 ms query.
     */
    const noJit = <A, E, R>(read: Effect.Effect<A, E, R>) => sql.withTransaction(Effect.zipRight(sql`SET LOCAL jit = off`, read))

    const spanArrays = (spans: ReadonlyArray<Span>, from: "rollup" | "records") => {
      const hours: Array<[number, string, string]> = []
      const edges: Array<[number, string, string]> = []
      spans.forEach((s, i) => {
        // `records` reads every span from whale_tx (the benchmark's baseline; same figures).
        const p = from === "records" ? { fullFrom: 0, fullTo: 0, edges: [s] } : split(s)
        if (p.fullFrom < p.fullTo) hours.push([i, iso(p.fullFrom), iso(p.fullTo)])
        for (const e of p.edges) edges.push([i, iso(e.from), iso(e.to)])
      })
      return {
        hi: sql`SELECT * FROM unnest(${hours.map((h) => h[0])}::int[], ${hours.map((h) => h[1])}::timestamptz[],
                  ${hours.map((h) => h[2])}::timestamptz[]) AS hi(idx, f0, f1)`,
        ei: sql`SELECT * FROM unnest(${edges.map((h) => h[0])}::int[], ${edges.map((h) => h[1])}::timestamptz[],
                  ${edges.map((h) => h[2])}::timestamptz[]) AS ei(idx, e0, e1)`
      }
    }

    /**
     * All spans of the market as a whole: whole hours from the playbook's per-hour roll-up `playbook_flow_hourly`
     * (migration 0072: one row per hour, its wallets as a bit string), the partial edge hours from the records
     * (each distinct edge read once, however many spans share it). Whales active = bits set in the OR of the
     * hours' and edges' wallet bits: distinct wallets, exact.
     */
    const marketFigures = (spans: ReadonlyArray<Span>) => {
      const { hi, ei } = spanArrays(spans, "rollup")
      return sql<RawFigures & { idx: number }>`
        WITH hi AS (${hi}), ei AS (${ei}),
             len AS (SELECT coalesce(max(n), -1) + 1 AS bits FROM playbook_wallet_numbers),
             hs AS (
               SELECT hi.idx, sum(p.dex_buy_usd) AS b, sum(p.dex_sell_usd) AS s, sum(p.exchange_deposit_usd) AS d,
                 sum(p.exchange_withdraw_usd) AS w, sum(p.records) AS n, bit_or(playbook_bits_pad(p.wallets, len.bits)) AS wallets
               FROM hi CROSS JOIN len JOIN playbook_flow_hourly p ON p.hour >= hi.f0 AND p.hour < hi.f1
               GROUP BY hi.idx),
             eu AS (
               SELECT u.e0, u.e1,
                 coalesce(sum(x.usd) FILTER (WHERE x.category = 'dex_buy'), 0) AS b,
                 coalesce(sum(x.usd) FILTER (WHERE x.category = 'dex_sell'), 0) AS s,
                 coalesce(sum(x.usd) FILTER (WHERE x.category = 'exchange_deposit'), 0) AS d,
                 coalesce(sum(x.usd) FILTER (WHERE x.category = 'exchange_withdraw'), 0) AS w,
                 count(*) AS n, playbook_bits_pad(playbook_bits(array_agg(k.n)), max(len.bits)) AS wallets
               FROM (SELECT DISTINCT e0, e1 FROM ei) u CROSS JOIN len
                 JOIN whale_tx x ON x.ts >= u.e0 AND x.ts < u.e1 AND x.category <> 'exchange_housekeeping' AND whale_counted(x.wallet)
                 LEFT JOIN playbook_wallet_numbers k ON k.wallet = x.wallet
               GROUP BY u.e0, u.e1),
             es AS (
               SELECT ei.idx, sum(eu.b) AS b, sum(eu.s) AS s, sum(eu.d) AS d, sum(eu.w) AS w, sum(eu.n) AS n, bit_or(eu.wallets) AS wallets
               FROM ei JOIN eu ON eu.e0 = ei.e0 AND eu.e1 = ei.e1 GROUP BY ei.idx)
        SELECT idx, coalesce(hs.b, 0) + coalesce(es.b, 0) AS dex_buy_usd, coalesce(hs.s, 0) + coalesce(es.s, 0) AS dex_sell_usd,
          coalesce(hs.d, 0) + coalesce(es.d, 0) AS exchange_deposit_usd, coalesce(hs.w, 0) + coalesce(es.w, 0) AS exchange_withdraw_usd,
          coalesce(bit_count(CASE WHEN hs.wallets IS NULL THEN es.wallets WHEN es.wallets IS NULL THEN hs.wallets
            ELSE hs.wallets | es.wallets END), 0)::int AS whales_active,
          (coalesce(hs.n, 0) + coalesce(es.n, 0))::int AS records
        FROM hs FULL JOIN es USING (idx)`
    }

    /**
     * Spans narrowed to `tokens` (addresses), from the hour × token × wallet roll-up `whale_flow_hourly` plus edge
     * records; with `from = "records"` every span straight from `whale_tx` (the benchmark's baseline).
     */
    const rowFigures = (spans: ReadonlyArray<Span>, tokens: ReadonlyArray<string> | null, from: "rollup" | "records") => {
      const { hi, ei } = spanArrays(spans, from)
      return sql<RawFigures & { idx: number }>`
        WITH hi AS (${hi}), ei AS (${ei}),
             r AS (
               SELECT hi.idx, h.wallet, h.dex_buy_usd AS b, h.dex_sell_usd AS s, h.exchange_deposit_usd AS d,
                 h.exchange_withdraw_usd AS w, h.dex_buys + h.dex_sells + h.exchange_withdraws + h.exchange_deposits AS n
               FROM hi JOIN LATERAL (SELECT * FROM whale_flow_hourly
                 WHERE hour >= hi.f0 AND hour < hi.f1 AND ${tokenFilter("token", tokens)} AND whale_counted(wallet)) h ON true
               UNION ALL
               SELECT ei.idx, x.wallet,
                 CASE WHEN x.category = 'dex_buy' THEN coalesce(x.usd, 0) ELSE 0 END,
                 CASE WHEN x.category = 'dex_sell' THEN coalesce(x.usd, 0) ELSE 0 END,
                 CASE WHEN x.category = 'exchange_deposit' THEN coalesce(x.usd, 0) ELSE 0 END,
                 CASE WHEN x.category = 'exchange_withdraw' THEN coalesce(x.usd, 0) ELSE 0 END, 1
               FROM ei JOIN LATERAL (SELECT wallet, category, usd FROM whale_tx
                 WHERE ts >= ei.e0 AND ts < ei.e1 AND ${tokenFilter("token", tokens)}
                   AND category <> 'exchange_housekeeping' AND whale_counted(wallet)) x ON true
             )
        SELECT idx, coalesce(sum(b), 0) AS dex_buy_usd, coalesce(sum(s), 0) AS dex_sell_usd,
          coalesce(sum(d), 0) AS exchange_deposit_usd, coalesce(sum(w), 0) AS exchange_withdraw_usd,
          count(DISTINCT wallet)::int AS whales_active, coalesce(sum(n), 0)::int AS records
        FROM r GROUP BY idx`
    }

    /**
     * Figures of many spans in one statement: index i of the result holds the figures of `spans[i]`. Each span
     * reads its whole hours from a roll-up and its edges from the records; `tokens` (addresses) narrows it.
     */
    const figures = (spans: ReadonlyArray<Span>, tokens: ReadonlyArray<string> | null = null, from: "rollup" | "records" = "rollup") =>
      noJit(tokens === null && from === "rollup" ? marketFigures(spans) : rowFigures(spans, tokens, from)).pipe(
        Effect.map((rows) => {
          const out: Array<RawFigures> = spans.map(() => ({ dex_buy_usd: 0, dex_sell_usd: 0, exchange_deposit_usd: 0, exchange_withdraw_usd: 0, whales_active: 0, records: 0 }))
          for (const { idx, ...f } of rows) out[idx] = f
          return out
        }),
        Effect.orDie
      )

    /** Rows (token, wallet, sums) of one span: roll-up hours plus edge records. */
    const spanRows = (s: Span) => {
      const p = split(s)
      const e = [...p.edges, { from: 0, to: 0 }, { from: 0, to: 0 }]
      return sql`
        SELECT token, wallet, symbol, dex_buy_usd AS b, dex_sell_usd AS s, exchange_deposit_usd AS d,
          exchange_withdraw_usd AS w, dex_buys + dex_sells + exchange_withdraws + exchange_deposits AS n
        FROM whale_flow_hourly WHERE hour >= ${iso(p.fullFrom)} AND hour < ${iso(p.fullTo)} AND whale_counted(wallet)
        UNION ALL
        SELECT token, wallet, symbol,
          CASE WHEN category = 'dex_buy' THEN coalesce(usd, 0) ELSE 0 END,
          CASE WHEN category = 'dex_sell' THEN coalesce(usd, 0) ELSE 0 END,
          CASE WHEN category = 'exchange_deposit' THEN coalesce(usd, 0) ELSE 0 END,
          CASE WHEN category = 'exchange_withdraw' THEN coalesce(usd, 0) ELSE 0 END, 1
        FROM whale_tx WHERE ((ts >= ${iso(e[0]!.from)} AND ts < ${iso(e[0]!.to)}) OR (ts >= ${iso(e[1]!.from)} AND ts < ${iso(e[1]!.to)}))
          AND category <> 'exchange_housekeeping' AND whale_counted(wallet)`
    }

    /** Tokens of a span by |net flow|, stablecoins and blacklisted tokens left out. */
    const topTokens = (s: Span, limit: number) => sql<TokenRow>`
      WITH r AS (${spanRows(s)})
      SELECT r.token, coalesce(t.symbol, max(r.symbol)) AS symbol, sum(r.b) AS dex_buy_usd, sum(r.s) AS dex_sell_usd,
        sum(r.b - r.s + r.w - r.d) AS net
      FROM r LEFT JOIN tokens t ON t.address = r.token
      WHERE NOT coalesce(t.stable, false) AND NOT coalesce(t.blacklisted, false)
      GROUP BY r.token, t.symbol HAVING sum(r.b - r.s + r.w - r.d) <> 0
      ORDER BY abs(sum(r.b - r.s + r.w - r.d)) DESC, r.token LIMIT ${limit}`.pipe(Effect.orDie)

    /** Wallets of a span by record count. */
    const activeWallets = (s: Span, limit: number) => sql<ActiveWalletRow>`
      WITH r AS (${spanRows(s)})
      SELECT r.wallet, w.label, sum(r.n)::int AS records, sum(r.b) AS dex_buy_usd, sum(r.s) AS dex_sell_usd,
        sum(r.b - r.s + r.w - r.d) AS net
      FROM r LEFT JOIN tracked_wallets w ON w.address = r.wallet
      GROUP BY r.wallet, w.label ORDER BY sum(r.n) DESC, sum(r.b + r.s + r.w + r.d) DESC, r.wallet LIMIT ${limit}`.pipe(Effect.orDie)

    /**
     * Sums per bucket of `minutes` from `s.from` (index `b`, empty buckets absent). With hour-aligned buckets the
     * whole hours come from the roll-up and only the last partial hour from the records; otherwise the records.
     */
    const buckets = (s: Span, minutes: number) => {
      const aligned = s.from % HOUR_MS === 0 && minutes % 60 === 0
      const hoursTo = aligned ? Math.max(s.from, Math.floor(s.to / HOUR_MS) * HOUR_MS) : s.from
      const sec = minutes * 60
      return sql<RawBucket>`
        WITH r AS (
          SELECT hour AS ts, dex_buy_usd AS b, dex_sell_usd AS s, exchange_deposit_usd AS d, exchange_withdraw_usd AS w,
            dex_buys + dex_sells + exchange_withdraws + exchange_deposits AS n
          FROM whale_flow_hourly WHERE hour >= ${iso(s.from)} AND hour < ${iso(hoursTo)} AND whale_counted(wallet)
          UNION ALL
          SELECT ts, CASE WHEN category = 'dex_buy' THEN coalesce(usd, 0) ELSE 0 END,
            CASE WHEN category = 'dex_sell' THEN coalesce(usd, 0) ELSE 0 END,
            CASE WHEN category = 'exchange_deposit' THEN coalesce(usd, 0) ELSE 0 END,
            CASE WHEN category = 'exchange_withdraw' THEN coalesce(usd, 0) ELSE 0 END, 1
          FROM whale_tx WHERE ts >= ${iso(hoursTo)} AND ts < ${iso(s.to)} AND category <> 'exchange_housekeeping' AND whale_counted(wallet)
        )
        SELECT floor(extract(epoch FROM r.ts - ${iso(s.from)}::timestamptz) / ${sec})::int AS b,
          sum(r.b) AS dex_buy_usd, sum(r.s) AS dex_sell_usd, sum(r.d) AS exchange_deposit_usd,
          sum(r.w) AS exchange_withdraw_usd, sum(r.n)::int AS records
        FROM r GROUP BY 1 ORDER BY 1`.pipe(Effect.orDie)
    }

    return spanned("FlowRepo", { dataSince, figures, topTokens, activeWallets, buckets } as const)
  })
}) {}
