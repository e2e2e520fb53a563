/**
 * SQL of the flow read models: per-token figures of a sliding window (hourly roll-up + the partial edge hours of
 * whale_tx through its ts index), site figures, and per token × wallet net flows of the last 30 days (daily
 * roll-up) for positioning. Database faults are defects here.
 *
 * Whales only unless `scope = all` (Whales.ts: one anti-join on wallet_identity per statement). Exchange housekeeping
 * is in no roll-up (migration 0120) and is skipped at the edges too.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { countedWallet, type Scope } from "./Whales"
import type { Window } from "./Windows"
import { spanned } from "../../platform/ops/Spans"

/** One token's figures in a window. `whales`: distinct wallets with DEX trades. */
export interface TokenWindowRow {
  readonly token: string
  readonly symbol: string
  readonly stable: boolean
  readonly blacklisted: boolean
  readonly dex_buy_usd: number
  readonly dex_sell_usd: number
  readonly exchange_withdraw_usd: number
  readonly exchange_deposit_usd: number
  readonly dex_trades: number
  readonly records: number
  readonly whales: number
}

export interface WalletTokenRow {
  readonly token: string
  readonly symbol: string
  readonly wallet: string
  readonly label: string | null
  readonly cohort: "mega" | "large" | "mid" | "small" | null
  readonly net7: number
  readonly gross7: number
  readonly net30: number
  readonly gross30: number
}

export class FlowsRepo extends Effect.Service<FlowsRepo>()("app/analytics/FlowsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const tokenWindow = (w: Window, scope: Scope = "whales") => sql<TokenWindowRow>`
      WITH r AS (
        SELECT token, wallet, symbol, dex_buy_usd AS b, dex_sell_usd AS s, exchange_withdraw_usd AS w,
          exchange_deposit_usd AS d, dex_buys AS nb, dex_sells AS ns, exchange_withdraws AS nw, exchange_deposits AS nd
        FROM whale_flow_hourly WHERE hour >= ${w.fullFrom} AND hour < ${w.fullTo}
        UNION ALL
        SELECT token, wallet, symbol,
          CASE WHEN category = 'dex_buy' THEN coalesce(usd, 0) ELSE 0 END,
          CASE WHEN category = 'dex_sell' THEN coalesce(usd, 0) ELSE 0 END,
          CASE WHEN category = 'exchange_withdraw' THEN coalesce(usd, 0) ELSE 0 END,
          CASE WHEN category = 'exchange_deposit' THEN coalesce(usd, 0) ELSE 0 END,
          (category = 'dex_buy')::int, (category = 'dex_sell')::int,
          (category = 'exchange_withdraw')::int, (category = 'exchange_deposit')::int
        FROM whale_tx WHERE ((ts > ${w.from} AND ts < ${w.fullFrom}) OR (ts >= ${w.fullTo} AND ts <= ${w.to}))
          AND category <> 'exchange_housekeeping'
      )
      SELECT r.token, coalesce(t.symbol, max(r.symbol)) AS symbol,
        coalesce(t.stable, false) AS stable, coalesce(t.blacklisted, false) AS blacklisted,
        sum(r.b) AS dex_buy_usd, sum(r.s) AS dex_sell_usd, sum(r.w) AS exchange_withdraw_usd, sum(r.d) AS exchange_deposit_usd,
        sum(r.nb + r.ns)::int AS dex_trades, sum(r.nb + r.ns + r.nw + r.nd)::int AS records,
        count(DISTINCT r.wallet) FILTER (WHERE r.nb + r.ns > 0)::int AS whales
      FROM r LEFT JOIN tokens t ON t.address = r.token
      WHERE ${countedWallet(sql, scope, "r.wallet")}
      GROUP BY r.token, t.symbol, t.stable, t.blacklisted`.pipe(Effect.orDie)

    /** Active tracked wallets (whales only: not those the identity engine holds for bots, routers, exchanges…). */
    const trackedWallets = (scope: Scope = "whales") => sql<{ n: number }>`
      SELECT count(*)::int AS n FROM tracked_wallets w WHERE w.active AND ${countedWallet(sql, scope, "w.address")}`.pipe(
      Effect.map((rows) => rows[0]?.n ?? 0),
      Effect.orDie
    )

    /** The newest block the listener saw, or the newest block with a record. */
    const latestBlock = sql<{ number: number; ts: Date }>`
      (SELECT number, ts FROM chain_blocks ORDER BY number DESC LIMIT 1)
      UNION ALL
      (SELECT block_number, ts FROM whale_tx ORDER BY block_number DESC LIMIT 1)
      ORDER BY number DESC LIMIT 1`.pipe(Effect.map((rows) => rows[0] ?? null), Effect.orDie)

    /** Records per source since `sinceDay` (flags demo data). */
    const sources = (sinceDay: string) => sql<{ source: string; records: number }>`
      SELECT source, sum(records)::int AS records FROM whale_source_daily WHERE day >= ${sinceDay}::date
      GROUP BY source`.pipe(Effect.orDie)

    /** Net (buys + withdrawals − sells − deposits) and gross USD per token × wallet, stablecoins and blacklist excluded. */
    const walletTokenFlows = (since30: string, since7: string, scope: Scope = "whales") => sql<WalletTokenRow>`
      SELECT f.token, coalesce(t.symbol, max(f.symbol)) AS symbol, f.wallet, w.label, w.cohort,
        coalesce(sum(f.dex_buy_usd - f.dex_sell_usd + f.exchange_withdraw_usd - f.exchange_deposit_usd)
          FILTER (WHERE f.day >= ${since7}::date), 0) AS net7,
        coalesce(sum(f.dex_buy_usd + f.dex_sell_usd + f.exchange_withdraw_usd + f.exchange_deposit_usd)
          FILTER (WHERE f.day >= ${since7}::date), 0) AS gross7,
        sum(f.dex_buy_usd - f.dex_sell_usd + f.exchange_withdraw_usd - f.exchange_deposit_usd) AS net30,
        sum(f.dex_buy_usd + f.dex_sell_usd + f.exchange_withdraw_usd + f.exchange_deposit_usd) AS gross30
      FROM whale_flow_daily f
        LEFT JOIN tokens t ON t.address = f.token
        LEFT JOIN tracked_wallets w ON w.address = f.wallet
      WHERE f.day >= ${since30}::date AND NOT coalesce(t.stable, false) AND NOT coalesce(t.blacklisted, false)
        AND ${countedWallet(sql, scope, "f.wallet")}
      GROUP BY f.token, t.symbol, f.wallet, w.label, w.cohort`.pipe(Effect.orDie)

    return spanned("FlowsRepo", { tokenWindow, trackedWallets, latestBlock, sources, walletTokenFlows } as const)
  })
}) {}
