/**
 * SQL of the expanded data API's reads (issue 29): a token's buckets from the roll-ups (whale_flow_hourly /
 * whale_flow_daily by token, migration 0150's token_price_hourly for the price — never whale_tx), the token lookup,
 * and the export's pages (whale_tx by id within a time range; daily token flows by day and token). Like every figure,
 * buckets and flows count whales only (`countedWallet`, issue 28 part 5) and the export leaves exchange housekeeping
 * out, as `/api/v1/transactions` does; prices are market facts and count every priced trade.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { TxRow } from "./TxRepo"
import { countedWallet } from "./Whales"
import { spanned } from "../../platform/ops/Spans"

export interface BucketRow {
  readonly t: Date
  readonly buy: number
  readonly sell: number
  readonly trades: number
  readonly whales: number
}

export interface PriceRow {
  readonly t: Date
  readonly usd: number
  readonly amount: number
}

export interface FlowExportRow {
  readonly day: string
  readonly token: string
  readonly symbol: string
  readonly dex_buy_usd: number
  readonly dex_sell_usd: number
  readonly exchange_withdraw_usd: number
  readonly exchange_deposit_usd: number
  readonly trades: number
  readonly whales: number
}

export class HistoryRepo extends Effect.Service<HistoryRepo>()("app/analytics/HistoryRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const whales = countedWallet(sql, "whales", "wallet")

    /** The token's symbol when it is known (in `tokens` or with records), else null. */
    const tokenSymbol = (token: string) => sql<{ symbol: string }>`
      SELECT symbol FROM tokens WHERE address = ${token}
      UNION ALL (SELECT symbol FROM whale_flow_daily WHERE token = ${token} ORDER BY day DESC LIMIT 1)
      LIMIT 1`.pipe(Effect.map((rows) => rows[0]?.symbol ?? null), Effect.orDie)

    /** Hourly or daily buckets in [from, to) with DEX trades (empty buckets are absent). */
    const buckets = (token: string, interval: "hour" | "day", from: Date, to: Date) =>
      (interval === "hour"
        ? sql<BucketRow>`
          SELECT hour AS t, sum(dex_buy_usd) AS buy, sum(dex_sell_usd) AS sell, sum(dex_buys + dex_sells)::int AS trades,
            count(*) FILTER (WHERE dex_buys + dex_sells > 0)::int AS whales
          FROM whale_flow_hourly WHERE token = ${token} AND hour >= ${from} AND hour < ${to} AND ${whales}
          GROUP BY hour ORDER BY hour`
        : sql<BucketRow>`
          SELECT (day::timestamp AT TIME ZONE 'UTC') AS t, sum(dex_buy_usd) AS buy, sum(dex_sell_usd) AS sell,
            sum(dex_buys + dex_sells)::int AS trades, count(*) FILTER (WHERE dex_buys + dex_sells > 0)::int AS whales
          FROM whale_flow_daily WHERE token = ${token} AND day >= ${from.toISOString().slice(0, 10)}::date AND day < ${to.toISOString().slice(0, 10)}::date AND ${whales}
          GROUP BY day ORDER BY day`
      ).pipe(Effect.orDie)

    /** USD and amount of the priced DEX trades per bucket. */
    const prices = (token: string, interval: "hour" | "day", from: Date, to: Date) => sql<PriceRow>`
      SELECT date_trunc(${interval}, hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS t, sum(usd) AS usd, sum(amount) AS amount
      FROM token_price_hourly WHERE token = ${token} AND hour >= ${from} AND hour < ${to}
      GROUP BY 1 ORDER BY 1`.pipe(Effect.orDie)

    /**
     * Up to `limit` records with from ≤ ts < to and afterId < id ≤ upToId, by id (the export's page). The id window
     * keeps the plan on the primary key: with only `id > afterId`, a range covering most rows was planned as a scan
     * of the ts index and a sort of the whole range for every page (measured: 10× slower than paging).
     */
    const txAfter = (from: Date, to: Date, afterId: number, upToId: number, limit: number) => sql<TxRow>`
      SELECT x.id, x.tx_hash, x.block_number AS block, x.ts, x.wallet, w.label AS wallet_label, x.token, x.symbol,
        x.category, x.amount::text AS amount, x.usd, x.price_usd, x.counter_symbol, x.venue, x.source
      FROM whale_tx x LEFT JOIN tracked_wallets w ON w.address = x.wallet
      WHERE x.id > ${afterId} AND x.id <= ${upToId} AND x.ts >= ${from} AND x.ts < ${to} AND x.category <> 'exchange_housekeeping'
      ORDER BY x.id LIMIT ${limit}`.pipe(Effect.orDie)

    const maxTxId = sql<{ id: number | null }>`SELECT max(id) AS id FROM whale_tx`.pipe(Effect.map((rows) => rows[0]?.id ?? 0), Effect.orDie)

    /** Daily flows per token of the days in [fromDay, toDay) after (day, token), by day then token. */
    const flowsAfter = (fromDay: string, toDay: string, after: { day: string; token: string } | null, tokens: ReadonlyArray<string> | null, limit: number) => sql<FlowExportRow>`
      SELECT day::text AS day, token, max(symbol) AS symbol, sum(dex_buy_usd) AS dex_buy_usd, sum(dex_sell_usd) AS dex_sell_usd,
        sum(exchange_withdraw_usd) AS exchange_withdraw_usd, sum(exchange_deposit_usd) AS exchange_deposit_usd,
        sum(dex_buys + dex_sells + exchange_withdraws + exchange_deposits)::int AS trades,
        count(*) FILTER (WHERE dex_buys + dex_sells > 0)::int AS whales
      FROM whale_flow_daily
      WHERE day >= ${fromDay}::date AND day < ${toDay}::date AND ${whales}
        ${after === null ? sql`` : sql`AND (day, token) > (${after.day}::date, ${after.token})`}
        ${tokens === null ? sql`` : sql`AND token IN ${sql.in(tokens.length > 0 ? tokens : [""])}`}
      GROUP BY day, token ORDER BY day, token LIMIT ${limit}`.pipe(Effect.orDie)

    return spanned("HistoryRepo", { tokenSymbol, buckets, prices, txAfter, maxTxId, flowsAfter } as const)
  })
}) {}
