/**
 * The backtest engine, pure and deterministic: the same picks and request give the same answer, bit for bit.
 *
 * Point-in-time: a trade enters at the pick's flag (its entry price, the price at the flag), filters read only what
 * was known at the flag (flaggers, conviction), and exits use prices seen after the flag: the close at flag + N × 24 h
 * (hold N days), or the first flagging whale's exit (its price) when it comes before the hold limit.
 *
 * A trade of notional N (USD taken from cash), entry price P0, exit price P1, fee f and slippage s (fractions of a
 * side), gas g (USD per side):
 *   quantity  q = (N − N·f − g) / (P0 · (1 + s))
 *   proceeds    = q · P1 · (1 − s) · (1 − f) − g
 *   P&L         = proceeds − N
 * Open positions are marked at quantity × the latest daily close of the pick (no exit costs) on each day mark.
 * Sizing: `fixed` (N = usd) or `percent` (N = pct × equity at the entry); a trade whose notional exceeds the cash
 * left is skipped (no leverage). Events at one instant: exits first, then marks, then entries (by flag, then id).
 */
import { DAY_MS } from "../picks/Rules"
import { cents } from "../../../schema/numbers"

export interface BacktestPick {
  readonly id: number
  readonly symbol: string
  readonly flaggedAt: number
  readonly whales: number
  readonly conviction: number
  readonly entryPrice: number
  /** Closes at flag + d × 24 h, d = 1..7 (null when unknown). */
  readonly dayCloses: ReadonlyArray<number | null>
  /** The first flagging whale's exit with a price, if any. */
  readonly firstExit: { readonly ts: number; readonly price: number } | null
}

export type ExitRule = { readonly rule: "hold"; readonly days: number } | { readonly rule: "first_exit"; readonly max_days: number }
export type Sizing = { readonly mode: "fixed"; readonly usd: number } | { readonly mode: "percent"; readonly pct: number }

export interface BacktestParams {
  readonly from: number
  readonly to: number
  readonly minWhales: number
  readonly minConviction: number
  /** Upper-case symbols; empty: every token. */
  readonly tokens: ReadonlyArray<string>
  readonly exit: ExitRule
  readonly sizing: Sizing
  readonly initialCapital: number
  readonly feeBps: number
  readonly slippageBps: number
  readonly gasUsd: number
}

export interface Trade {
  readonly pick_id: number
  readonly symbol: string
  readonly entry_at: number
  readonly exit_at: number
  readonly exit_reason: "hold" | "whale_exit"
  readonly entry_price: number
  readonly exit_price: number
  readonly notional: number
  readonly quantity: number
  readonly costs: number
  readonly proceeds: number
  readonly pnl: number
  readonly return: number
}

export interface CurvePoint {
  readonly t: number
  readonly equity: number
  readonly eth: number | null
}

export interface BacktestResult {
  readonly trades: ReadonlyArray<Trade>
  readonly skipped: { readonly unpriced: number; readonly cash: number }
  /** Full event curve (every entry, exit and mark). */
  readonly curve: ReadonlyArray<CurvePoint>
  /** Equity at the end of each UTC day of the range (and at `to`). */
  readonly daily: ReadonlyArray<CurvePoint>
  readonly metrics: {
    readonly final_equity: number
    readonly total_return: number
    /** Largest fall from a running peak, as a positive fraction of that peak. */
    readonly max_drawdown: number
    /** Annualised (√365) mean / standard deviation of daily equity returns; null with fewer than 2 or no variation. */
    readonly sharpe: number | null
    readonly win_rate: number | null
    /** Gross profit / gross loss; null without a losing trade. */
    readonly profit_factor: number | null
    /** Share of the range with at least one open position. */
    readonly exposure: number
    readonly eth_return: number | null
    readonly excess_return: number | null
    readonly total_costs: number
  }
}

export interface EthClose {
  readonly ts: number
  readonly price: number
}

/** Price of ETH at `t`: the last close at or before `t` (the first one when `t` is earlier); null without closes. */
export const ethAt = (closes: ReadonlyArray<EthClose>, t: number): number | null => {
  if (closes.length === 0) return null
  let lo = 0
  let hi = closes.length - 1
  if (closes[0]!.ts > t) return closes[0]!.price
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (closes[mid]!.ts <= t) lo = mid
    else hi = mid - 1
  }
  return closes[lo]!.price
}

