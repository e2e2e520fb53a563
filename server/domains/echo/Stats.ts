/**
 * Echo analytics as pure functions: a user's trade statistics and the copy-versus-whale comparison, the lag curve
 * of a whale wallet (edge versus delay), and the leaderboard's ranking with its risk-adjusted column.
 */
import { applySlippage, delayedPrice, gasUsd, slippageBps, type FillParams, type PricePoint } from "./Fills"

export interface TradeFact {
  readonly id: number
  readonly side: "BUY" | "SELL"
  readonly origin: "manual" | "copy" | "auto" | "retraction"
  readonly token: string
  readonly symbol: string
  readonly quantity: number
  readonly price: number
  readonly usd: number
  readonly whalePrice: number | null
  readonly gasUsd: number
  readonly realizedPnl: number | null
  readonly entryPrice: number | null
  readonly openedAt: Date | null
  readonly createdAt: Date
}

export interface TradeStats {
  readonly trades: number
  readonly closed_trades: number
  readonly wins: number
  readonly losses: number
  readonly win_rate: number | null
  readonly gross_profit: number
  readonly gross_loss: number
  /** Gross profit / gross loss; null with no losing trade (unbounded) or no closed trade. */
  readonly profit_factor: number | null
  readonly best_trade: { id: number; symbol: string; pnl: number } | null
  readonly worst_trade: { id: number; symbol: string; pnl: number } | null
  /** Mean time from a position's opening to each SELL out of it, in hours. */
  readonly avg_holding_hours: number | null
  /** Per-trade returns of closed trades (pnl / sold basis), for the risk-adjusted figure. */
  readonly returns: ReadonlyArray<number>
}

export const tradeStats = (trades: ReadonlyArray<TradeFact>): TradeStats => {
  const closed = trades.filter((t) => t.side === "SELL" && t.realizedPnl !== null && t.origin !== "retraction")
  let wins = 0, losses = 0, grossProfit = 0, grossLoss = 0, holdMs = 0, holdN = 0
  let best: TradeFact | null = null
  let worst: TradeFact | null = null
  const returns: Array<number> = []
  for (const t of closed) {
    const pnl = t.realizedPnl!
    if (pnl > 0) { wins++; grossProfit += pnl } else if (pnl < 0) { losses++; grossLoss += -pnl }
    if (!best || pnl > best.realizedPnl!) best = t
    if (!worst || pnl < worst.realizedPnl!) worst = t
    if (t.openedAt) { holdMs += t.createdAt.getTime() - t.openedAt.getTime(); holdN++ }
    const basis = t.usd - t.gasUsd - pnl
    if (basis > 0) returns.push(pnl / basis)
  }
  const pick = (t: TradeFact | null) => (t ? { id: t.id, symbol: t.symbol, pnl: t.realizedPnl! } : null)
  return {
    trades: trades.filter((t) => t.origin !== "retraction").length,
    closed_trades: closed.length,
    wins,
    losses,
    win_rate: closed.length > 0 ? wins / closed.length : null,
    gross_profit: grossProfit,
    gross_loss: grossLoss,
    profit_factor: closed.length > 0 && grossLoss > 0 ? grossProfit / grossLoss : null,
    best_trade: pick(best),
    worst_trade: pick(worst),
    avg_holding_hours: holdN > 0 ? holdMs / holdN / 3_600_000 : null,
    returns
  }
}

/**
 * The cost of following: for every copied trade, what the follower paid (or got) against the whale's own price.
 * A BUY costs quantity × (fill − whale price) + gas; a SELL costs quantity × (whale price − fill) + gas. The same
 * trades at the whale's prices would have earned `follower P&L + cost`.
 */
export const copyVersusWhale = (trades: ReadonlyArray<TradeFact>) => {
  let copied = 0, priceCost = 0, gas = 0
  for (const t of trades) {
    if ((t.origin !== "copy" && t.origin !== "auto") || t.whalePrice === null) continue
    copied++
    const diff = t.side === "BUY" ? t.quantity * (t.price - t.whalePrice) : t.quantity * (t.whalePrice - t.price)
    priceCost += diff
    gas += t.gasUsd
  }
  // price_cost: delay and slippage together (the fill against the whale's price); gas apart.
  return { copied_trades: copied, price_cost_usd: priceCost, gas_cost_usd: gas, cost_of_following_usd: priceCost + gas }
}

