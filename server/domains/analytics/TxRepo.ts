/**
 * SQL of record-level reads: pages of whale transactions (newest first by id; each filter walks its own index, see
 * migration 0031), token lookup by symbol, and the tracked-wallet search.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { WhaleCategory, WhaleTx } from "../../../schema/records"
import type { WalletRow } from "../chain/Types"
import { spanned } from "../../platform/ops/Spans"

/** A page row: the record as the HTTP `WhaleTrade` lists it (without `log_index` and `counter_token`), `ts` as read. */
export type TxRow = Readonly<Omit<WhaleTx, "log_index" | "counter_token" | "ts"> & { ts: Date }>

export interface TxFilter {
  readonly beforeId?: number | undefined
  readonly tokens?: ReadonlyArray<string> | undefined
  readonly wallet?: string | undefined
  readonly category?: WhaleCategory | undefined
  readonly limit: number
}

/** A wallet search hit: the tracked wallet with its last 7 days. */
export type WalletSearchRow = Pick<WalletRow, "address" | "label" | "cohort" | "active"> & {
  readonly net_flow_7d_usd: number
  readonly trades_7d: number
  readonly last_active_day: string | null
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)

export class TxRepo extends Effect.Service<TxRepo>()("app/analytics/TxRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const page = (f: TxFilter) => {
      const where = [
        ...(f.beforeId !== undefined ? [sql`x.id < ${f.beforeId}`] : []),
        ...(f.tokens !== undefined ? [sql`x.token IN ${sql.in(f.tokens.length > 0 ? f.tokens : [""])}`] : []),
        ...(f.wallet !== undefined ? [sql`x.wallet = ${f.wallet}`] : []),
        // Exchange housekeeping is listed only when asked for by its category (it is no flow).
        f.category !== undefined ? sql`x.category = ${f.category}` : sql`x.category <> 'exchange_housekeeping'`
      ]
      return sql<TxRow>`
        SELECT x.id, x.tx_hash, x.block_number AS block, x.ts, x.wallet, w.label AS wallet_label, x.token, x.symbol,
          x.category, x.amount::text AS amount, x.usd, x.price_usd, x.counter_symbol, x.venue, x.source
        FROM whale_tx x LEFT JOIN tracked_wallets w ON w.address = x.wallet
        WHERE ${sql.and(where)}
        ORDER BY x.id DESC LIMIT ${f.limit}`.pipe(Effect.orDie)
    }

    /** Addresses of the tokens with this symbol (case-insensitive). */
    const tokensBySymbol = (symbol: string) => sql<{ address: string }>`
      SELECT address FROM tokens WHERE upper(symbol) = upper(${symbol})`.pipe(Effect.map((rows) => rows.map((r) => r.address)), Effect.orDie)

    /**
     * Tracked wallets whose address starts with `q` or whose label contains it, with their last 7 days. Wallets that
     * users monitor privately (source `custom`) are theirs alone and never found here.
     */
    const searchWallets = (q: string, limit: number, since7: string) => {
      const needle = likeEscape(q.toLowerCase())
      return sql<WalletSearchRow>`
        WITH found AS (
          SELECT address, label, cohort, active, 0 AS rank FROM tracked_wallets
          WHERE source <> 'custom' AND ${needle.startsWith("0x") ? sql`address LIKE ${`${needle}%`}` : sql`false`}
          UNION ALL
          SELECT address, label, cohort, active, CASE WHEN lower(label) LIKE ${`${needle}%`} THEN 1 ELSE 2 END FROM tracked_wallets
          WHERE source <> 'custom' AND lower(label) LIKE ${`%${needle}%`}
        ), best AS (
          SELECT DISTINCT ON (address) * FROM found ORDER BY address, rank
        ), picked AS (
          SELECT * FROM best ORDER BY rank, active DESC, label, address LIMIT ${limit}
        )
        SELECT p.address, p.label, p.cohort, p.active,
          coalesce(a.net, 0) AS net_flow_7d_usd, coalesce(a.trades, 0)::int AS trades_7d, a.last_day AS last_active_day
        FROM picked p LEFT JOIN LATERAL (
          SELECT sum(dex_buy_usd - dex_sell_usd + exchange_withdraw_usd - exchange_deposit_usd) AS net,
            sum(dex_buys + dex_sells + exchange_withdraws + exchange_deposits) AS trades, max(day)::text AS last_day
          FROM whale_flow_daily WHERE wallet = p.address AND day >= ${since7}::date
        ) a ON true
        ORDER BY p.rank, p.active DESC, p.label, p.address`.pipe(Effect.orDie)
    }

    return spanned("TxRepo", { page, tokensBySymbol, searchWallets } as const)
  })
}) {}
