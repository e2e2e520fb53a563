/**
 * Echo's read-only SQL over the chain domain's tables (whale_tx, tokens, tracked_wallets) and the analytics
 * roll-ups (whale_flow_hourly, whale_flow_daily): prices, the copyable feed, token flows and chart data. Echo never
 * writes these tables. Every query walks an index: whale_tx (token, id DESC) / (wallet, id DESC) /
 * (category, id DESC) / (block_number), the roll-ups by their (hour|day, token, wallet) keys.
 * (When the chain domain's service grows these reads, this file is the one to replace.)
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { PricePoint } from "./Fills"

export const WETH = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"

export interface WhaleRecord {
  readonly id: number
  readonly tx_hash: string
  readonly log_index: number
  readonly block: number
  readonly ts: Date
  readonly wallet: string
  readonly wallet_label: string | null
  readonly token: string
  readonly symbol: string
  readonly category: "dex_buy" | "dex_sell" | "exchange_deposit" | "exchange_withdraw"
  readonly amount: number
  readonly usd: number | null
  readonly price_usd: number | null
}

export interface TokenRow {
  readonly address: string
  readonly symbol: string
  readonly stable: boolean
  readonly eth_derivative: boolean
  readonly blacklisted: boolean
}

const RECORD = `x.id, x.tx_hash, x.log_index, x.block_number AS block, x.ts, x.wallet, w.label AS wallet_label, x.token, x.symbol,
  x.category, x.amount::float8 AS amount, x.usd::float8 AS usd, x.price_usd::float8 AS price_usd`

export class MarketRepo extends Effect.Service<MarketRepo>()("app/echo/MarketRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const record = sql.unsafe(RECORD)

    return {
      token: (address: string) =>
        sql<TokenRow>`SELECT address, symbol, stable, eth_derivative, blacklisted FROM tokens WHERE address = ${address}`.pipe(
          Effect.map((r) => r[0] ?? null), Effect.orDie),

      /**
       * Everything a fill needs in one round trip: the token's reference row, its latest price, its observed 24 h
       * liquidity and ETH/USD (at or before `ethBlock`, or the latest).
       */
      pricing: (token: string, ethBlock: number | null) =>
        sql<{ symbol: string | null; stable: boolean | null; blacklisted: boolean | null; price: number | null; block: number | null; last_symbol: string | null; liquidity: number | null; eth: number | null }>`
          SELECT t.symbol, t.stable, t.blacklisted, lp.price, lp.block, lp.symbol AS last_symbol,
            (SELECT sum(dex_buy_usd + dex_sell_usd)::float8 FROM whale_flow_hourly WHERE hour >= now() - interval '24 hours' AND token = ${token}) AS liquidity,
            (SELECT price_usd::float8 FROM whale_tx WHERE token = ${WETH} AND price_usd > 0 ${ethBlock === null ? sql`` : sql`AND block_number <= ${ethBlock}`}
              ORDER BY id DESC LIMIT 1) AS eth
          FROM (SELECT 1) one
          LEFT JOIN tokens t ON t.address = ${token}
          LEFT JOIN LATERAL (SELECT price_usd::float8 AS price, block_number AS block, symbol FROM whale_tx
            WHERE token = ${token} AND price_usd > 0 ORDER BY id DESC LIMIT 1) lp ON true`.pipe(Effect.map((r) => r[0]!), Effect.orDie),

      /** The latest priced record of a token (its live price), or null. */
      latestPrice: (token: string) =>
        sql<{ price: number; block: number; ts: Date; symbol: string }>`
          SELECT price_usd::float8 AS price, block_number AS block, ts, symbol FROM whale_tx
          WHERE token = ${token} AND price_usd IS NOT NULL AND price_usd > 0 ORDER BY id DESC LIMIT 1`.pipe(Effect.map((r) => r[0] ?? null), Effect.orDie),

      /** Latest prices of several tokens at once. */
      latestPrices: (tokens: ReadonlyArray<string>) =>
        tokens.length === 0
          ? Effect.succeed(new Map<string, number>())
          : sql<{ token: string; price: number }>`
              SELECT t.token, p.price FROM unnest(${`{${tokens.join(",")}}`}::text[]) AS t(token)
              CROSS JOIN LATERAL (SELECT price_usd::float8 AS price FROM whale_tx x WHERE x.token = t.token AND x.price_usd > 0
                ORDER BY x.id DESC LIMIT 1) p`.pipe(Effect.map((rows) => new Map(rows.map((r) => [r.token, r.price]))), Effect.orDie),

      /** Priced points of a token from `fromBlock` on, in chain order (at most `limit`). */
      seriesFrom: (token: string, fromBlock: number, limit: number) =>
        sql<PricePoint>`
          SELECT block_number AS block, log_index AS log, price_usd::float8 AS price FROM whale_tx
          WHERE token = ${token} AND block_number >= ${fromBlock} AND price_usd > 0
          ORDER BY block_number, log_index LIMIT ${limit}`.pipe(Effect.orDie),

      /** ETH/USD: the last priced WETH record at or before a block (or the latest). */
      ethUsdAt: (block: number | null) =>
        sql<{ price: number }>`
          SELECT price_usd::float8 AS price FROM whale_tx WHERE token = ${WETH} AND price_usd > 0
          ${block === null ? sql`` : sql`AND block_number <= ${block}`}
          ORDER BY block_number DESC, log_index DESC LIMIT 1`.pipe(Effect.map((r) => r[0]?.price ?? null), Effect.orDie),

      /** Observed liquidity: the token's whale DEX volume in USD over the last 24 h (the roll-up). */
      liquidity24h: (token: string) =>
        sql<{ usd: number | null }>`
          SELECT sum(dex_buy_usd + dex_sell_usd)::float8 AS usd FROM whale_flow_hourly
          WHERE hour >= now() - interval '24 hours' AND token = ${token}`.pipe(Effect.map((r) => r[0]?.usd ?? null), Effect.orDie),

      /** The copyable (DEX) records of a transaction, optionally narrowed by log position and wallet. */
      records: (txHash: string, log?: number, wallet?: string) =>
        sql<WhaleRecord>`
          SELECT ${record} FROM whale_tx x LEFT JOIN tracked_wallets w ON w.address = x.wallet
          WHERE x.tx_hash = ${txHash} ${log === undefined ? sql`` : sql`AND x.log_index = ${log}`}
            ${wallet === undefined ? sql`` : sql`AND x.wallet = ${wallet}`}
            AND x.category IN ('dex_buy', 'dex_sell')
          ORDER BY x.log_index, x.wallet LIMIT 20`.pipe(Effect.orDie),

      /** The whale feed: DEX records, newest first. `total` is capped at 10,000 (deeper pages are not offered). */
      feed: (limit: number, offset: number) =>
        Effect.all([
          sql<WhaleRecord>`
            SELECT ${record} FROM whale_tx x LEFT JOIN tracked_wallets w ON w.address = x.wallet
            WHERE x.category IN ('dex_buy', 'dex_sell') ORDER BY x.id DESC LIMIT ${limit} OFFSET ${offset}`,
          sql<{ n: number }>`SELECT count(*)::int AS n FROM (SELECT 1 FROM whale_tx WHERE category IN ('dex_buy', 'dex_sell') LIMIT 10000) c`
        ]).pipe(Effect.map(([items, [n]]) => ({ items, total: n!.n })), Effect.orDie),

      /** A wallet's DEX trades over the last `days`, oldest first (at most `limit`, the newest ones). */
      walletTrades: (wallet: string, days: number, limit: number) =>
        sql<WhaleRecord>`
          SELECT * FROM (SELECT ${record} FROM whale_tx x LEFT JOIN tracked_wallets w ON w.address = x.wallet
            WHERE x.wallet = ${wallet} AND x.category IN ('dex_buy', 'dex_sell') AND x.price_usd > 0
              AND x.ts >= now() - make_interval(days => ${days})
            ORDER BY x.id DESC LIMIT ${limit}) r ORDER BY block, log_index`.pipe(Effect.orDie),

      /** Tokens by whale DEX volume since `hours` ago, stablecoins excluded. */
      hotTokens: (hours: number, limit: number) =>
        sql<{ token: string; symbol: string; buy_usd: number; sell_usd: number; trades: number }>`
          SELECT f.token, max(f.symbol) AS symbol, sum(f.dex_buy_usd)::float8 AS buy_usd, sum(f.dex_sell_usd)::float8 AS sell_usd,
            sum(f.dex_buys + f.dex_sells)::int AS trades
          FROM whale_flow_hourly f LEFT JOIN tokens t ON t.address = f.token
          WHERE f.hour >= now() - make_interval(hours => ${hours}) AND NOT coalesce(t.stable, false) AND NOT coalesce(t.blacklisted, false)
          GROUP BY f.token HAVING sum(f.dex_buy_usd + f.dex_sell_usd) > 0
          ORDER BY sum(f.dex_buy_usd + f.dex_sell_usd) DESC, f.token LIMIT ${limit}`.pipe(Effect.orDie),

      /** Every traded token except stablecoins, ETH derivatives and blacklisted ones, by trade count. */
      tradedTokens: () =>
        sql<{ address: string; symbol: string; trades: number }>`
          SELECT f.token AS address, coalesce(max(t.symbol), max(f.symbol)) AS symbol, sum(f.dex_buys + f.dex_sells + f.exchange_withdraws + f.exchange_deposits)::int AS trades
          FROM whale_flow_daily f LEFT JOIN tokens t ON t.address = f.token
          WHERE NOT coalesce(t.stable, false) AND NOT coalesce(t.eth_derivative, false) AND NOT coalesce(t.blacklisted, false)
          GROUP BY f.token ORDER BY trades DESC, f.token LIMIT 2000`.pipe(Effect.orDie),

      flow: (token: string, hours: number) =>
        sql<{ buy_usd: number; sell_usd: number; buys: number; sells: number; wallets: number; symbol: string | null }>`
          SELECT coalesce(sum(dex_buy_usd), 0)::float8 AS buy_usd, coalesce(sum(dex_sell_usd), 0)::float8 AS sell_usd,
            coalesce(sum(dex_buys), 0)::int AS buys, coalesce(sum(dex_sells), 0)::int AS sells,
            count(DISTINCT wallet) FILTER (WHERE dex_buys + dex_sells > 0)::int AS wallets, max(symbol) AS symbol
          FROM whale_flow_hourly WHERE hour >= now() - make_interval(hours => ${hours}) AND token = ${token}`.pipe(Effect.map((r) => r[0]!), Effect.orDie),

      /** OHLC of priced records in buckets of `bucketSeconds` since `since` (null: all), with USD volume. */
      candles: (token: string, since: Date | null, bucketSeconds: number) =>
        sql<{ t: number; o: number; h: number; l: number; c: number; v: number }>`
          SELECT b AS t, (array_agg(p ORDER BY block_number, log_index))[1]::float8 AS o, max(p)::float8 AS h, min(p)::float8 AS l,
            (array_agg(p ORDER BY block_number DESC, log_index DESC))[1]::float8 AS c, coalesce(sum(usd), 0)::float8 AS v
          FROM (SELECT (floor(extract(epoch FROM ts) / ${bucketSeconds}) * ${bucketSeconds})::bigint AS b, price_usd AS p, usd, block_number, log_index
                FROM whale_tx WHERE token = ${token} AND price_usd > 0 ${since === null ? sql`` : sql`AND ts >= ${since}`}) s
          GROUP BY b ORDER BY b LIMIT 2000`.pipe(Effect.orDie),

      /** All-time high, 24 h high/low and volume, and the last price before 24 h ago. */
      stats: (token: string) =>
        sql<{ ath: number | null; high24: number | null; low24: number | null; vol24: number | null; before24: number | null; records: number }>`
          SELECT (SELECT max(price_usd)::float8 FROM whale_tx WHERE token = ${token} AND price_usd > 0) AS ath,
            max(price_usd) FILTER (WHERE ts >= now() - interval '24 hours')::float8 AS high24,
            min(price_usd) FILTER (WHERE ts >= now() - interval '24 hours')::float8 AS low24,
            (SELECT sum(dex_buy_usd + dex_sell_usd)::float8 FROM whale_flow_hourly WHERE hour >= now() - interval '24 hours' AND token = ${token}) AS vol24,
            (SELECT price_usd::float8 FROM whale_tx WHERE token = ${token} AND price_usd > 0 AND ts < now() - interval '24 hours' ORDER BY ts DESC LIMIT 1) AS before24,
            count(*)::int AS records
          FROM whale_tx WHERE token = ${token} AND price_usd > 0 AND ts >= now() - interval '24 hours'`.pipe(Effect.map((r) => r[0]!), Effect.orDie)
    } as const
  })
}) {}
