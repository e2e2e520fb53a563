/**
 * The router rule: pass-through. A contract that, inside a transaction someone else sent, first receives tokens
 * and then sends tokens on, keeping nothing but a fee, works for that sender: a router, an aggregator, a settlement
 * contract or one of their executors (the Universal Router unwrapping for a seller, 1inch's and KyberSwap's
 * executors, 0x's proxies, CoW's settlement, a Curve router's hops).
 *
 * Per token (native ETH counted as WETH): the contract never ends with less than it had (it did not pay out of its
 * own inventory, as a searcher does), and keeps at most a fee (3 % of what it received). ETH it received as the
 * transaction's value and did not wrap may have been passed on in internal calls, invisible without traces: WETH
 * kept up to that value counts as passed on. Its first movement is an inflow (a flash lender lends first).
 *
 * Only in a transaction that trades (a swap, a settled order, or a sender that gave one token and got another: an
 * RFQ fill): a staking or bridge contract forwarding a deposit is not a router. Never a router: the sender itself,
 * the pools that swapped, the tokens being moved, labelled exchanges, a searcher already found in the transaction,
 * and an address whose outflows all go to an exchange (a deposit forwarder: Sweeps.ts).
 */
import type { Finding, TxActivity } from "./Types"
import { WETH } from "./Swaps"

const FEE_SHARE_BPS = 300n

export interface PassThroughContext {
  readonly isExchange: (address: string) => boolean
}

interface Flow { readonly token: string; inflow: bigint; outflow: bigint }

/** One address's movements in a transaction, in log order (a transaction has a handful: arrays beat maps here). */
interface Ledger {
  readonly address: string
  readonly first: "in" | "out"
  unwrappedValue: bigint
  sentTo: number
  sentToExchange: number
  readonly flows: Array<Flow>
}

const flowOf = (ledger: Ledger, token: string): Flow => {
  for (const f of ledger.flows) if (f.token === token) return f
  const f = { token, inflow: 0n, outflow: 0n }
  ledger.flows.push(f)
  return f
}

/** Whether the transaction trades: a swap, a settled order, or the sender giving one token and getting another. */
export const trades = (tx: TxActivity): boolean => {
  if (tx.swaps.length > 0 || tx.orderOwners.length > 0) return true
  const net: Array<{ token: string; net: bigint }> = []
  for (const m of tx.moves) {
    const sign = m.from === tx.from ? -1n : m.to === tx.from ? 1n : 0n
    if (sign === 0n) continue
    const entry = net.find((n) => n.token === m.token)
    if (entry === undefined) net.push({ token: m.token, net: sign * m.amount })
    else entry.net += sign * m.amount
  }
  return net.some((n) => n.net < 0n) && net.some((n) => n.net > 0n)
}

export const passThroughFindings = (
  tx: TxActivity, block: number, ctx: PassThroughContext, excluded: (address: string) => boolean
): Array<Finding> => {
  if (!trades(tx)) return []
  const eligible = (a: string | null): a is string =>
    a !== null && a !== tx.from && !excluded(a) && !tx.swaps.some((s) => s.pool === a) && !tx.moves.some((m) => m.token === a) && !ctx.isExchange(a)
  const ledgers: Array<Ledger> = []
  const ledgerOf = (address: string, first: "in" | "out") => {
    for (const l of ledgers) if (l.address === address) return l
    const l: Ledger = { address, first, unwrappedValue: 0n, sentTo: 0, sentToExchange: 0, flows: [] }
    ledgers.push(l)
    return l
  }
  for (const m of tx.moves) {
    if (eligible(m.to)) {
      const l = ledgerOf(m.to, "in")
      if (m.logIndex < 0) l.unwrappedValue += m.amount
      if (m.from === null && l.unwrappedValue > 0n) {
        // Wrapping the transaction's own ETH value converts it; it is not a second inflow.
        const converted = m.amount < l.unwrappedValue ? m.amount : l.unwrappedValue
        l.unwrappedValue -= converted
        flowOf(l, m.token).inflow += m.amount - converted
      } else flowOf(l, m.token).inflow += m.amount
    }
    if (eligible(m.from)) {
      const l = ledgerOf(m.from, "out")
      flowOf(l, m.token).outflow += m.amount
      if (m.to !== null) {
        l.sentTo++
        if (ctx.isExchange(m.to)) l.sentToExchange++
      }
    }
  }
  const out: Array<Finding> = []
  for (const l of ledgers) {
    if (l.first !== "in" || !l.flows.some((f) => f.outflow > 0n) || (l.sentTo > 0 && l.sentToExchange === l.sentTo)) continue
    const keepsNothingButAFee = l.flows.every((f) => {
      const kept = f.inflow - f.outflow
      if (kept < 0n) return false
      if (kept * 10_000n <= f.inflow * FEE_SHARE_BPS) return true
      return f.token === WETH && kept <= l.unwrappedValue
    })
    if (!keepsNothingButAFee) continue
    out.push({
      address: l.address, class: "router", rule: "pass_through", confidence: 0.75, txHash: tx.hash, block,
      pool: tx.swaps[0]?.pool ?? null, counterpart: tx.from
    })
  }
  return out
}
