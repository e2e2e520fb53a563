/**
 * Read-only SQL over the chain domain's tables (whale_tx, tokens, tracked_wallets) that other domains need, served
 * to them through the `Chain` service (they never read these tables themselves). Moved here unchanged from echo's
 * MarketRepo, the playbook's FlowRepo and the picks' Repo: the same statements, so the same plans. Every query walks
 * an index: whale_tx (token, id DESC) / (wallet, id DESC) / (category, id DESC) / (block_number) / (ts), tokens and
 * tracked_wallets by address.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { FlowCategory, WhaleCategory } from "../../../schema/records"
import { spanned } from "../../platform/ops/Spans"

export const WETH = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"

/** A stored record with its wallet's label (echo's feed, trades and fills). */
export interface LabelledRecord {
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

/** A token's reference flags. */
export interface TokenFlags {
  readonly address: string
  readonly symbol: string
  readonly stable: boolean
  readonly eth_derivative: boolean
  readonly blacklisted: boolean
}

/** A priced record's position and price (chain order). */
export interface PricedPoint {
  readonly block: number
  readonly log: number
  readonly price: number
}

/** A record of a time span with its wallet's label (the playbook's lists). */
export interface SpanRecord {
  readonly id: number
  readonly tx_hash: string
  readonly ts: Date
  readonly wallet: string
  readonly wallet_label: string | null
  readonly token: string
  readonly symbol: string
  /** Exchange housekeeping is never in a span's lists (it is no flow). */
  readonly category: FlowCategory
  readonly usd: number | null
}

/** A stored record as the picks rebuild reads it. */
export interface StoredRecord {
  readonly id: number
  readonly tx_hash: string
  readonly log_index: number
  readonly wallet: string
  readonly token: string
  readonly symbol: string
  readonly category: WhaleCategory
  readonly amount: number
  readonly usd: number | null
  readonly price_usd: number | null
  readonly ts: Date
  readonly source: string
}

/** A time span in epoch milliseconds, `[from, to)`. */
export interface TimeSpan {
  readonly from: number
  readonly to: number
}

const RECORD = `x.id, x.tx_hash, x.log_index, x.block_number AS block, x.ts, x.wallet, w.label AS wallet_label, x.token, x.symbol,
  x.category, x.amount::float8 AS amount, x.usd::float8 AS usd, x.price_usd::float8 AS price_usd`

const iso = (ms: number) => new Date(ms).toISOString()

export class ChainReadRepo extends Effect.Service<ChainReadRepo>()("app/chain/ChainReadRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const record = sql.unsafe(RECORD)
    const recordColumns = sql.unsafe(`x.id, x.tx_hash, x.ts, x.wallet, w.label AS wallet_label, x.token, x.symbol, x.category, x.usd`)
    const d = (ms: number) => new Date(ms)

    return spanned("ChainReadRepo", {
      /** A token's reference flags, or null when it is not in `tokens`. */
      tokenFlags: (address: string) =>
        sql<TokenFlags>`SELECT address, symbol, stable, eth_derivative, blacklisted FROM tokens WHERE address = ${address}`.pipe(
          Effect.map((r) => r[0] ?? null), Effect.orDie),

      /** Every token's reference flags. */
      allTokenFlags: sql<TokenFlags>`
        SELECT address, symbol, stable, eth_derivative, blacklisted FROM tokens`.pipe(Effect.orDie),

      /** Addresses of the tokens with these symbols (case-insensitive; ETH also means WETH, as the records store it). */
      tokenAddressesBySymbol: (symbols: ReadonlyArray<string>) => {
        const wanted = [...new Set(symbols.flatMap((s) => (s.toUpperCase() === "ETH" ? ["ETH", "WETH"] : [s.toUpperCase()])))]
        return sql<{ address: string }>`SELECT address FROM tokens WHERE upper(symbol) = ANY(${wanted}::text[])`.pipe(
          Effect.map((r) => r.map((x) => x.address)),
          Effect.orDie
        )
      },

      /** Addresses of the tracked wallets that are active. */
      activeTrackedWallets: sql<{ address: string }>`SELECT address FROM tracked_wallets WHERE active`.pipe(
        Effect.map((rows) => new Set(rows.map((r) => r.address))), Effect.orDie),

      /** The latest priced record of a token (its live price), or null. */
      latestPricedRecord: (token: string) =>
        sql<{ price: number; block: number; ts: Date; symbol: string }>`
          SELECT price_usd::float8 AS price, block_number AS block, ts, symbol FROM whale_tx
          WHERE token = ${token} AND price_usd IS NOT NULL AND price_usd > 0 ORDER BY id DESC LIMIT 1`.pipe(Effect.map((r) => r[0] ?? null), Effect.orDie),

      /** The latest recorded price of several tokens at once (one statement). */
      latestRecordedPrices: (tokens: ReadonlyArray<string>) =>
        tokens.length === 0
          ? Effect.succeed(new Map<string, number>())
          : sql<{ token: string; price: number }>`
              SELECT t.token, p.price FROM unnest(${`{${tokens.join(",")}}`}::text[]) AS t(token)
              CROSS JOIN LATERAL (SELECT price_usd::float8 AS price FROM whale_tx x WHERE x.token = t.token AND x.price_usd > 0
                ORDER BY x.id DESC LIMIT 1) p`.pipe(Effect.map((rows) => new Map(rows.map((r) => [r.token, r.price]))), Effect.orDie),

      /** Priced points of a token from `fromBlock` on, in chain order (at most `limit`). */
      pricedPointsFrom: (token: string, fromBlock: number, limit: number) =>
        sql<PricedPoint>`
          SELECT block_number AS block, log_index AS log, price_usd::float8 AS price FROM whale_tx
          WHERE token = ${token} AND block_number >= ${fromBlock} AND price_usd > 0
          ORDER BY block_number, log_index LIMIT ${limit}`.pipe(Effect.orDie),

      /** ETH/USD: the last priced WETH record at or before a block (or the latest). */
      ethUsdAtBlock: (block: number | null) =>
        sql<{ price: number }>`
          SELECT price_usd::float8 AS price FROM whale_tx WHERE token = ${WETH} AND price_usd > 0
          ${block === null ? sql`` : sql`AND block_number <= ${block}`}
          ORDER BY block_number DESC, log_index DESC LIMIT 1`.pipe(Effect.map((r) => r[0]?.price ?? null), Effect.orDie),

      /** OHLC of a token's priced records in buckets of `bucketSeconds` since `since` (null: all), with USD volume. */
      priceCandles: (token: string, since: Date | null, bucketSeconds: number) =>
        sql<{ t: number; o: number; h: number; l: number; c: number; v: number }>`
          SELECT b AS t, (array_agg(p ORDER BY block_number, log_index))[1]::float8 AS o, max(p)::float8 AS h, min(p)::float8 AS l,
            (array_agg(p ORDER BY block_number DESC, log_index DESC))[1]::float8 AS c, coalesce(sum(usd), 0)::float8 AS v
          FROM (SELECT (floor(extract(epoch FROM ts) / ${bucketSeconds}) * ${bucketSeconds})::bigint AS b, price_usd AS p, usd, block_number, log_index
                FROM whale_tx WHERE token = ${token} AND price_usd > 0 ${since === null ? sql`` : sql`AND ts >= ${since}`}) s
          GROUP BY b ORDER BY b LIMIT 2000`.pipe(Effect.orDie),

      /** The DEX records of a transaction, optionally narrowed by log position and wallet. */
      dexRecordsOfTx: (txHash: string, log?: number, wallet?: string) =>
        sql<LabelledRecord>`
          SELECT ${record} FROM whale_tx x LEFT JOIN tracked_wallets w ON w.address = x.wallet
          WHERE x.tx_hash = ${txHash} ${log === undefined ? sql`` : sql`AND x.log_index = ${log}`}
            ${wallet === undefined ? sql`` : sql`AND x.wallet = ${wallet}`}
            AND x.category IN ('dex_buy', 'dex_sell')
          ORDER BY x.log_index, x.wallet LIMIT 20`.pipe(Effect.orDie),

      /** DEX records, newest first. `total` is capped at 10,000 (deeper pages are not offered). */
      dexFeed: (limit: number, offset: number) =>
        Effect.all([
          sql<LabelledRecord>`
            SELECT ${record} FROM whale_tx x LEFT JOIN tracked_wallets w ON w.address = x.wallet
            WHERE x.category IN ('dex_buy', 'dex_sell') ORDER BY x.id DESC LIMIT ${limit} OFFSET ${offset}`,
          sql<{ n: number }>`SELECT count(*)::int AS n FROM (SELECT 1 FROM whale_tx WHERE category IN ('dex_buy', 'dex_sell') LIMIT 10000) c`
        ]).pipe(Effect.map(([items, [n]]) => ({ items, total: n!.n })), Effect.orDie),

      /** A wallet's priced DEX records over the last `days`, oldest first (at most `limit`, the newest ones). */
      walletDexRecords: (wallet: string, days: number, limit: number) =>
        sql<LabelledRecord>`
          SELECT * FROM (SELECT ${record} FROM whale_tx x LEFT JOIN tracked_wallets w ON w.address = x.wallet
            WHERE x.wallet = ${wallet} AND x.category IN ('dex_buy', 'dex_sell') AND x.price_usd > 0
              AND x.ts >= now() - make_interval(days => ${days})
            ORDER BY x.id DESC LIMIT ${limit}) r ORDER BY block, log_index`.pipe(Effect.orDie),

      /** The first `limit` records of a span, in time order. */
      firstRecordsIn: (s: TimeSpan, limit: number) => sql<SpanRecord>`
        SELECT ${recordColumns} FROM whale_tx x LEFT JOIN tracked_wallets w ON w.address = x.wallet
        WHERE x.ts >= ${iso(s.from)} AND x.ts < ${iso(s.to)} AND x.category <> 'exchange_housekeeping' ORDER BY x.ts, x.id LIMIT ${limit}`.pipe(Effect.orDie),

      /** The largest records (USD) of a span. */
      biggestRecordsIn: (s: TimeSpan, limit: number) => sql<SpanRecord>`
        SELECT ${recordColumns} FROM whale_tx x LEFT JOIN tracked_wallets w ON w.address = x.wallet
        WHERE x.ts >= ${iso(s.from)} AND x.ts < ${iso(s.to)} AND x.category <> 'exchange_housekeeping' AND x.usd IS NOT NULL ORDER BY x.usd DESC, x.id LIMIT ${limit}`.pipe(Effect.orDie),

      /** Every record of a span with its unique key parts, in time order. */
      recordsIn: (s: TimeSpan) => sql<SpanRecord & { log_index: number }>`
        SELECT ${recordColumns}, x.log_index FROM whale_tx x LEFT JOIN tracked_wallets w ON w.address = x.wallet
        WHERE x.ts >= ${iso(s.from)} AND x.ts < ${iso(s.to)} AND x.category <> 'exchange_housekeeping' ORDER BY x.ts, x.id`.pipe(Effect.orDie),

      /** Stored records in time order after `(ts, id)` (at most `limit`). */
      recordsAfter: (after: { ts: number; id: number }, limit: number) =>
        sql<StoredRecord>`
          SELECT id, tx_hash, log_index, wallet, token, symbol, category, amount::float8 AS amount, usd::float8 AS usd,
            price_usd::float8 AS price_usd, ts, source
          FROM whale_tx WHERE (ts, id) > (${d(after.ts)}, ${after.id}) ORDER BY ts, id LIMIT ${limit}`.pipe(Effect.orDie)
    } as const)
  })
}) {}
