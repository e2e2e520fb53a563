/**
 * The SQL of a batch of Echo trades (EchoBatch): one read of `echo.cmd` holding many users' commands is applied in
 * one transaction of a fixed number of statements, whatever its size — the portfolio rows locked in user order, the
 * books and earlier outcomes loaded in one statement, then one `INSERT … SELECT FROM unnest(…)` (or UPDATE … FROM
 * unnest) per table, as the block listener's batched insert does. Each column travels as one array literal.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { arrayLiteral, type ArrayElement } from "../../platform/infra/PgArray"
import type { Holding } from "./Ledger"
import type { NewTrade, PortfolioRow, TradeRow } from "./Repo"
import { spanned } from "../../platform/ops/Spans"

/** An earlier delivery's result: a stored trade, or a recorded outcome (a rejection). */
export interface Earlier {
  readonly command_id: string
  readonly user_id: number
  readonly trade_id: number | null
}

export interface BookRows {
  readonly portfolios: ReadonlyArray<PortfolioRow>
  readonly holdings: ReadonlyArray<Holding & { readonly userId: number }>
  readonly earlier: ReadonlyArray<Earlier>
  /** Latest price of every token these users hold (for the valuation pushed after the commit). */
  readonly prices: ReadonlyMap<string, number>
}

const TRADE_COLUMNS = `id, user_id, command_id, origin, side, token, symbol, quantity, price, usd, market_price, whale_price, slippage_bps,
  gas_usd, delay_blocks, fill_block, liquidity_usd, realized_pnl, entry_price, opened_at, whale_tx_hash, whale_log, whale_wallet,
  whale_block, whale_usd, reverses, created_at`

