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

/** At most this share of what it received kept (a fee). */
const FEE_SHARE = 0.03
/** Amounts are summed as doubles (exact enough for shares, and allocation-free): this close to zero is zero. */
const EPSILON = 1e-9

export interface PassThroughContext {
  readonly isExchange: (address: string) => boolean
}

interface Flow { readonly token: string; inflow: number; outflow: number }

/** One address's movements in a transaction, in log order (a transaction has a handful: arrays beat maps here). */
interface Ledger {
  readonly address: string
  readonly first: "in" | "out"
  unwrappedValue: number
  /** Outflows: transfers, and unwraps (the ETH goes on out of sight). */
  sent: number
  /** Transfers out, and how many of them to a labelled exchange. */
  sentTo: number
  sentToExchange: number
  readonly flows: Array<Flow>
}

const flowIn = (flows: Array<Flow>, token: string): Flow => {
  for (const f of flows) if (f.token === token) return f
  const f = { token, inflow: 0, outflow: 0 }
  flows.push(f)
  return f
}

/** Sent something on, never ended with less of a token than it had, kept at most a fee (see the header). */
const keepsNothingButAFee = (l: Ledger) => {
  for (const f of l.flows) {
    const kept = f.inflow - f.outflow
    const slack = f.inflow * EPSILON
    if (kept < -slack) return false
    if (kept > f.inflow * FEE_SHARE + slack && !(f.token === WETH && kept <= l.unwrappedValue + slack)) return false
  }
  return true
}

/** Whether the transaction trades: a swap, a settled order, or the sender giving one token and getting another. */
export const trades = (tx: TxActivity): boolean => {
  if (tx.swaps.length > 0 || tx.orderOwners.length > 0) return true
  const net: Array<Flow> = []
  for (const m of tx.moves) {
    if (m.from === tx.from) flowIn(net, m.token).outflow += Number(m.amount)
    if (m.to === tx.from) flowIn(net, m.token).inflow += Number(m.amount)
  }
  let gave = false
  let got = false
  for (const f of net) {
    if (f.outflow > f.inflow * (1 + EPSILON)) gave = true
    if (f.inflow > f.outflow * (1 + EPSILON)) got = true
  }
  return gave && got
}

/** An address of the transaction other than its sender, a pool that swapped, a token moved, a searcher, an exchange. */
const eligible = (tx: TxActivity, a: string | null, ctx: PassThroughContext, excluded: (address: string) => boolean): a is string => {
  if (a === null || a === tx.from) return false
  for (const s of tx.swaps) if (s.pool === a) return false
  for (const m of tx.moves) if (m.token === a) return false
  return !excluded(a) && !ctx.isExchange(a)
}

/** The flows of an address whose first movement was an outflow: never counted (it is no router), never written. */
const UNCOUNTED: Array<Flow> = Object.freeze([]) as unknown as Array<Flow>

/** The ledger of `address` in the transaction's list (a module function: no closure a transaction). */
const ledgerOf = (ledgers: Array<Ledger>, address: string, first: "in" | "out") => {
  for (const l of ledgers) if (l.address === address) return l
  const l: Ledger = { address, first, unwrappedValue: 0, sent: 0, sentTo: 0, sentToExchange: 0, flows: first === "in" ? [] : UNCOUNTED }
  ledgers.push(l)
  return l
}

const NONE: Array<Finding> = []

export const passThroughFindings = (
  tx: TxActivity, block: number, ctx: PassThroughContext, excluded: (address: string) => boolean
): Array<Finding> => {
  if (!trades(tx)) return NONE
  const ledgers: Array<Ledger> = []
  for (const m of tx.moves) {
    const amount = Number(m.amount)
    // An address whose first movement is an outflow is remembered (so that it never counts as a router in this
    // transaction), and nothing more is counted for it: no flows a searcher's or a user's contract.
    if (eligible(tx, m.to, ctx, excluded)) {
      const l = ledgerOf(ledgers, m.to, "in")
      if (l.first === "in") {
        if (m.logIndex < 0) l.unwrappedValue += amount
        if (m.from === null && l.unwrappedValue > 0) {
          // Wrapping the transaction's own ETH value converts it; it is not a second inflow.
          const converted = Math.min(amount, l.unwrappedValue)
          l.unwrappedValue -= converted
          flowIn(l.flows, m.token).inflow += amount - converted
        } else flowIn(l.flows, m.token).inflow += amount
      }
    }
    if (eligible(tx, m.from, ctx, excluded)) {
      const l = ledgerOf(ledgers, m.from, "out")
      if (l.first === "in") {
        flowIn(l.flows, m.token).outflow += amount
        l.sent++
        if (m.to !== null) {
          l.sentTo++
          if (ctx.isExchange(m.to)) l.sentToExchange++
        }
      }
    }
  }
  let out = NONE
  for (const l of ledgers) {
    if (l.first !== "in" || l.sent === 0 || (l.sentTo > 0 && l.sentToExchange === l.sentTo) || !keepsNothingButAFee(l)) continue
    // A list only for the transactions that find one (most find none).
    if (out === NONE) out = []
    out.push({
      address: l.address, class: "router", rule: "pass_through", confidence: 0.75, txHash: tx.hash, block,
      pool: tx.swaps[0]?.pool ?? null, counterpart: tx.from
    })
  }
  return out
}