/** The planned exit of a pick under the rule, or null when the needed price is unknown. */
export const plannedExit = (p: BacktestPick, exit: ExitRule): { at: number; price: number; reason: "hold" | "whale_exit"; days: number } | null => {
  const days = exit.rule === "hold" ? exit.days : exit.max_days
  if (exit.rule === "first_exit" && p.firstExit !== null && p.firstExit.ts > p.flaggedAt && p.firstExit.ts <= p.flaggedAt + days * DAY_MS) {
    return { at: p.firstExit.ts, price: p.firstExit.price, reason: "whale_exit", days: Math.ceil((p.firstExit.ts - p.flaggedAt) / DAY_MS) }
  }
  const close = p.dayCloses[days - 1]
  if (close === null || close === undefined || !(close > 0)) return null
  return { at: p.flaggedAt + days * DAY_MS, price: close, reason: "hold", days }
}

/** Picks passing the entry filter, in entry order. */
export const selectPicks = (picks: ReadonlyArray<BacktestPick>, params: BacktestParams) => {
  const tokens = new Set(params.tokens.map((t) => t.toUpperCase()))
  return picks
    .filter((p) => p.flaggedAt >= params.from && p.flaggedAt < params.to && p.whales >= params.minWhales &&
      p.conviction >= params.minConviction && p.entryPrice > 0 && (tokens.size === 0 || tokens.has(p.symbol.toUpperCase())))
    .sort((a, b) => a.flaggedAt - b.flaggedAt || a.id - b.id)
}

type Ev =
  | { readonly t: number; readonly order: 0; readonly slot: number }
  | { readonly t: number; readonly order: 1; readonly slot: number; readonly price: number }
  | { readonly t: number; readonly order: 2; readonly slot: number }

