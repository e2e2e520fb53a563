/**
 * The honest-fill model: what a follower would really have got.
 *
 *  - Delay: a copy fills at the price of the first priced record of the token at or after the whale's block +
 *    `delayBlocks` (ECHO_COPY_DELAY_BLOCKS, default 1); when there is none yet, at the latest price. A manual trade
 *    fills at the latest price.
 *  - Slippage (square-root impact, the usual shape of AMM and order-book impact):
 *      slippage_bps = min(maxBps, feeBps + impactBps × sqrt(size_usd / liquidity_usd))
 *    Liquidity comes from the data we hold: the token's observed whale trade volume in USD over the last 24 h
 *    (whale_tx), floored at `minLiquidityUsd` (a token with little recorded volume is not treated as free to
 *    trade against, nor as infinitely thin). A BUY pays price × (1 + s), a SELL gets price × (1 − s).
 *  - Gas: gasUnits × base fee × ETH/USD at the fill block. Stored blocks carry no base fee, so the base fee is the
 *    documented default ECHO_BASE_FEE_GWEI; ETH/USD is the latest WETH price seen at or before the fill block
 *    (ECHO_ETH_USD_DEFAULT when none is known).
 */

export interface FillParams {
  readonly delayBlocks: number
  readonly feeBps: number
  readonly impactBps: number
  readonly maxBps: number
  readonly minLiquidityUsd: number
  readonly gasUnits: number
  readonly baseFeeGwei: number
  readonly ethUsdDefault: number
}

export const DEFAULT_FILL_PARAMS: FillParams = {
  delayBlocks: 1,
  feeBps: 30,
  impactBps: 1000,
  maxBps: 1500,
  minLiquidityUsd: 250_000,
  gasUnits: 150_000,
  baseFeeGwei: 20,
  ethUsdDefault: 3_000
}

export const slippageBps = (sizeUsd: number, liquidityUsd: number | null, p: FillParams): number => {
  const depth = Math.max(p.minLiquidityUsd, liquidityUsd ?? 0)
  const raw = p.feeBps + p.impactBps * Math.sqrt(Math.max(0, sizeUsd) / depth)
  return Math.min(p.maxBps, raw)
}

export const applySlippage = (side: "BUY" | "SELL", price: number, bps: number) =>
  side === "BUY" ? price * (1 + bps / 10_000) : price * (1 - bps / 10_000)

export const gasUsd = (ethUsd: number | null, p: FillParams) => p.gasUnits * p.baseFeeGwei * 1e-9 * (ethUsd ?? p.ethUsdDefault)

/** A priced observation of a token: (block, log position, USD per unit). */
export interface PricePoint {
  readonly block: number
  readonly log: number
  readonly price: number
}

/** Index of the first point at or after (block, log) in a series sorted by (block, log). */
const firstAtOrAfter = (series: ReadonlyArray<PricePoint>, block: number, log: number) => {
  let lo = 0
  let hi = series.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    const p = series[mid]!
    if (p.block < block || (p.block === block && p.log < log)) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * The delayed market price of a copy: the first point at or after `block + delay` (at delay 0, the whale's own
 * record onward), else the latest point; null when the series is empty.
 */
export const delayedPrice = (series: ReadonlyArray<PricePoint>, block: number, log: number, delay: number): { price: number; block: number; delayed: boolean } | null => {
  if (series.length === 0) return null
  const i = delay === 0 ? firstAtOrAfter(series, block, log) : firstAtOrAfter(series, block + delay, -Infinity)
  const hit = series[i]
  if (hit) return { price: hit.price, block: hit.block, delayed: true }
  const last = series[series.length - 1]!
  return { price: last.price, block: last.block, delayed: false }
}

/** The last point at or before `block` (ETH/USD at a block), or null. */
export const priceAtOrBefore = (series: ReadonlyArray<PricePoint>, block: number): number | null => {
  const i = firstAtOrAfter(series, block + 1, -Infinity)
  return i > 0 ? series[i - 1]!.price : null
}

export interface FillQuote {
  readonly marketPrice: number
  readonly price: number
  readonly slippageBps: number
  readonly gasUsd: number
  readonly liquidityUsd: number | null
}

export const quote = (side: "BUY" | "SELL", marketPrice: number, sizeUsd: number, liquidityUsd: number | null, ethUsd: number | null, p: FillParams): FillQuote => {
  const bps = slippageBps(sizeUsd, liquidityUsd, p)
  return { marketPrice, price: applySlippage(side, marketPrice, bps), slippageBps: bps, gasUsd: gasUsd(ethUsd, p), liquidityUsd }
}
