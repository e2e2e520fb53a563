/**
 * The exchange-deposit rule: sweeps into a known exchange wallet. An exchange gives each customer a deposit address
 * and sweeps what arrives there into its own (labelled) hot wallets; the deposit address does nothing else.
 *
 * A sweep: an address that is not itself a labelled exchange wallet sends tokens or ETH to one, and every outflow it
 * has in the transaction goes to wallets of that exchange, with no swap of its own. Swept by another account (a
 * forwarder contract emptied by the exchange's sweeper, or forwarding a customer's deposit in the same
 * transaction): 0.8. Sent by the address itself: 0.6 — a person sending straight to a hot wallet looks the same
 * once, so the class holds only while nothing else (a swap of its own, an operator) says otherwise (Resolve.ts).
 */
import type { Finding, TxActivity } from "./Types"

export interface SweepContext {
  /** The exchange a labelled wallet belongs to, or undefined. */
  readonly exchangeOf: (address: string) => string | undefined
}

const NONE: Array<Finding> = []

/** Whether any of the transaction's movements went to a labelled exchange wallet. */
const reachesExchange = (tx: TxActivity, ctx: SweepContext) => {
  // A loop, not `some` with an arrow: this asks every transaction that moved tokens, and finds none in most.
  for (const m of tx.moves) if (m.to !== null && ctx.exchangeOf(m.to) !== undefined) return true
  return false
}

export const sweepFindings = (tx: TxActivity, block: number, ctx: SweepContext, excluded: (address: string) => boolean): Array<Finding> => {
  if (!reachesExchange(tx, ctx)) return NONE
  const swappers = new Set(tx.swaps.flatMap((s) => [s.payer, s.recipient, s.pool]))
  const senders = new Map<string, Set<string>>()
  for (const m of tx.moves) {
    if (m.from === null || m.to === null || ctx.exchangeOf(m.from) !== undefined) continue
    const exchange = ctx.exchangeOf(m.to) ?? "-"
    const set = senders.get(m.from)
    if (set === undefined) senders.set(m.from, new Set([exchange]))
    else set.add(exchange)
  }
  const out: Array<Finding> = []
  for (const [address, exchanges] of senders) {
    if (exchanges.size !== 1 || exchanges.has("-") || swappers.has(address) || excluded(address)) continue
    const exchange = [...exchanges][0]!
    const target = tx.moves.find((m) => m.from === address)!.to
    out.push({
      address, class: "exchange", rule: "exchange_sweep", confidence: address === tx.from ? 0.6 : 0.8,
      txHash: tx.hash, block, pool: null, counterpart: target, exchange
    })
  }
  return out
}