export const runBacktest = (picks: ReadonlyArray<BacktestPick>, params: BacktestParams, eth: ReadonlyArray<EthClose>): BacktestResult => {
  const f = params.feeBps / 10_000
  const s = params.slippageBps / 10_000
  const g = params.gasUsd
  const chosen = selectPicks(picks, params)
  const plans: Array<{ pick: BacktestPick; exit: NonNullable<ReturnType<typeof plannedExit>> }> = []
  let unpriced = 0
  const events: Array<Ev> = []
  for (const pick of chosen) {
    const exit = plannedExit(pick, params.exit)
    if (exit === null) {
      unpriced++
      continue
    }
    const slot = plans.length
    plans.push({ pick, exit })
    events.push({ t: pick.flaggedAt, order: 2, slot })
    events.push({ t: exit.at, order: 0, slot })
    for (let d = 1; d < exit.days && d <= pick.dayCloses.length; d++) {
      const close = pick.dayCloses[d - 1]
      const at = pick.flaggedAt + d * DAY_MS
      if (close !== null && close !== undefined && close > 0 && at < exit.at) events.push({ t: at, order: 1, slot, price: close })
    }
  }
  events.sort((a, b) => a.t - b.t || a.order - b.order || plans[a.slot]!.pick.flaggedAt - plans[b.slot]!.pick.flaggedAt || plans[a.slot]!.pick.id - plans[b.slot]!.pick.id)

  let cash = params.initialCapital
  const open = new Map<number, { quantity: number; notional: number; costsIn: number; mark: number }>()
  let marked = 0 // Σ quantity × mark of open positions
  const trades: Array<Trade> = []
  let skippedCash = 0
  let totalCosts = 0
  const eth0 = ethAt(eth, params.from)
  const ethEquity = (t: number) => {
    const p = ethAt(eth, t)
    return eth0 === null || p === null ? null : cents((params.initialCapital * p) / eth0)
  }
  const curve: Array<CurvePoint> = [{ t: params.from, equity: cents(cash), eth: ethEquity(params.from) }]
  let exposedSince: number | null = null
  let exposed = 0

  for (let i = 0; i < events.length; i++) {
    const ev = events[i]!
    const plan = plans[ev.slot]!
    if (ev.order === 2) {
      const equity = cash + marked
      const notional = params.sizing.mode === "fixed" ? params.sizing.usd : params.sizing.pct * equity
      if (!(notional > 0) || notional > cash + 1e-9 || notional - notional * f - g <= 0) {
        skippedCash++
      } else {
        const quantity = (notional - notional * f - g) / (plan.pick.entryPrice * (1 + s))
        cash -= notional
        open.set(ev.slot, { quantity, notional, costsIn: notional * f + g + quantity * plan.pick.entryPrice * s, mark: plan.pick.entryPrice })
        marked += quantity * plan.pick.entryPrice
        if (exposedSince === null) exposedSince = ev.t
      }
    } else {
      const pos = open.get(ev.slot)
      if (pos !== undefined) {
        if (ev.order === 1) {
          marked += pos.quantity * (ev.price - pos.mark)
          pos.mark = ev.price
        } else {
          const gross = pos.quantity * plan.exit.price
          const proceeds = gross * (1 - s) * (1 - f) - g
          marked -= pos.quantity * pos.mark
          cash += proceeds
          open.delete(ev.slot)
          const costs = pos.costsIn + gross * s + gross * (1 - s) * f + g
          totalCosts += costs
          trades.push({
            pick_id: plan.pick.id, symbol: plan.pick.symbol, entry_at: plan.pick.flaggedAt, exit_at: plan.exit.at,
            exit_reason: plan.exit.reason, entry_price: plan.pick.entryPrice, exit_price: plan.exit.price,
            notional: cents(pos.notional), quantity: round8(pos.quantity), costs: cents(costs), proceeds: cents(proceeds),
            pnl: cents(proceeds - pos.notional), return: round6(proceeds / pos.notional - 1)
          })
          if (open.size === 0 && exposedSince !== null) {
            exposed += ev.t - exposedSince
            exposedSince = null
          }
        }
      }
    }
    const next = events[i + 1]
    if (next === undefined || next.t !== ev.t) {
      if (open.size === 0) marked = 0 // no drift from floating-point sums
      curve.push({ t: ev.t, equity: cents(cash + marked), eth: ethEquity(ev.t) })
    }
  }
  const end = Math.max(params.to, curve[curve.length - 1]!.t)
  if (exposedSince !== null) exposed += end - exposedSince
  const finalEquity = cash + marked
  curve.push({ t: end, equity: cents(finalEquity), eth: ethEquity(end) })

  // Max drawdown over the event curve.
  let peak = -Infinity
  let maxDd = 0
  for (const p of curve) {
    if (p.equity > peak) peak = p.equity
    if (peak > 0) maxDd = Math.max(maxDd, (peak - p.equity) / peak)
  }

  // Daily equity (end of each UTC day), for Sharpe and the chart.
  const daily: Array<CurvePoint> = []
  let j = 0
  let last = curve[0]!.equity
  const firstDayEnd = Math.floor(params.from / DAY_MS) * DAY_MS + DAY_MS
  for (let t = firstDayEnd; ; t += DAY_MS) {
    const at = Math.min(t, end)
    while (j < curve.length && curve[j]!.t <= at) last = curve[j++]!.equity
    daily.push({ t: at, equity: last, eth: ethEquity(at) })
    if (t >= end) break
  }
  const rets: Array<number> = []
  let prev = params.initialCapital
  for (const d of daily) {
    if (prev > 0) rets.push(d.equity / prev - 1)
    prev = d.equity
  }
  let sharpe: number | null = null
  if (rets.length >= 2) {
    const m = rets.reduce((a, b) => a + b, 0) / rets.length
    const v = rets.reduce((a, r) => a + (r - m) ** 2, 0) / (rets.length - 1)
    const sd = Math.sqrt(v)
    sharpe = sd > 1e-12 ? round4((m / sd) * Math.sqrt(365)) : null
  }

  const wins = trades.filter((t) => t.pnl > 0)
  const grossWin = trades.reduce((a, t) => a + (t.pnl > 0 ? t.pnl : 0), 0)
  const grossLoss = trades.reduce((a, t) => a + (t.pnl < 0 ? -t.pnl : 0), 0)
  const ethEnd = ethAt(eth, end)
  const ethReturn = eth0 !== null && ethEnd !== null ? round6(ethEnd / eth0 - 1) : null
  const totalReturn = round6(finalEquity / params.initialCapital - 1)
  return {
    trades,
    skipped: { unpriced, cash: skippedCash },
    curve,
    daily,
    metrics: {
      final_equity: cents(finalEquity),
      total_return: totalReturn,
      max_drawdown: round6(maxDd),
      sharpe,
      win_rate: trades.length === 0 ? null : round6(wins.length / trades.length),
      profit_factor: grossLoss > 0 ? round4(grossWin / grossLoss) : null,
      exposure: end > params.from ? round6(exposed / (end - params.from)) : 0,
      eth_return: ethReturn,
      excess_return: ethReturn === null ? null : round6(totalReturn - ethReturn),
      total_costs: cents(totalCosts)
    }
  }
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000
const round6 = (x: number) => Math.round(x * 1_000_000) / 1_000_000
const round8 = (x: number) => Math.round(x * 100_000_000) / 100_000_000
