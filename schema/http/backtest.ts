/**
 * Backtest (spec §4.7). `POST /api/backtest/run` (alpha tier or higher) replays graded picks point-in-time with the
 * costs a follower pays; `GET /api/backtest/sample` is the public 90-day summary. Returns are fractions.
 */
import { z } from "zod"
import { endpoint } from "./endpoint"
import { Median, Rate } from "./picks"

const MAX_RANGE_DAYS = 731
const isoDay = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "expected a date YYYY-MM-DD").refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)), "not a valid date")

export const ExitRuleBody = z.discriminatedUnion("rule", [
  z.object({ rule: z.literal("hold"), days: z.number().int().min(1).max(7) }),
  z.object({ rule: z.literal("first_exit"), max_days: z.number().int().min(1).max(7).default(7) })
])
export const SizingBody = z.discriminatedUnion("mode", [
  z.object({ mode: z.literal("fixed"), usd: z.number().positive().max(10_000_000) }),
  z.object({ mode: z.literal("percent"), pct: z.number().min(0.001).max(1) })
])

export const BacktestRequest = z.object({
  /** First day of entries (UTC, inclusive). */
  from: isoDay,
  /** Last day of entries (UTC, inclusive); at most 731 days after `from`. */
  to: isoDay,
  min_flaggers: z.number().int().min(1).max(50).default(3),
  min_conviction: z.number().min(0).max(100).default(0),
  tokens: z.array(z.string().trim().min(1).max(32)).max(50).default([]),
  exit: ExitRuleBody.default({ rule: "hold", days: 7 }),
  sizing: SizingBody.default({ mode: "fixed", usd: 1000 }),
  initial_capital: z.number().min(100).max(1_000_000_000).default(10_000),
  costs: z.object({
    fee_bps: z.number().min(0).max(500).default(30),
    slippage_bps: z.number().min(0).max(1000).default(50),
    gas_usd: z.number().min(0).max(1000).default(5)
  }).default({ fee_bps: 30, slippage_bps: 50, gas_usd: 5 })
}).superRefine((b, ctx) => {
  const from = Date.parse(`${b.from}T00:00:00Z`)
  const to = Date.parse(`${b.to}T00:00:00Z`)
  if (to < from) ctx.addIssue({ code: "custom", path: ["to"], message: "`to` must not be before `from`", input: b.to })
  else if ((to - from) / 86_400_000 > MAX_RANGE_DAYS - 1) ctx.addIssue({ code: "custom", path: ["to"], message: `the range is at most ${MAX_RANGE_DAYS} days`, input: b.to })
})
export type BacktestRequest = z.infer<typeof BacktestRequest>

export const BacktestTrade = z.object({
  pick_id: z.number().int(), symbol: z.string(), entry_at: z.string(), exit_at: z.string(), exit_reason: z.enum(["hold", "whale_exit"]),
  entry_price: z.number(), exit_price: z.number(), notional: z.number(), quantity: z.number(), costs: z.number(),
  proceeds: z.number(), pnl: z.number(), return: z.number()
})

export const BacktestMetrics = z.object({
  final_equity: z.number(), total_return: z.number(), max_drawdown: z.number(), sharpe: z.number().nullable(),
  win_rate: z.number().nullable(), profit_factor: z.number().nullable(), exposure: z.number(),
  eth_return: z.number().nullable(), excess_return: z.number().nullable(), total_costs: z.number()
})

export const BacktestResponse = z.object({
  request: z.unknown(),
  picks_considered: z.number().int(),
  trades: z.array(BacktestTrade),
  skipped: z.object({ unpriced: z.number().int(), cash: z.number().int() }),
  /** Equity at the end of each UTC day, and the same capital held in ETH. */
  equity: z.array(z.object({ t: z.string(), equity: z.number(), eth: z.number().nullable() })),
  metrics: BacktestMetrics,
  demo: z.boolean()
})
export type BacktestResponse = z.infer<typeof BacktestResponse>

export const BacktestSample = z.object({
  window_days: z.number().int(),
  rule: z.string(),
  from: z.string(),
  to: z.string(),
  /** Graded picks in the window flagged by two or more addresses (individual fires excluded). */
  picks: z.number().int(),
  excluded_individual: z.number().int(),
  positive: Rate,
  median_close: Median,
  mean_close: z.number().nullable(),
  median_peak: Median,
  runners_gte_25: Rate,
  demo: z.boolean(),
  generated_at: z.string()
})
export type BacktestSample = z.infer<typeof BacktestSample>

export const BacktestEndpoints = {
  run: endpoint({
    method: "POST", path: "/api/backtest/run", summary: "Runs a backtest of graded picks with costs, point-in-time (alpha tier or higher)", tags: ["backtest"],
    body: BacktestRequest, bodyKind: "json", response: BacktestResponse
  }),
  sample: endpoint({
    method: "GET", path: "/api/backtest/sample", summary: "Public summary of graded outcomes of the last 90 days (7-day-close rule, individual fires excluded)",
    tags: ["backtest"], response: BacktestSample
  })
}
