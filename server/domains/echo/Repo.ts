/**
 * SQL of Echo's own tables (migration 0060). Every write of a user's book happens inside `EchoBook.apply`'s
 * transaction after `lock` (the portfolio row, `FOR UPDATE`), so two writers of one user — HTTP on several
 * processes, the actor on another — are serialized by PostgreSQL.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Book, Holding } from "./Ledger"
import { inTransaction } from "../../platform/infra/Sql"
import { spanned } from "../../platform/ops/Spans"

export interface PortfolioRow {
  readonly user_id: number
  readonly start_cash: number
  readonly cash: number
  readonly realized: number
  readonly resets: number
  readonly started_at: Date
  readonly version: number
}

export interface TradeRow {
  readonly id: number
  readonly user_id: number
  readonly command_id: string
  readonly origin: "manual" | "copy" | "auto" | "retraction"
  readonly side: "BUY" | "SELL"
  readonly token: string
  readonly symbol: string
  readonly quantity: number
  readonly price: number
  readonly usd: number
  readonly market_price: number
  readonly whale_price: number | null
  readonly slippage_bps: number
  readonly gas_usd: number
  readonly delay_blocks: number
  readonly fill_block: number | null
  readonly liquidity_usd: number | null
  readonly realized_pnl: number | null
  readonly entry_price: number | null
  readonly opened_at: Date | null
  readonly whale_tx_hash: string | null
  readonly whale_log: number | null
  readonly whale_wallet: string | null
  readonly whale_block: number | null
  readonly whale_usd: number | null
  readonly reverses: number | null
  readonly created_at: Date
}

export type NewTrade = Omit<TradeRow, "id" | "created_at">

export interface AutoCopyRow {
  readonly user_id: number
  readonly wallet: string
  readonly mode: "fixed" | "fraction"
  readonly amount: number
  readonly cap_usd: number
  readonly copy_sells: boolean
  readonly enabled: boolean
}

export interface ShadowRow {
  readonly id: number
  readonly reason: string
  readonly side: "BUY" | "SELL"
  readonly token: string
  readonly symbol: string
  readonly usd: number
  readonly price: number | null
  readonly quantity: number | null
  readonly whale_tx_hash: string
  readonly created_at: Date
}

const TRADE_COLUMNS = `id, user_id, command_id, origin, side, token, symbol, quantity, price, usd, market_price, whale_price, slippage_bps,
  gas_usd, delay_blocks, fill_block, liquidity_usd, realized_pnl, entry_price, opened_at, whale_tx_hash, whale_log, whale_wallet,
  whale_block, whale_usd, reverses, created_at`

export class EchoRepo extends Effect.Service<EchoRepo>()("app/echo/EchoRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.unsafe(TRADE_COLUMNS)

    const holdingsOf = (userId: number) => sql<{ token: string; symbol: string; quantity: number; cost: number; opened_at: Date }>`
      SELECT token, symbol, quantity, cost, opened_at FROM echo_holdings WHERE user_id = ${userId} ORDER BY token`

    const toBook = (p: PortfolioRow, hs: ReadonlyArray<{ token: string; symbol: string; quantity: number; cost: number; opened_at: Date }>): Book => ({
      cash: p.cash,
      realized: p.realized,
      holdings: new Map(hs.map((h): [string, Holding] => [h.token, { token: h.token, symbol: h.symbol, quantity: h.quantity, cost: h.cost, openedAt: h.opened_at }]))
    })

    return spanned("EchoRepo", {
      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => inTransaction(sql, effect),

      /** Creates the portfolio on first use, then locks its row (inside a transaction) and loads the book. */
      lock: (userId: number, startCash: number) =>
        Effect.gen(function* () {
          yield* sql`INSERT INTO echo_portfolios (user_id, start_cash, cash) VALUES (${userId}, ${startCash}, ${startCash}) ON CONFLICT (user_id) DO NOTHING`
          const [p] = yield* sql<PortfolioRow>`
            SELECT user_id, start_cash, cash, realized, resets, started_at, version FROM echo_portfolios WHERE user_id = ${userId} FOR UPDATE`
          return { portfolio: p!, book: toBook(p!, yield* holdingsOf(userId)) }
        }).pipe(Effect.orDie),

      /**
       * The narrow lock of one trade: the portfolio row (created on first use) locked, with only the traded token's
       * holding and the trade an earlier delivery of this command already stored (if any). Inside a transaction.
       */
      lockFor: (userId: number, startCash: number, token: string, commandId: string) =>
        Effect.gen(function* () {
          // The lock alone first: rows joined to a FOR UPDATE would come from the statement's snapshot, taken before
          // the wait (READ COMMITTED re-checks only the locked row). What is read after it is current.
          const lockRow = () => sql<PortfolioRow>`
            SELECT user_id, start_cash, cash, realized, resets, started_at, version FROM echo_portfolios WHERE user_id = ${userId} FOR UPDATE`
          let [p] = yield* lockRow()
          if (!p) {
            yield* sql`INSERT INTO echo_portfolios (user_id, start_cash, cash) VALUES (${userId}, ${startCash}, ${startCash}) ON CONFLICT (user_id) DO NOTHING`
            ;[p] = yield* lockRow()
          }
          const [r] = yield* sql<{ h_symbol: string | null; h_quantity: number | null; h_cost: number | null; h_opened: Date | null; existing: number | null; existing_user: number | null }>`
            SELECT h.symbol AS h_symbol, h.quantity AS h_quantity, h.cost AS h_cost, h.opened_at AS h_opened, e.id AS existing, e.user_id AS existing_user
            FROM (SELECT 1) one
            LEFT JOIN echo_holdings h ON h.user_id = ${userId} AND h.token = ${token}
            LEFT JOIN echo_trades e ON e.command_id = ${commandId}`
          const holdings = new Map<string, Holding>()
          if (r!.h_quantity !== null) holdings.set(token, { token, symbol: r!.h_symbol!, quantity: r!.h_quantity, cost: r!.h_cost!, openedAt: r!.h_opened! })
          return { portfolio: p!, book: { cash: p!.cash, realized: p!.realized, holdings } as Book, existing: r!.existing === null ? null : { id: r!.existing, userId: r!.existing_user! } }
        }).pipe(Effect.orDie),

      /** The portfolio with its holdings and their live prices, in one query; null before the first use. */
      // Reads whale_tx (the chain's) inside the holdings' aggregate: split, the one statement per request becomes two.
      readPriced: (userId: number) =>
        Effect.gen(function* () {
          const [p] = yield* sql<PortfolioRow & { holdings: Array<{ token: string; symbol: string; quantity: number; cost: number; opened_at: string; price: number | null }> | null }>`
            SELECT p.user_id, p.start_cash, p.cash, p.realized, p.resets, p.started_at, p.version,
              (SELECT json_agg(json_build_object('token', h.token, 'symbol', h.symbol, 'quantity', h.quantity::float8, 'cost', h.cost::float8,
                  'opened_at', h.opened_at, 'price', (SELECT x.price_usd::float8 FROM whale_tx x WHERE x.token = h.token AND x.price_usd > 0 ORDER BY x.id DESC LIMIT 1)))
                FROM echo_holdings h WHERE h.user_id = p.user_id) AS holdings
            FROM echo_portfolios p WHERE p.user_id = ${userId}`
          if (!p) return null
          const hs = p.holdings ?? []
          const book: Book = {
            cash: p.cash, realized: p.realized,
            holdings: new Map(hs.map((h): [string, Holding] => [h.token, { token: h.token, symbol: h.symbol, quantity: h.quantity, cost: h.cost, openedAt: new Date(h.opened_at) }]))
          }
          const prices = new Map(hs.filter((h) => h.price !== null).map((h) => [h.token, h.price!] as const))
          return { portfolio: p as PortfolioRow, book, prices }
        }).pipe(Effect.orDie),

      /** The portfolio and book without a lock (reads); null before the first use. */
      read: (userId: number) =>
        Effect.gen(function* () {
          const [p] = yield* sql<PortfolioRow>`
            SELECT user_id, start_cash, cash, realized, resets, started_at, version FROM echo_portfolios WHERE user_id = ${userId}`
          if (!p) return null
          return { portfolio: p, book: toBook(p, yield* holdingsOf(userId)) }
        }).pipe(Effect.orDie),

      /** Stores the book's cash/realized and the one holding a trade touched; bumps the version. */
      save: (userId: number, book: Book, token: string) =>
        Effect.gen(function* () {
          const h = book.holdings.get(token)
          if (h) {
            yield* sql`
              INSERT INTO echo_holdings (user_id, token, symbol, quantity, cost, opened_at)
              VALUES (${userId}, ${token}, ${h.symbol}, ${h.quantity}, ${h.cost}, ${h.openedAt})
              ON CONFLICT (user_id, token) DO UPDATE SET quantity = EXCLUDED.quantity, cost = EXCLUDED.cost`
          } else {
            yield* sql`DELETE FROM echo_holdings WHERE user_id = ${userId} AND token = ${token}`
          }
          const [row] = yield* sql<{ version: number }>`
            UPDATE echo_portfolios SET cash = ${book.cash}, realized = ${book.realized}, updated_at = now(), version = version + 1
            WHERE user_id = ${userId} RETURNING version`
          return row!.version
        }).pipe(Effect.orDie),

      insertTrade: (t: NewTrade) =>
        sql<TradeRow>`INSERT INTO echo_trades ${sql.insert(t as any)} RETURNING ${cols}`.pipe(Effect.map((r) => r[0]!), Effect.orDie),

      tradeById: (id: number) =>
        sql<TradeRow>`SELECT ${cols} FROM echo_trades WHERE id = ${id}`.pipe(Effect.map((r) => r[0] ?? null), Effect.orDie),

      tradeByCommand: (commandId: string) =>
        sql<TradeRow>`SELECT ${cols} FROM echo_trades WHERE command_id = ${commandId}`.pipe(Effect.map((r) => r[0] ?? null), Effect.orDie),

      outcomeOf: (commandId: string) =>
        sql<{ user_id: number; outcome: unknown }>`SELECT user_id, outcome FROM echo_commands WHERE command_id = ${commandId}`.pipe(
          Effect.map((r) => r[0] ?? null), Effect.orDie),

      recordOutcome: (commandId: string, userId: number, outcome: unknown) =>
        sql`INSERT INTO echo_commands (command_id, user_id, outcome) VALUES (${commandId}, ${userId}, ${JSON.stringify(outcome)}::jsonb)
            ON CONFLICT (command_id) DO NOTHING`.pipe(Effect.asVoid, Effect.orDie),

      tradesPage: (userId: number, limit: number, offset: number) =>
        Effect.all([
          sql<TradeRow>`SELECT ${cols} FROM echo_trades WHERE user_id = ${userId} ORDER BY id DESC LIMIT ${limit} OFFSET ${offset}`,
          sql<{ n: number }>`SELECT count(*)::int AS n FROM echo_trades WHERE user_id = ${userId}`
        ]).pipe(Effect.map(([rows, [n]]) => ({ rows, total: n!.n })), Effect.orDie),

      allTrades: (userId: number) => sql<TradeRow>`SELECT ${cols} FROM echo_trades WHERE user_id = ${userId} ORDER BY id`.pipe(Effect.orDie),

      /** Trades that copied a whale record (retractions undo them). */
      copiesOf: (txHash: string, log: number) =>
        sql<TradeRow>`SELECT ${cols} FROM echo_trades WHERE whale_tx_hash = ${txHash} AND whale_log = ${log} AND origin IN ('copy', 'auto')
          AND NOT EXISTS (SELECT 1 FROM echo_trades r WHERE r.reverses = echo_trades.id)`.pipe(Effect.orDie),

      /** Back to the starting balance; holdings, trades and shadow positions wiped; the reset is counted. */
      reset: (userId: number, startCash: number) =>
        Effect.gen(function* () {
          yield* sql`DELETE FROM echo_holdings WHERE user_id = ${userId}`
          yield* sql`DELETE FROM echo_trades WHERE user_id = ${userId}`
          yield* sql`DELETE FROM echo_shadow WHERE user_id = ${userId}`
          yield* sql`
            UPDATE echo_portfolios SET start_cash = ${startCash}, cash = ${startCash}, realized = 0, resets = resets + 1, started_at = now(),
              updated_at = now(), version = version + 1 WHERE user_id = ${userId}`
        }).pipe(Effect.orDie),

      // ---- auto-copy and shadow positions ----
      rules: (userId: number) =>
        sql<AutoCopyRow>`SELECT user_id, wallet, mode, amount, cap_usd, copy_sells, enabled FROM echo_autocopy WHERE user_id = ${userId} ORDER BY created_at`.pipe(Effect.orDie),
      /** The enabled auto-copy rules on any of `wallets` (one query for a read of the stream). */
      followersOf: (wallets: ReadonlyArray<string>) =>
        wallets.length === 0
          ? Effect.succeed([] as ReadonlyArray<AutoCopyRow>)
          : sql<AutoCopyRow>`SELECT user_id, wallet, mode, amount, cap_usd, copy_sells, enabled FROM echo_autocopy WHERE wallet = ANY(${wallets}::text[]) AND enabled`.pipe(Effect.orDie),
      upsertRule: (r: AutoCopyRow) =>
        sql`INSERT INTO echo_autocopy (user_id, wallet, mode, amount, cap_usd, copy_sells, enabled)
            VALUES (${r.user_id}, ${r.wallet}, ${r.mode}, ${r.amount}, ${r.cap_usd}, ${r.copy_sells}, ${r.enabled})
            ON CONFLICT (user_id, wallet) DO UPDATE SET mode = EXCLUDED.mode, amount = EXCLUDED.amount, cap_usd = EXCLUDED.cap_usd,
              copy_sells = EXCLUDED.copy_sells, enabled = EXCLUDED.enabled`.pipe(Effect.asVoid, Effect.orDie),
      deleteRule: (userId: number, wallet: string) =>
        sql<{ wallet: string }>`DELETE FROM echo_autocopy WHERE user_id = ${userId} AND wallet = ${wallet} RETURNING wallet`.pipe(
          Effect.map((r) => r.length > 0), Effect.orDie),
      countRules: (userId: number) =>
        sql<{ n: number }>`SELECT count(*)::int AS n FROM echo_autocopy WHERE user_id = ${userId}`.pipe(Effect.map((r) => r[0]!.n), Effect.orDie),

      insertShadow: (s: { user_id: number; command_id: string; reason: string; side: "BUY" | "SELL"; token: string; symbol: string; usd: number; price: number | null; quantity: number | null; whale_tx_hash: string; whale_log: number; whale_wallet: string }) =>
        sql`INSERT INTO echo_shadow ${sql.insert(s as any)} ON CONFLICT (command_id) DO NOTHING`.pipe(Effect.asVoid, Effect.orDie),
      shadows: (userId: number, limit: number) =>
        sql<ShadowRow>`SELECT id, reason, side, token, symbol, usd, price, quantity, whale_tx_hash, created_at FROM echo_shadow
          WHERE user_id = ${userId} ORDER BY id DESC LIMIT ${limit}`.pipe(Effect.orDie),
      deleteShadowsOf: (txHash: string, log: number) =>
        sql`DELETE FROM echo_shadow WHERE whale_tx_hash = ${txHash} AND whale_log = ${log}`.pipe(Effect.asVoid, Effect.orDie),

      // ---- leaderboard ----
      boardCandidates: () =>
        sql<{ user_id: number; display_name: string | null; start_cash: number; cash: number; realized: number; resets: number; started_at: Date; trades: number }>`
          SELECT p.user_id, u.display_name, p.start_cash, p.cash, p.realized, p.resets, p.started_at,
            (SELECT count(*)::int FROM echo_trades t WHERE t.user_id = p.user_id AND t.origin <> 'retraction') AS trades
          FROM echo_portfolios p JOIN users u ON u.id = p.user_id`.pipe(Effect.orDie),
      allHoldings: () => sql<{ user_id: number; token: string; quantity: number; cost: number }>`
          SELECT user_id, token, quantity, cost FROM echo_holdings`.pipe(Effect.orDie),
      closedReturns: () => sql<{ user_id: number; pnl: number; basis: number }>`
          SELECT user_id, realized_pnl AS pnl, (usd - gas_usd - realized_pnl) AS basis FROM echo_trades
          WHERE side = 'SELL' AND realized_pnl IS NOT NULL AND origin <> 'retraction'`.pipe(Effect.orDie),

      // ---- settings ----
      settings: () => sql<{ key: string; value: unknown; updated_at: Date }>`SELECT key, value, updated_at FROM echo_settings`.pipe(Effect.orDie),
      setSetting: (key: string, value: unknown, by: number) =>
        sql`INSERT INTO echo_settings (key, value, updated_at, updated_by) VALUES (${key}, ${JSON.stringify(value)}::jsonb, clock_timestamp(), ${by})
            ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by`.pipe(
          Effect.asVoid, Effect.orDie)
    } as const)
  })
}) {}
