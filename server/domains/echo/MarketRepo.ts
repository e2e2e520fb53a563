/**
 * Echo's read-only SQL over the analytics roll-ups (whale_flow_hourly, whale_flow_daily): token flows, liquidity and
 * the statements that join them with the chain's tables in one round trip. Reads of the chain's tables alone
 * (prices, the copyable feed, a wallet's trades, candles) are the `Chain` service's. Every query walks an index:
 * whale_tx (token, id DESC) / (block_number), the roll-ups by their (hour|day, token, wallet) keys.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { spanned } from "../../platform/ops/Spans"

export const WETH = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"

/** A stored record with its wallet's label, and a token's reference flags (read through `Chain`). */
export type { LabelledRecord as WhaleRecord, TokenFlags as TokenRow } from "../chain/Chain"

export class MarketRepo extends Effect.Service<MarketRepo>()("app/echo/MarketRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    return spanned("MarketRepo", {
      /**
       * Everything a fill needs in one round trip: the token's reference row, its latest price, its observed 24 h
       * liquidity and ETH/USD (at or before `ethBlock`, or the latest).
       */
      // One round trip over whale_tx, tokens and the analytics roll-up: split across domains it would be three.
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

      /** Observed liquidity: the token's whale DEX volume in USD over the last 24 h (the roll-up). */
      liquidity24h: (token: string) =>
        sql<{ usd: number | null }>`
          SELECT sum(dex_buy_usd + dex_sell_usd)::float8 AS usd FROM whale_flow_hourly
          WHERE hour >= now() - interval '24 hours' AND token = ${token}`.pipe(Effect.map((r) => r[0]?.usd ?? null), Effect.orDie),

      /** Tokens by whale DEX volume since `hours` ago, stablecoins excluded (roll-up joined with the chain's tokens in one plan). */
      hotTokens: (hours: number, limit: number) =>
        sql<{ token: string; symbol: string; buy_usd: number; sell_usd: number; trades: number }>`
          SELECT f.token, max(f.symbol) AS symbol, sum(f.dex_buy_usd)::float8 AS buy_usd, sum(f.dex_sell_usd)::float8 AS sell_usd,
            sum(f.dex_buys + f.dex_sells)::int AS trades
          FROM whale_flow_hourly f LEFT JOIN tokens t ON t.address = f.token
          WHERE f.hour >= now() - make_interval(hours => ${hours}) AND NOT coalesce(t.stable, false) AND NOT coalesce(t.blacklisted, false)
          GROUP BY f.token HAVING sum(f.dex_buy_usd + f.dex_sell_usd) > 0
          ORDER BY sum(f.dex_buy_usd + f.dex_sell_usd) DESC, f.token LIMIT ${limit}`.pipe(Effect.orDie),

      /** Every traded token except stablecoins, ETH derivatives and blacklisted ones, by trade count (roll-up ⋈ tokens, one plan). */
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

      /** All-time high, 24 h high/low and volume, and the last price before 24 h ago (whale_tx with the roll-up in one statement). */
      stats: (token: string) =>
        sql<{ ath: number | null; high24: number | null; low24: number | null; vol24: number | null; before24: number | null; records: number }>`
          SELECT (SELECT max(price_usd)::float8 FROM whale_tx WHERE token = ${token} AND price_usd > 0) AS ath,
            max(price_usd) FILTER (WHERE ts >= now() - interval '24 hours')::float8 AS high24,
            min(price_usd) FILTER (WHERE ts >= now() - interval '24 hours')::float8 AS low24,
            (SELECT sum(dex_buy_usd + dex_sell_usd)::float8 FROM whale_flow_hourly WHERE hour >= now() - interval '24 hours' AND token = ${token}) AS vol24,
            (SELECT price_usd::float8 FROM whale_tx WHERE token = ${token} AND price_usd > 0 AND ts < now() - interval '24 hours' ORDER BY ts DESC LIMIT 1) AS before24,
            count(*)::int AS records
          FROM whale_tx WHERE token = ${token} AND price_usd > 0 AND ts >= now() - interval '24 hours'`.pipe(Effect.map((r) => r[0]!), Effect.orDie)
    } as const)
  })
}) {}
