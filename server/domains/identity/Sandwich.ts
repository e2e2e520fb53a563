/**
 * The sandwich rule (after mev-inspect's, tightened against routers): in one block, a searcher swaps in a pool
 * (the front-run), then at least one other account swaps in the same pool and the same direction (the victims),
 * then the same searcher swaps back in the opposite direction (the back-run).
 *
 * The searcher is the transaction's sender (an EOA) and the contract it called. Front and back must share the
 * contract (or the sender, when no contract was called), and the searcher holds the position in between: it keeps
 * the front-run's output and pays the back-run's input itself. A router never holds a position from one transaction
 * to the next — that is what tells three unrelated router swaps from a sandwich: when the two EOAs differ, the
 * contract itself must hold it; when the EOA holds it, only the EOA is the searcher (the contract it called is a
 * router). Transactions calling a known router are never searchers; a victim's transaction has another sender and
 * another contract.
 *
 * Found: the holding contract and every sending EOA of front and back are `mev_bot` (0.9 for one EOA, 0.8 for
 * several; 0.85 when the EOA held the position through a contract it only called).
 */
import type { BlockActivity, Finding, Swap } from "./Types"

export interface Sandwich {
  readonly pool: string
  readonly front: Swap
  readonly back: Swap
  readonly victims: ReadonlyArray<Swap>
  readonly searcherContract: string | null
  readonly searcherEoas: ReadonlyArray<string>
}

export interface SandwichContext {
  /** A labelled router or one the identity already knows as such. */
  readonly isRouter: (address: string) => boolean
}

/** Whether the address is the swap's transaction's sender or the contract it called. */
const ownedBy = (address: string, s: Swap) => address === s.txFrom || address === s.txTo

/** How many transactions the swaps (in block order) come from. */
const distinctTxs = (swaps: ReadonlyArray<Swap>) => {
  let n = 0
  for (let i = 0; i < swaps.length; i++) if (i === 0 || swaps[i]!.txHash !== swaps[i - 1]!.txHash) n++
  return n
}

export const findSandwiches = (activity: BlockActivity, ctx: SandwichContext): Array<Sandwich> => {
  const byPool = new Map<string, Array<Swap>>()
  for (const tx of activity.txs) {
    for (const s of tx.swaps) {
      const list = byPool.get(s.pool)
      if (list === undefined) byPool.set(s.pool, [s])
      else list.push(s)
    }
  }
  const found: Array<Sandwich> = []
  for (const [pool, swaps] of byPool) {
    if (swaps.length < 3 || swaps[0]!.txHash === swaps.at(-1)!.txHash || distinctTxs(swaps) < 3) continue
    const used = new Set<Swap>()
    for (let i = 0; i < swaps.length; i++) {
      const front = swaps[i]!
      const contract = front.txTo
      if (used.has(front) || (contract !== null && ctx.isRouter(contract)) || !ownedBy(front.recipient, front)) continue
      const victims: Array<Swap> = []
      for (let j = i + 1; j < swaps.length; j++) {
        const later = swaps[j]!
        if (later.txHash === front.txHash) continue
        // The same searcher: the same contract called (or, with none, the same sender).
        if (contract !== null ? later.txTo !== contract : later.txFrom !== front.txFrom) {
          const sameWay = later.tokenIn === front.tokenIn && later.tokenOut === front.tokenOut
          if (sameWay && later.txFrom !== front.txFrom && (victims.length === 0 || victims.at(-1)!.txHash !== later.txHash)) victims.push(later)
          continue
        }
        const backWay = later.tokenIn === front.tokenOut && later.tokenOut === front.tokenIn
        const contractHolds = contract !== null && front.recipient === contract && later.payer === contract
        const eoaHolds = later.txFrom === front.txFrom && front.recipient === front.txFrom && later.payer === later.txFrom
        if (backWay && victims.length > 0 && (contractHolds || eoaHolds)) {
          used.add(later)
          found.push({
            pool, front, back: later, victims, searcherContract: contractHolds ? contract : null,
            searcherEoas: later.txFrom === front.txFrom ? [front.txFrom] : [front.txFrom, later.txFrom]
          })
        }
        break
      }
    }
  }
  return found
}

/** The findings of a block's sandwiches: searcher contract and EOAs are MEV bots (0.9; 0.8 when the EOAs differ). */
export const sandwichFindings = (activity: BlockActivity, sandwiches: ReadonlyArray<Sandwich>): Array<Finding> => {
  const out: Array<Finding> = []
  for (const s of sandwiches) {
    const confidence = s.searcherContract === null ? 0.85 : s.searcherEoas.length === 1 ? 0.9 : 0.8
    const base = {
      class: "mev_bot" as const, rule: "sandwich" as const, confidence, block: activity.number, pool: s.pool,
      counterpart: s.victims[0]!.txFrom, txHash: s.front.txHash, relatedTxs: [s.back.txHash]
    }
    if (s.searcherContract !== null) out.push({ ...base, address: s.searcherContract })
    for (const eoa of s.searcherEoas) out.push({ ...base, address: eoa })
  }
  return out
}
