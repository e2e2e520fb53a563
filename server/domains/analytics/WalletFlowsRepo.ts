/**
 * SQL of one wallet's flows, from the daily roll-up (`whale_flow_daily`, its `(wallet, day)` index): windows summed,
 * per token, per day. Every read is one index range of one wallet, bounded by its days (and a row limit for the
 * per-day rows). How the roll-up counts is the analytics domain's (migration 0030 and what follows); this only reads it.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { spanned } from "../../platform/ops/Spans"

export interface WalletFlowSums {
  readonly dex_buy_usd: number
  readonly dex_sell_usd: number
  readonly exchange_withdraw_usd: number
  readonly exchange_deposit_usd: number
  readonly trades: number
}

export interface WalletTokenSums extends WalletFlowSums {
  readonly token: string
  readonly symbol: string
}

export interface WalletDaySums extends WalletTokenSums {
  readonly day: string
}

const SUMS = `coalesce(sum(dex_buy_usd), 0)::float8 AS dex_buy_usd, coalesce(sum(dex_sell_usd), 0)::float8 AS dex_sell_usd,
  coalesce(sum(exchange_withdraw_usd), 0)::float8 AS exchange_withdraw_usd, coalesce(sum(exchange_deposit_usd), 0)::float8 AS exchange_deposit_usd,
  coalesce(sum(dex_buys + dex_sells + exchange_withdraws + exchange_deposits), 0)::int AS trades`

export class WalletFlowsRepo extends Effect.Service<WalletFlowsRepo>()("app/analytics/WalletFlowsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Sums from each of `since` days (ascending dates) to today, and the last day with records since the first. */
    const windows = (wallet: string, since: ReadonlyArray<string>) =>
      sql<WalletFlowSums & { since: string; last_day: string | null }>`
        SELECT s.since::text AS since, ${sql.literal(SUMS)}, max(f.day)::text AS last_day
        FROM unnest(${since}::date[]) AS s(since)
        LEFT JOIN whale_flow_daily f ON f.wallet = ${wallet} AND f.day >= s.since
        GROUP BY s.since ORDER BY s.since`.pipe(Effect.orDie)

    const tokens = (wallet: string, since: string, limit: number) =>
      sql<WalletTokenSums>`
        SELECT token, max(symbol) AS symbol, ${sql.literal(SUMS)}
        FROM whale_flow_daily WHERE wallet = ${wallet} AND day >= ${since}::date
        GROUP BY token
        ORDER BY sum(dex_buy_usd + dex_sell_usd + exchange_withdraw_usd + exchange_deposit_usd) DESC, token
        LIMIT ${limit}`.pipe(Effect.orDie)

    const days = (wallet: string, since: string, limit: number) =>
      sql<WalletDaySums>`
        SELECT day::text AS day, token, symbol, dex_buy_usd::float8 AS dex_buy_usd, dex_sell_usd::float8 AS dex_sell_usd,
          exchange_withdraw_usd::float8 AS exchange_withdraw_usd, exchange_deposit_usd::float8 AS exchange_deposit_usd,
          (dex_buys + dex_sells + exchange_withdraws + exchange_deposits)::int AS trades
        FROM whale_flow_daily WHERE wallet = ${wallet} AND day >= ${since}::date
        ORDER BY day DESC, token LIMIT ${limit}`.pipe(Effect.orDie)

    return spanned("WalletFlowsRepo", { windows, tokens, days } as const)
  })
}) {}
