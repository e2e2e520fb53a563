/**
 * Whale discovery's pure part (issue 28 part 4): what a block's activity (Activity.ts) says about large moves, and
 * what the tokens are worth.
 *
 * Prices come from the data, as in the chain's PriceBook: a stablecoin is $1; ETH/USD is the median of the block's
 * WETH–stablecoin swaps (kept from earlier blocks when a block has none); a listed token is priced by its swaps
 * against WETH or a stablecoin (the latest block that swapped it). Unlisted tokens (no decimals) are not valued.
 *
 * A move: per transaction and address, the net amount of each token it received or sent (transfers, WETH
 * wrapping, the transaction's ETH value); its value in USD at those prices. In a transaction that swapped, a net
 * gain is "bought", a net loss "sold"; otherwise "received" / "sent". An address's move in the block is its largest
 * one, the traded token preferred over the money paid for it ("bought $2.4M PEPE", not "sent $2.4M WETH").
 */
import { isQuote, WETH, type TokenLookup } from "../chain/Reference"
import type { BlockActivity } from "./Types"

export interface BigMove {
  readonly address: string
  readonly verb: "bought" | "sold" | "received" | "sent"
  readonly usd: number
  readonly token: string
  readonly symbol: string
  readonly block: number
  readonly tx: string
}

const ZERO = "0x0000000000000000000000000000000000000000"

export class DiscoveryPrices {
  #eth: number | null = null
  readonly #tokens = new Map<string, number>()

  constructor(readonly tokens: TokenLookup) {}

  ethUsd(): number | null {
    return this.#eth
  }

  /** USD per whole token, or null when it cannot be priced. */
  price(token: string): number | null {
    const info = this.tokens(token)
    if (info?.stable === true) return 1
    if (token === WETH) return this.#eth
    return this.#tokens.get(token) ?? (info?.eth_derivative === true ? this.#eth : null)
  }

  /** Units of a listed token (null: unlisted, or its decimals unknown). */
  units(token: string, amount: bigint): number | null {
    const decimals = this.tokens(token)?.decimals
    return decimals == null ? null : Number(amount) / 10 ** decimals
  }

  /** Learns ETH/USD and token prices from a block's swaps. */
  learn(activity: BlockActivity): void {
    const eth: Array<number> = []
    const quoted: Array<{ token: string; units: number; quote: string; quoteUnits: number }> = []
    for (const tx of activity.txs) {
      for (const s of tx.swaps) {
        const a = this.units(s.tokenIn, s.amountIn)
        const b = this.units(s.tokenOut, s.amountOut)
        if (a === null || b === null || a <= 0 || b <= 0) continue
        const inStable = this.tokens(s.tokenIn)?.stable === true
        const outStable = this.tokens(s.tokenOut)?.stable === true
        if (s.tokenIn === WETH && outStable) eth.push(b / a)
        else if (s.tokenOut === WETH && inStable) eth.push(a / b)
        else if (isQuote(this.tokens(s.tokenIn), s.tokenIn) && !isQuote(this.tokens(s.tokenOut), s.tokenOut)) quoted.push({ token: s.tokenOut, units: b, quote: s.tokenIn, quoteUnits: a })
        else if (isQuote(this.tokens(s.tokenOut), s.tokenOut) && !isQuote(this.tokens(s.tokenIn), s.tokenIn)) quoted.push({ token: s.tokenIn, units: a, quote: s.tokenOut, quoteUnits: b })
      }
    }
    const sane = eth.filter((p) => p >= 1 && p <= 1_000_000).sort((x, y) => x - y)
    if (sane.length > 0) this.#eth = sane[Math.floor(sane.length / 2)]!
    for (const q of quoted) {
      const quotePrice = this.price(q.quote)
      if (quotePrice !== null) this.#tokens.set(q.token, (q.quoteUnits * quotePrice) / q.units)
    }
  }
}

/** Every address's largest move of the block worth at least `minUsd` (see the header). */
export const bigMoves = (activity: BlockActivity, prices: DiscoveryPrices, minUsd: number): Map<string, BigMove> => {
  const out = new Map<string, BigMove>()
  for (const tx of activity.txs) {
    if (tx.moves.length === 0) continue
    const nets = new Map<string, Map<string, bigint>>()
    const add = (holder: string | null, token: string, delta: bigint) => {
      if (holder === null || holder === ZERO) return
      let byToken = nets.get(holder)
      if (byToken === undefined) nets.set(holder, (byToken = new Map()))
      byToken.set(token, (byToken.get(token) ?? 0n) + delta)
    }
    for (const m of tx.moves) {
      add(m.from, m.token, -m.amount)
      add(m.to, m.token, m.amount)
    }
    const swapped = tx.swaps.length > 0
    for (const [holder, byToken] of nets) {
      let best: BigMove | undefined
      let bestTraded = false
      for (const [token, net] of byToken) {
        if (net === 0n) continue
        const units = prices.units(token, net < 0n ? -net : net)
        const price = prices.price(token)
        if (units === null || price === null) continue
        const usd = units * price
        if (usd < minUsd) continue
        const traded = !isQuote(prices.tokens(token), token)
        if (best !== undefined && (bestTraded && !traded || (bestTraded === traded && usd <= best.usd))) continue
        const verb = swapped ? (net > 0n ? "bought" : "sold") : (net > 0n ? "received" : "sent")
        best = { address: holder, verb, usd, token, symbol: token === WETH && !swapped ? "ETH" : prices.tokens(token)?.symbol ?? token, block: activity.number, tx: tx.hash }
        bestTraded = traded
      }
      const known = out.get(holder)
      if (best !== undefined && (known === undefined || best.usd > known.usd)) out.set(holder, best)
    }
  }
  return out
}

/** "$2.4M", "$31M", "$850K". */
export const shortUsd = (usd: number): string => {
  const [div, unit] = usd >= 1e9 ? [1e9, "B"] : usd >= 1e6 ? [1e6, "M"] : usd >= 1e3 ? [1e3, "K"] : [1, ""]
  const v = usd / div
  return `$${v >= 100 || unit === "" ? Math.round(v).toString() : Number(v.toPrecision(2)).toString()}${unit}`
}

/** "bought $2.4M PEPE in block N; holds $31M". */
export const reasonOf = (m: Pick<BigMove, "verb" | "usd" | "symbol" | "block">, holdingsUsd: number | null): string =>
  `${m.verb} ${shortUsd(m.usd)} ${m.symbol} in block ${m.block}${holdingsUsd === null ? "" : `; holds ${shortUsd(holdingsUsd)}`}`
