/**
 * Echo's market side: the whale feed with copy hints, hot tokens, the token list (cached 5 minutes), token lookup,
 * 24 h flow, chart data with market stats (cached 5 minutes per token and timeframe) and the lag curve of a whale
 * wallet (cached 5 minutes). Market stats are never invented: each is null with a reason when unknown.
 */
import { Effect } from "effect"
import type { ChartData, FeedPage, LagCurve } from "../../../schema/http/echo"
import { memo } from "../../platform/infra/Memo"
import { Chain } from "../chain/Chain"
import { DEFAULT_COPY_SHARE_OF_START } from "./Book"
import { EchoConfig } from "./Config"
import { TokenNotFound } from "./Errors"
import { gasUsd, slippageBps, type PricePoint } from "./Fills"
import { MarketRepo } from "./MarketRepo"
import { lagCurve } from "./Stats"

export const CACHE_SECONDS = 300
export const LAG_DELAYS = [0, 1, 5, 25] as const
export const LAG_WINDOW_DAYS = 30

const TF: Record<"1H" | "1D" | "1W" | "1M" | "ALL", { sinceMs: number | null; bucket: number }> = {
  "1H": { sinceMs: 3_600_000, bucket: 60 },
  "1D": { sinceMs: 86_400_000, bucket: 900 },
  "1W": { sinceMs: 7 * 86_400_000, bucket: 3_600 },
  "1M": { sinceMs: 30 * 86_400_000, bucket: 4 * 3_600 },
  ALL: { sinceMs: null, bucket: 86_400 }
}

const stat = (value: number | null | undefined, reason: string) =>
  value === null || value === undefined || !Number.isFinite(value) ? { value: null, reason } : { value, reason: null }

