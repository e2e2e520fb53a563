/**
 * The atomic-arbitrage rule (after mev-inspect's): one transaction whose swaps form a cycle — each swap's token out
 * is the next one's token in, the tokens flow from one to the next (the recipient of one is the next pool or the
 * next payer), the last swap pays out the token the first took in, to the account that paid it — and that ends with
 * more of the token than it started with.
 *
 * Found: the account that started and closed the cycle (the searcher contract) and the transaction's sender are
 * `mev_bot`. A cycle started by a known router is a user's route, not a searcher's. Swaps that merely follow one
 * another (A→B→C, or three swaps through a router) are not a cycle and find nothing.
 */
import type { Finding, Swap, TxActivity } from "./Types"

/** Longest cycle looked for (mev-inspect finds 99 % of arbitrages within 2–4 swaps). */
const MAX_HOPS = 6

export interface Arbitrage {
  readonly txHash: string
  readonly swaps: ReadonlyArray<Swap>
  readonly searcher: string
  readonly token: string
  readonly profit: bigint
}

const follows = (prev: Swap, next: Swap) =>
  next.tokenIn === prev.tokenOut && (prev.recipient === next.pool || prev.recipient === next.payer || prev.pool === next.payer)

const NONE: ReadonlyArray<Arbitrage> = []

/** The profitable cycles of one transaction's swaps (each swap in at most one). */
export const findArbitrages = (tx: TxActivity, isRouter: (address: string) => boolean): ReadonlyArray<Arbitrage> => {
  const swaps = tx.swaps
  // Most transactions of a block swap once or not at all: no arrays for them.
  if (swaps.length < 2) return NONE
  const pools = new Set(swaps.map((s) => s.pool))
  const used = new Set<Swap>()
  const found: Array<Arbitrage> = []
  const extend = (route: Array<Swap>, from: number): Array<Swap> | undefined => {
    const start = route[0]!
    const last = route.at(-1)!
    if (route.length >= 2 && last.tokenOut === start.tokenIn && last.recipient === start.payer) return route
    if (route.length >= MAX_HOPS) return undefined
    for (let j = from; j < swaps.length; j++) {
      const next = swaps[j]!
      if (used.has(next) || !follows(last, next)) continue
      const done = extend([...route, next], j + 1)
      if (done !== undefined) return done
    }
    return undefined
  }
  for (let i = 0; i < swaps.length; i++) {
    const start = swaps[i]!
    if (used.has(start) || pools.has(start.payer) || isRouter(start.payer)) continue
    const route = extend([start], i + 1)
    if (route === undefined) continue
    const profit = route.at(-1)!.amountOut - start.amountIn
    if (profit <= 0n) continue
    for (const s of route) used.add(s)
    found.push({ txHash: tx.hash, swaps: route, searcher: start.payer, token: start.tokenIn, profit })
  }
  return found
}

export const arbitrageFindings = (tx: TxActivity, block: number, arbitrages: ReadonlyArray<Arbitrage>): Array<Finding> =>
  arbitrages.flatMap((a) => {
    const base = { class: "mev_bot" as const, rule: "arbitrage" as const, confidence: 0.85, txHash: tx.hash, block, pool: a.swaps[0]!.pool, counterpart: null }
    return [...new Set([a.searcher, tx.from])].map((address) => ({ ...base, address }))
  })
