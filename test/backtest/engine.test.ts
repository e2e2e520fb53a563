import { describe, expect, it } from "vitest"
import { type BacktestParams, type BacktestPick, ethAt, runBacktest } from "../../server/domains/backtest/Engine"

const DAY = 86_400_000
const T0 = Date.parse("2026-01-01T00:00:00Z")

/** Two hand-computed trades: +$200 on the first, −$500 on the second. */
const picks: ReadonlyArray<BacktestPick> = [
  { id: 1, symbol: "AAA", flaggedAt: T0, whales: 3, conviction: 60, entryPrice: 10, dayCloses: [11, 12, 13, 14, 15, 16, 17], firstExit: { ts: T0 + 0.5 * DAY, price: 10.5 } },
  { id: 2, symbol: "BBB", flaggedAt: T0 + DAY, whales: 5, conviction: 40, entryPrice: 2, dayCloses: [1.5, 1, 1, 1, 1, 1, 1], firstExit: null }
]
const eth = [{ ts: T0, price: 1000 }, { ts: T0 + 2 * DAY, price: 1100 }, { ts: T0 + 4 * DAY, price: 900 }]
const base: BacktestParams = {
  from: T0, to: T0 + 4 * DAY, minWhales: 1, minConviction: 0, tokens: [], exit: { rule: "hold", days: 2 },
  sizing: { mode: "fixed", usd: 1000 }, initialCapital: 10_000, feeBps: 0, slippageBps: 0, gasUsd: 0
}

describe("backtest engine", () => {
  it("reproduces the hand-computed case exactly", () => {
    const r = runBacktest(picks, base, eth)
    expect(r.trades.map((t) => [t.pick_id, t.entry_price, t.exit_price, t.quantity, t.proceeds, t.pnl, t.return])).toEqual([
      [1, 10, 12, 100, 1200, 200, 0.2],
      [2, 2, 1, 500, 500, -500, -0.5]
    ])
    // Entries at cost, marks at the daily closes: 10000 → 10100 (AAA at 11) → 9950 (AAA sold at 12, BBB at 1.5) → 9700.
    expect(r.curve.map((p) => [(p.t - T0) / DAY, p.equity])).toEqual([[0, 10000], [0, 10000], [1, 10100], [2, 9950], [3, 9700], [4, 9700]])
    expect(r.daily.map((p) => p.equity)).toEqual([10100, 9950, 9700, 9700])
    const rets = [10100 / 10000 - 1, 9950 / 10100 - 1, 9700 / 9950 - 1, 0]
    const m = rets.reduce((a, b) => a + b, 0) / 4
    const sd = Math.sqrt(rets.reduce((a, x) => a + (x - m) ** 2, 0) / 3)
    expect(r.metrics).toEqual({
      final_equity: 9700, total_return: -0.03, max_drawdown: 0.039604, sharpe: Math.round((m / sd) * Math.sqrt(365) * 10_000) / 10_000,
      win_rate: 0.5, profit_factor: 0.4, exposure: 0.75, eth_return: -0.1, excess_return: 0.07, total_costs: 0
    })
    expect(r.daily.map((p) => p.eth)).toEqual([10000, 11000, 11000, 9000])
  })

  it("charges fees, slippage and gas on both sides, which lowers the result", () => {
    const r = runBacktest(picks, { ...base, feeBps: 10, slippageBps: 50, gasUsd: 5 }, eth)
    // q = (1000 − 1 − 5) / (10 × 1.005); proceeds = q × 12 × 0.995 × 0.999 − 5 = 1174.75
    expect(r.trades[0]!.proceeds).toBe(1174.75)
    expect(r.trades[0]!.quantity).toBe(Math.round((994 / 10.05) * 1e8) / 1e8)
    // q = 994 / 2.01 = 494.5273632; proceeds = q × 1 × 0.995 × 0.999 − 5 = 486.5626717
    expect(r.trades[1]!.proceeds).toBe(486.56)
    // 10000 − 2 × 1000 + 1174.7504120 + 486.5626717
    expect(r.metrics.final_equity).toBe(9661.31)
    expect(r.metrics.total_return).toBeLessThan(runBacktest(picks, base, eth).metrics.total_return)
    // Costs paid: in, fee 1 + gas 5 + slippage q × P0 × 0.005 (4.945 both times); out, slippage q × P1 × 0.005,
    // fee 0.1 % of the rest, gas 5: AAA 5.934 + 1.181 + 5, BBB 2.473 + 0.492 + 5.
    expect(r.metrics.total_costs).toBe(41.97)
  })

  it("is deterministic and ignores input order", () => {
    const a = runBacktest(picks, base, eth)
    const b = runBacktest([...picks].reverse(), base, eth)
    expect(JSON.stringify(b)).toBe(JSON.stringify(a))
  })

  it("exits with the first whale exit when it comes before the hold limit", () => {
    const r = runBacktest(picks, { ...base, exit: { rule: "first_exit", max_days: 2 } }, eth)
    expect(r.trades[0]).toMatchObject({ pick_id: 1, exit_reason: "whale_exit", exit_price: 10.5, exit_at: T0 + 0.5 * DAY, pnl: 50 })
    expect(r.trades[1]).toMatchObject({ pick_id: 2, exit_reason: "hold", exit_price: 1 })
  })

  it("filters on flaggers, conviction, tokens and the date range; skips what the cash cannot pay", () => {
    expect(runBacktest(picks, { ...base, minWhales: 4 }, eth).trades.map((t) => t.pick_id)).toEqual([2])
    expect(runBacktest(picks, { ...base, minConviction: 50 }, eth).trades.map((t) => t.pick_id)).toEqual([1])
    expect(runBacktest(picks, { ...base, tokens: ["bbb"] }, eth).trades.map((t) => t.pick_id)).toEqual([2])
    expect(runBacktest(picks, { ...base, from: T0 + 1 }, eth).trades.map((t) => t.pick_id)).toEqual([2])
    const poor = runBacktest(picks, { ...base, initialCapital: 1500 }, eth)
    expect(poor.trades.map((t) => t.pick_id)).toEqual([1])
    expect(poor.skipped).toEqual({ unpriced: 0, cash: 1 })
  })

  it("sizes a percentage of equity and skips picks without the exit price", () => {
    const r = runBacktest(picks, { ...base, sizing: { mode: "percent", pct: 0.1 } }, eth)
    expect(r.trades.map((t) => t.notional)).toEqual([1000, 1010])
    const holes = runBacktest([{ ...picks[0]!, dayCloses: [11, null, 13, 14, 15, 16, 17] }], base, eth)
    expect(holes.trades).toEqual([])
    expect(holes.skipped.unpriced).toBe(1)
  })

  it("reads ETH at the last close at or before a time", () => {
    expect(ethAt(eth, T0 - 1)).toBe(1000)
    expect(ethAt(eth, T0 + 2 * DAY - 1)).toBe(1000)
    expect(ethAt(eth, T0 + 2 * DAY)).toBe(1100)
    expect(ethAt([], T0)).toBeNull()
  })
})