/** Per-trade Sharpe: mean / standard deviation of closed-trade returns; null under two trades or no spread. */
export const riskAdjusted = (returns: ReadonlyArray<number>): number | null => {
  if (returns.length < 2) return null
  const mean = returns.reduce((a, b) => a + b, 0) / returns.length
  const variance = returns.reduce((a, r) => a + (r - mean) ** 2, 0) / (returns.length - 1)
  const sd = Math.sqrt(variance)
  return sd > 0 ? mean / sd : null
}

export interface BoardEntry {
  readonly userId: number
  readonly displayName: string
  readonly returnPct: number
  readonly riskAdjusted: number | null
  readonly trades: number
  readonly closedTrades: number
  readonly resets: number
  readonly days: number
}

/** Ranks by return (desc), ties by risk-adjusted (desc, nulls last), then by user id; ranks start at 1. */
export const rank = (entries: ReadonlyArray<BoardEntry>) =>
  [...entries]
    .sort((a, b) => b.returnPct - a.returnPct || (b.riskAdjusted ?? -Infinity) - (a.riskAdjusted ?? -Infinity) || a.userId - b.userId)
    .map((e, i) => ({ ...e, rank: i + 1 }))

// ---- lag curve -------------------------------------------------------------------------------------------------

export interface WhaleTrade {
  readonly token: string
  readonly side: "BUY" | "SELL"
  readonly block: number
  readonly log: number
  readonly price: number
}

export interface LagPoint {
  readonly delay_blocks: number
  readonly positions: number
  readonly invested_usd: number
  readonly pnl_usd: number
  /** Return after slippage and gas, in percent of the invested amount; null without a position. */
  readonly return_pct: number | null
}

/**
 * What copying a wallet's trades would have returned at each delay, after costs: every whale BUY opens a copy of
 * `notionalUsd` filled `delay` blocks later (with slippage and gas); the wallet's next SELL of that token closes it
 * (filled with the same delay), else it is marked at the latest price. Trades must be in chain order.
 */
export const lagCurve = (
  trades: ReadonlyArray<WhaleTrade>,
  series: (token: string) => ReadonlyArray<PricePoint>,
  liquidity: (token: string) => number | null,
  ethUsd: number | null,
  delays: ReadonlyArray<number>,
  params: FillParams,
  notionalUsd = 1_000
): ReadonlyArray<LagPoint> =>
  delays.map((delay) => {
    const open = new Map<string, Array<{ quantity: number; cost: number }>>()
    let invested = 0, pnl = 0, positions = 0
    const gas = gasUsd(ethUsd, params)
    const fill = (t: WhaleTrade, side: "BUY" | "SELL", size: number) => {
      const at = delayedPrice(series(t.token), t.block, t.log, delay)
      const market = at?.price ?? t.price
      return applySlippage(side, market, slippageBps(size, liquidity(t.token), params))
    }
    for (const t of trades) {
      if (t.side === "BUY") {
        const price = fill(t, "BUY", notionalUsd)
        const list = open.get(t.token) ?? []
        list.push({ quantity: notionalUsd / price, cost: notionalUsd + gas })
        open.set(t.token, list)
        invested += notionalUsd + gas
        positions++
      } else {
        const list = open.get(t.token)
        if (!list || list.length === 0) continue
        for (const pos of list) {
          const price = fill(t, "SELL", pos.quantity * t.price)
          pnl += pos.quantity * price - gas - pos.cost
        }
        open.delete(t.token)
      }
    }
    for (const [token, list] of open) {
      const s = series(token)
      const last = s.length > 0 ? s[s.length - 1]!.price : null
      for (const pos of list) {
        if (last === null) continue
        const price = applySlippage("SELL", last, slippageBps(pos.quantity * last, liquidity(token), params))
        pnl += pos.quantity * price - gas - pos.cost
      }
    }
    return { delay_blocks: delay, positions, invested_usd: invested, pnl_usd: pnl, return_pct: invested > 0 ? (pnl / invested) * 100 : null }
  })