export class EchoBatchRepo extends Effect.Service<EchoBatchRepo>()("app/echo/EchoBatchRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ids = (xs: ReadonlyArray<number>) => arrayLiteral(xs, (x) => x)

    /** Locks the portfolio rows in user order (two batches never deadlock), creating the missing ones. In a transaction. */
    const lockMany = (userIds: ReadonlyArray<number>, startCash: number) =>
      Effect.gen(function* () {
        const sorted = [...new Set(userIds)].sort((a, b) => a - b)
        const lock = (us: ReadonlyArray<number>) => sql<PortfolioRow>`
          SELECT user_id, start_cash, cash, realized, resets, started_at, version FROM echo_portfolios
          WHERE user_id = ANY(${ids(us)}::int8[]) ORDER BY user_id FOR UPDATE`
        const rows = [...(yield* lock(sorted))]
        if (rows.length < sorted.length) {
          const have = new Set(rows.map((r) => Number(r.user_id)))
          const missing = sorted.filter((u) => !have.has(u))
          yield* sql`INSERT INTO echo_portfolios (user_id, start_cash, cash)
            SELECT u, ${startCash}, ${startCash} FROM unnest(${ids(missing)}::int8[]) u ORDER BY u ON CONFLICT (user_id) DO NOTHING`
          rows.push(...(yield* lock(missing)))
        }
        return rows
      })

    /** The holdings of these users, what earlier deliveries of these commands left, and the held tokens' prices: one statement. */
    const load = (userIds: ReadonlyArray<number>, commandIds: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const us = ids([...new Set(userIds)])
        const cs = arrayLiteral(commandIds, (c) => c)
        const [r] = yield* sql<{
          holdings: Array<{ user_id: number; token: string; symbol: string; quantity: number; cost: number; opened_at: string }> | null
          earlier: Array<{ command_id: string; user_id: number; trade_id: number | null }> | null
          prices: Array<{ token: string; price: number | null }> | null
        }>`
          SELECT
            (SELECT json_agg(json_build_object('user_id', h.user_id, 'token', h.token, 'symbol', h.symbol, 'quantity', h.quantity::float8,
                'cost', h.cost::float8, 'opened_at', h.opened_at)) FROM echo_holdings h WHERE h.user_id = ANY(${us}::int8[])) AS holdings,
            (SELECT json_agg(e) FROM (
                SELECT t.command_id, t.user_id, t.id AS trade_id FROM echo_trades t WHERE t.command_id = ANY(${cs}::text[])
                UNION ALL SELECT c.command_id, c.user_id, NULL FROM echo_commands c WHERE c.command_id = ANY(${cs}::text[])) e) AS earlier,
            (SELECT json_agg(json_build_object('token', d.token, 'price',
                (SELECT x.price_usd::float8 FROM whale_tx x WHERE x.token = d.token AND x.price_usd > 0 ORDER BY x.id DESC LIMIT 1)))
              FROM (SELECT DISTINCT token FROM echo_holdings WHERE user_id = ANY(${us}::int8[])) d) AS prices`
        return {
          holdings: (r!.holdings ?? []).map((h) => ({
            userId: Number(h.user_id), token: h.token, symbol: h.symbol, quantity: h.quantity, cost: h.cost, openedAt: new Date(h.opened_at)
          })),
          earlier: (r!.earlier ?? []).map((e) => ({ command_id: e.command_id, user_id: Number(e.user_id), trade_id: e.trade_id === null ? null : Number(e.trade_id) })),
          prices: new Map((r!.prices ?? []).filter((p) => p.price !== null).map((p) => [p.token, p.price!] as const))
        }
      })

    /** Writes the holdings each touched (user, token) ends with: upserted, or deleted when sold out. */
    const saveHoldings = (kept: ReadonlyArray<Holding & { readonly userId: number }>, gone: ReadonlyArray<{ readonly userId: number; readonly token: string }>) =>
      Effect.gen(function* () {
        if (kept.length > 0) {
          const col = (pick: (h: Holding & { readonly userId: number }) => ArrayElement) => arrayLiteral(kept, pick)
          yield* sql`
            INSERT INTO echo_holdings (user_id, token, symbol, quantity, cost, opened_at)
            SELECT * FROM unnest(${col((h) => h.userId)}::int8[], ${col((h) => h.token)}::text[], ${col((h) => h.symbol)}::text[],
              ${col((h) => h.quantity)}::numeric[], ${col((h) => h.cost)}::numeric[], ${col((h) => h.openedAt.toISOString())}::timestamptz[])
            ON CONFLICT (user_id, token) DO UPDATE SET quantity = EXCLUDED.quantity, cost = EXCLUDED.cost`
        }
        if (gone.length > 0) {
          yield* sql`DELETE FROM echo_holdings h USING unnest(${arrayLiteral(gone, (g) => g.userId)}::int8[], ${arrayLiteral(gone, (g) => g.token)}::text[]) AS d(u, t)
            WHERE h.user_id = d.u AND h.token = d.t`
        }
      })

    /** Cash and realized P&L of each changed portfolio; the version moves by its number of applied trades. */
    const savePortfolios = (rows: ReadonlyArray<{ readonly userId: number; readonly cash: number; readonly realized: number; readonly applied: number }>) =>
      rows.length === 0
        ? Effect.succeed([] as ReadonlyArray<{ user_id: number; version: number }>)
        : sql<{ user_id: number; version: number }>`
          UPDATE echo_portfolios p SET cash = d.cash, realized = d.realized, updated_at = now(), version = p.version + d.n
          FROM unnest(${arrayLiteral(rows, (r) => r.userId)}::int8[], ${arrayLiteral(rows, (r) => r.cash)}::numeric[],
            ${arrayLiteral(rows, (r) => r.realized)}::numeric[], ${arrayLiteral(rows, (r) => r.applied)}::int[]) AS d(u, cash, realized, n)
          WHERE p.user_id = d.u RETURNING p.user_id, p.version`

    /** The batch's trades in one statement, in the given order (their ids follow it). */
    const insertTrades = (trades: ReadonlyArray<NewTrade>) => {
      if (trades.length === 0) return Effect.succeed([] as ReadonlyArray<TradeRow>)
      const col = (pick: (t: NewTrade) => ArrayElement) => arrayLiteral(trades, pick)
      return sql<TradeRow>`
        INSERT INTO echo_trades (user_id, command_id, origin, side, token, symbol, quantity, price, usd, market_price, whale_price,
          slippage_bps, gas_usd, delay_blocks, fill_block, liquidity_usd, realized_pnl, entry_price, opened_at)
        SELECT u, c, o, s, tk, sy, q, pr, usd, mp, wp, sl, g, db, fb, lq, rp, ep, oa FROM unnest(
          ${col((t) => t.user_id)}::int8[], ${col((t) => t.command_id)}::text[], ${col((t) => t.origin)}::text[], ${col((t) => t.side)}::text[],
          ${col((t) => t.token)}::text[], ${col((t) => t.symbol)}::text[], ${col((t) => t.quantity)}::numeric[], ${col((t) => t.price)}::numeric[],
          ${col((t) => t.usd)}::numeric[], ${col((t) => t.market_price)}::numeric[], ${col((t) => t.whale_price)}::numeric[],
          ${col((t) => t.slippage_bps)}::numeric[], ${col((t) => t.gas_usd)}::numeric[], ${col((t) => t.delay_blocks)}::int[],
          ${col((t) => t.fill_block)}::int8[], ${col((t) => t.liquidity_usd)}::numeric[], ${col((t) => t.realized_pnl)}::numeric[],
          ${col((t) => t.entry_price)}::numeric[], ${col((t) => t.opened_at?.toISOString() ?? null)}::timestamptz[])
          WITH ORDINALITY AS i(u, c, o, s, tk, sy, q, pr, usd, mp, wp, sl, g, db, fb, lq, rp, ep, oa, n)
        ORDER BY n
        RETURNING ${sql.unsafe(TRADE_COLUMNS)}`
    }

    /** Outcomes of the batch's rejected commands (kept once: a redelivery finds them). */
    const recordOutcomes = (rows: ReadonlyArray<{ readonly commandId: string; readonly userId: number; readonly outcome: unknown }>) =>
      rows.length === 0
        ? Effect.void
        : sql`INSERT INTO echo_commands (command_id, user_id, outcome)
            SELECT * FROM unnest(${arrayLiteral(rows, (r) => r.commandId)}::text[], ${arrayLiteral(rows, (r) => r.userId)}::int8[],
              ${arrayLiteral(rows, (r) => JSON.stringify(r.outcome))}::jsonb[])
            ON CONFLICT (command_id) DO NOTHING`.pipe(Effect.asVoid)

    /** The tokens each of these users holds (entities that only looked: `Touch`). */
    const heldTokensOf = (userIds: ReadonlyArray<number>) =>
      sql<{ user_id: number; token: string }>`SELECT user_id, token FROM echo_holdings WHERE user_id = ANY(${ids(userIds)}::int8[])`.pipe(Effect.orDie)

    return spanned("EchoBatchRepo", {
      lockMany: (userIds: ReadonlyArray<number>, startCash: number) => lockMany(userIds, startCash).pipe(Effect.orDie),
      load: (userIds: ReadonlyArray<number>, commandIds: ReadonlyArray<string>) => load(userIds, commandIds).pipe(Effect.orDie),
      saveHoldings: (kept: ReadonlyArray<Holding & { readonly userId: number }>, gone: ReadonlyArray<{ readonly userId: number; readonly token: string }>) =>
        saveHoldings(kept, gone).pipe(Effect.orDie),
      savePortfolios: (rows: ReadonlyArray<{ readonly userId: number; readonly cash: number; readonly realized: number; readonly applied: number }>) =>
        savePortfolios(rows).pipe(Effect.orDie),
      insertTrades: (trades: ReadonlyArray<NewTrade>) => insertTrades(trades).pipe(Effect.orDie),
      recordOutcomes: (rows: ReadonlyArray<{ readonly commandId: string; readonly userId: number; readonly outcome: unknown }>) => recordOutcomes(rows).pipe(Effect.orDie),
      heldTokensOf
    } as const)
  })
}) {}