export class EchoMarket extends Effect.Service<EchoMarket>()("app/echo/EchoMarket", {
  dependencies: [MarketRepo.Default],
  effect: Effect.gen(function* () {
    const market = yield* MarketRepo
    const chain = yield* Chain
    const config = yield* EchoConfig

    const feed = Effect.fn("EchoMarket.feed")(function* (page: number, limit: number) {
      const { items, total } = yield* chain.dexFeed(limit, (page - 1) * limit)
      const eth = yield* chain.ethUsdAtBlock(null)
      const gas = gasUsd(eth, config.fill)
      return {
        page, limit, total,
        items: items.map((r) => {
          const suggested = Math.min(r.usd ?? 0, config.startCash * DEFAULT_COPY_SHARE_OF_START)
          return {
            id: r.id, tx_hash: r.tx_hash, log_index: r.log_index, block: r.block, ts: r.ts.toISOString(), wallet: r.wallet, wallet_label: r.wallet_label,
            token: r.token, symbol: r.symbol, side: r.category === "dex_buy" ? "BUY" as const : "SELL" as const, usd: r.usd, price_usd: r.price_usd,
            copy_hint: r.price_usd === null || suggested <= 0
              ? null
              // Liquidity is not fetched per feed row: the estimate uses the floor (the most slippage it can show).
              : { suggested_usd: suggested, est_slippage_bps: slippageBps(suggested, null, config.fill), est_gas_usd: gas, delay_blocks: config.fill.delayBlocks }
          }
        })
      } satisfies FeedPage
    })

    const hotTokens = Effect.fn("EchoMarket.hotTokens")(function* () {
      const rows = yield* market.hotTokens(24, 20)
      const prices = yield* chain.latestRecordedPrices(rows.map((r) => r.token))
      return {
        window_hours: 24,
        tokens: rows.map((r) => ({ token: r.token, symbol: r.symbol, buy_usd: r.buy_usd, sell_usd: r.sell_usd, net_usd: r.buy_usd - r.sell_usd, trades: r.trades, price_usd: prices.get(r.token) ?? null }))
      }
    })

    const tokenMemo = yield* memo({ ttl: `${CACHE_SECONDS} seconds`, compute: (_: "all") => market.tradedTokens() })
    const tokens = tokenMemo.get("all").pipe(Effect.map((tokens) => ({ tokens, cached_seconds: CACHE_SECONDS })))

    const lookup = Effect.fn("EchoMarket.lookup")(function* (address: string) {
      const [row, latest] = yield* Effect.all([chain.tokenFlags(address), chain.latestPricedRecord(address)])
      if (!row && !latest) return yield* Effect.fail(new TokenNotFound({ address }))
      return { address, symbol: row?.symbol ?? latest!.symbol, price_usd: latest?.price ?? null, priced_at: latest?.ts.toISOString() ?? null }
    })

    const flow = Effect.fn("EchoMarket.flow")(function* (address: string) {
      const f = yield* market.flow(address, 24)
      const row = yield* chain.tokenFlags(address)
      if (!row && f.symbol === null) return yield* Effect.fail(new TokenNotFound({ address }))
      return { token: address, symbol: row?.symbol ?? f.symbol ?? "UNKNOWN", window_hours: 24, buy_usd: f.buy_usd, sell_usd: f.sell_usd, net_usd: f.buy_usd - f.sell_usd, buys: f.buys, sells: f.sells, wallets: f.wallets }
    })

    const computeChart = (key: string) => Effect.gen(function* () {
      const [address, tf] = key.split("|") as [string, keyof typeof TF]
      const [row, latest] = yield* Effect.all([chain.tokenFlags(address), chain.latestPricedRecord(address)])
      if (!row && !latest) return null
      const spec = TF[tf]
      const since = spec.sinceMs === null ? null : new Date(Date.now() - spec.sinceMs)
      const [candles, s, liquidity, supply] = yield* Effect.all(
        [chain.priceCandles(address, since, spec.bucket), market.stats(address), market.liquidity24h(address), chain.totalSupply(address)],
        { concurrency: "unbounded" })
      const price = latest?.price ?? null
      const noData = "no priced whale trade of this token in the last 24 h"
      return {
        token: address,
        symbol: row?.symbol ?? latest?.symbol ?? "UNKNOWN",
        tf,
        bucket_seconds: spec.bucket,
        candles: [...candles],
        stats: {
          price: stat(price, "no priced whale trade of this token yet"),
          // totalSupply() read over eth_call by the chain domain (cached an hour) × the latest price.
          market_cap: "supply" in supply
            ? stat(price === null ? null : supply.supply * price, "no priced whale trade of this token yet")
            : stat(null, `total supply unknown: ${supply.reason}`),
          volume_24h: stat(s.vol24, "no whale DEX volume in the last 24 h"),
          change_24h_pct: stat(price !== null && s.before24 !== null && s.before24 > 0 ? ((price - s.before24) / s.before24) * 100 : null, "no priced trade from before the last 24 h to compare with"),
          liquidity: stat(liquidity, "no whale DEX volume in the last 24 h (liquidity is observed whale volume)"),
          all_time_high: stat(s.ath, "no priced whale trade of this token yet"),
          high_24h: stat(s.high24, noData),
          low_24h: stat(s.low24, noData)
        },
        generated_at: new Date().toISOString()
      } satisfies ChartData
    })
    const chartMemo = yield* memo({ ttl: `${CACHE_SECONDS} seconds`, capacity: 2048, compute: computeChart })
    const chart = Effect.fn("EchoMarket.chart")(function* (address: string, tf: keyof typeof TF) {
      const data = yield* chartMemo.get(`${address}|${tf}`)
      if (data === null) {
        yield* chartMemo.invalidate(`${address}|${tf}`)
        return yield* Effect.fail(new TokenNotFound({ address }))
      }
      return data
    })

    const computeLag = (wallet: string) => Effect.gen(function* () {
      const trades = yield* chain.walletDexRecords(wallet, LAG_WINDOW_DAYS, 500)
      const tokens = [...new Set(trades.map((t) => t.token))]
      const series = new Map<string, ReadonlyArray<PricePoint>>()
      const liquidity = new Map<string, number | null>()
      for (const token of tokens) {
        const first = trades.find((t) => t.token === token)!.block
        series.set(token, yield* chain.pricedPointsFrom(token, first, 5_000))
        liquidity.set(token, yield* market.liquidity24h(token))
      }
      const eth = yield* chain.ethUsdAtBlock(null)
      const points = lagCurve(
        trades.map((t) => ({ token: t.token, side: t.category === "dex_buy" ? "BUY" as const : "SELL" as const, block: t.block, log: t.log_index, price: t.price_usd! })),
        (t) => series.get(t) ?? [], (t) => liquidity.get(t) ?? null, eth, LAG_DELAYS, config.fill
      )
      return { wallet, trades: trades.length, window_days: LAG_WINDOW_DAYS, notional_usd: 1_000, points: [...points] } satisfies LagCurve
    })
    const lagMemo = yield* memo({ ttl: `${CACHE_SECONDS} seconds`, capacity: 1024, compute: computeLag })

    return { feed, hotTokens, tokens, lookup, flow, chart, lagCurve: (wallet: string) => lagMemo.get(wallet), caches: { tokens: tokenMemo, chart: chartMemo } } as const
  })
}) {}
