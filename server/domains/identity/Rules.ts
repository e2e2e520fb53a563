/**
 * Every behaviour rule over one block, in order: sandwiches across the block (Sandwich.ts); then per transaction
 * atomic arbitrage (Arbitrage.ts), pass-through routers and executors (PassThrough.ts) and exchange sweeps
 * (Sweeps.ts), none of which may call a searcher found before a router or a deposit address; pools (the emitters of
 * swap events); solvers (senders of a settlement contract's transactions: executors of CoW's settlement, so
 * `router`); and traders — the sender of a transaction that swapped and moved tokens of its own, or the owner of a
 * settled order — unless a rule found it a searcher.
 *
 * Each finding is one address, one class, one rule, one transaction. No rule counts swaps: three swaps in one
 * transaction are a route unless their tokens close a profitable cycle.
 */
import { COW_SETTLEMENT } from "./Activity"
import { arbitrageFindings, findArbitrages, type Arbitrage } from "./Arbitrage"
import { passThroughFindings } from "./PassThrough"
import { findSandwiches, sandwichFindings, type Sandwich } from "./Sandwich"
import { sweepFindings } from "./Sweeps"
import type { BlockActivity, Finding, TxActivity } from "./Types"

/** Settlement contracts whose transactions are sent by solvers, not by the traders whose orders they settle. */
export const SETTLEMENT_CONTRACTS: ReadonlySet<string> = new Set([
  COW_SETTLEMENT,
  "0xa88800cd213da5ae406ce248380802bd53b47647" // 1inch: Settlement (Fusion)
])

/** A sender's own ETH value below this (0.001 ETH) is a tip or an encoding, not a trade's money. */
const MATERIAL_VALUE = 10n ** 15n

export interface RuleContext {
  readonly isRouter: (address: string) => boolean
  readonly exchangeOf: (address: string) => string | undefined
}

export interface BlockFindings {
  readonly findings: ReadonlyArray<Finding>
  readonly sandwiches: ReadonlyArray<Sandwich>
  readonly arbitrages: ReadonlyArray<Arbitrage>
}

const tradedItself = (tx: TxActivity) => {
  if (tx.value >= MATERIAL_VALUE) return true
  // A loop, not `some` with an arrow: an arrow here was a closure per swapping transaction.
  for (const m of tx.moves) if (m.logIndex >= 0 && (m.from === tx.from || m.to === tx.from)) return true
  return false
}

export const runRules = (activity: BlockActivity, ctx: RuleContext): BlockFindings => {
  const block = activity.number
  const sandwiches = findSandwiches(activity, ctx)
  const findings: Array<Finding> = sandwichFindings(activity, sandwiches)
  const searchers = new Map<string, Set<string>>()
  const addSearcher = (txHash: string, address: string) => {
    const set = searchers.get(txHash)
    if (set === undefined) searchers.set(txHash, new Set([address]))
    else set.add(address)
  }
  for (const f of findings) {
    addSearcher(f.txHash, f.address)
    if (f.relatedTxs !== undefined) for (const txHash of f.relatedTxs) addSearcher(txHash, f.address)
  }
  const passCtx = { isExchange: (a: string) => ctx.exchangeOf(a) !== undefined }
  // One closure for the block (not one a transaction): it reads the current transaction's searchers.
  let searchersOfTx: Set<string> | undefined
  const isSearcher = (a: string) => searchersOfTx?.has(a) === true
  const arbitrages: Array<Arbitrage> = []
  const pools = new Set<string>()
  const traders = new Set<string>()
  for (const tx of activity.txs) {
    const arbs = findArbitrages(tx, ctx.isRouter)
    if (arbs.length > 0) {
      arbitrages.push(...arbs)
      for (const f of arbitrageFindings(tx, block, arbs)) {
        findings.push(f)
        addSearcher(tx.hash, f.address)
      }
    }
    searchersOfTx = searchers.get(tx.hash)
    if (tx.moves.length > 0) {
      for (const f of passThroughFindings(tx, block, passCtx, isSearcher)) findings.push(f)
      for (const f of sweepFindings(tx, block, ctx, isSearcher)) findings.push(f)
    }
    for (const s of tx.swaps) {
      if (pools.has(s.pool)) continue
      pools.add(s.pool)
      findings.push({ address: s.pool, class: "pool", rule: "swap_event", confidence: 0.95, txHash: tx.hash, block, pool: s.pool, counterpart: null })
    }
    if (tx.swaps.length === 0 && tx.orderOwners.length === 0) continue
    const searcher = isSearcher(tx.from)
    if (tx.to !== null && SETTLEMENT_CONTRACTS.has(tx.to) && !searcher) {
      findings.push({ address: tx.from, class: "router", rule: "settlement_solver", confidence: 0.75, txHash: tx.hash, block, pool: null, counterpart: tx.to })
    } else if (!searcher && tx.swaps.length > 0 && tradedItself(tx) && !traders.has(tx.from)) {
      traders.add(tx.from)
      findings.push({ address: tx.from, class: "trader", rule: "dex_swap", confidence: 0.5, txHash: tx.hash, block, pool: tx.swaps[0]!.pool, counterpart: tx.to })
    }
    for (const owner of tx.orderOwners) {
      if (traders.has(owner)) continue
      traders.add(owner)
      findings.push({ address: owner, class: "trader", rule: "dex_swap", confidence: 0.5, txHash: tx.hash, block, pool: null, counterpart: tx.to })
    }
  }
  return { findings, sandwiches, arbitrages }
}
