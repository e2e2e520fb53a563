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

interface Flow { inflow: bigint; outflow: bigint }

/** Whether the transaction trades: a swap, a settled order, or the sender giving one token and getting another. */
export const trades = (tx: TxActivity): boolean => {
  if (tx.swaps.length > 0 || tx.orderOwners.length > 0) return true
  const net = new Map<string, bigint>()
  for (const m of tx.moves) {
    if (m.from === tx.from) net.set(m.token, (net.get(m.token) ?? 0n) - m.amount)
    if (m.to === tx.from) net.set(m.token, (net.get(m.token) ?? 0n) + m.amount)
  }
  const values = [...net.values()]
  return values.some((v) => v < 0n) && values.some((v) => v > 0n)
}

export const passThroughFindings = (
  tx: TxActivity, block: number, ctx: PassThroughContext, exclude: ReadonlySet<string>
): Array<Finding> => {
  if (!trades(tx)) return []
  const pools = new Set(tx.swaps.map((s) => s.pool))
  const tokens = new Set(tx.moves.map((m) => m.token))
  const candidates = new Set<string>()
  for (const m of tx.moves) {
    for (const a of [m.from, m.to]) {
      if (a !== null && a !== tx.from && !pools.has(a) && !tokens.has(a) && !exclude.has(a) && !ctx.isExchange(a)) candidates.add(a)
    }
  }
  const out: Array<Finding> = []
  for (const x of candidates) {
    let first: "in" | "out" | null = null
    let unwrappedValue = 0n
    let sentTo = 0
    let sentToExchange = 0
    const flows = new Map<string, Flow>()
    const flow = (token: string) => {
      let f = flows.get(token)
      if (f === undefined) flows.set(token, (f = { inflow: 0n, outflow: 0n }))
      return f
    }
    for (const m of tx.moves) {
      if (m.to === x) {
        first ??= "in"
        if (m.logIndex < 0) unwrappedValue += m.amount
        if (m.from === null && unwrappedValue > 0n) {
          // Wrapping the transaction's own ETH value converts it; it is not a second inflow.
          const converted = m.amount < unwrappedValue ? m.amount : unwrappedValue
          unwrappedValue -= converted
          flow(m.token).inflow += m.amount - converted
        } else flow(m.token).inflow += m.amount
      } else if (m.from === x) {
        first ??= "out"
        flow(m.token).outflow += m.amount
        if (m.to !== null) {
          sentTo++
          if (ctx.isExchange(m.to)) sentToExchange++
        }
      }
    }
    const sent = [...flows.values()].some((f) => f.outflow > 0n)
    if (first !== "in" || !sent || (sentTo > 0 && sentToExchange === sentTo)) continue
    const keepsNothingButAFee = [...flows].every(([token, f]) => {
      const kept = f.inflow - f.outflow
      if (kept < 0n) return false
      if (kept * 10_000n <= f.inflow * FEE_SHARE_BPS) return true
      return token === WETH && kept <= unwrappedValue
    })
    if (!keepsNothingButAFee) continue
    out.push({
      address: x, class: "router", rule: "pass_through", confidence: 0.75, txHash: tx.hash, block,
      pool: tx.swaps[0]?.pool ?? null, counterpart: tx.from
    })
  }
  return out
}
