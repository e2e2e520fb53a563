/**
 * The backtest domain's service: `run` replays graded picks through the pure engine (Engine.ts) — one query for the
 * picks with their first priced exit, one for the ETH closes, then everything in memory — and `sample` is the public
 * 90-day summary of graded outcomes, computed from the picks snapshot and reused for BACKTEST_SAMPLE_SECONDS.
 */
import { Clock, Duration, Effect } from "effect"
import type { BacktestRequest, BacktestResponse, BacktestSample } from "../../../schema/http/backtest"
import { Picks } from "../picks/Picks"
import { DAY_MS } from "../picks/Rules"
import { sample } from "../picks/Views"
import { runBacktest } from "./Engine"
import { BacktestTooLarge } from "./Errors"

const iso = (ms: number) => new Date(ms).toISOString()
export const dayStartOf = (day: string) => Date.parse(`${day}T00:00:00Z`)

export class Backtest extends Effect.Service<Backtest>()("app/backtest/Backtest", {
  effect: Effect.gen(function* () {
    const picks = yield* Picks
    const maxPicks = picks.settings.backtestMaxPicks

    const computeSample = Effect.gen(function* () {
      const snap = yield* picks.snapshot
      return sample(snap.picks, yield* Clock.currentTimeMillis, picks.settings.minN, snap.demo)
    })
    const cachedSample = yield* Effect.cachedWithTTL(computeSample, Duration.seconds(60))

    return {
      run: Effect.fn("Backtest.run")(function* (req: BacktestRequest) {
        const from = dayStartOf(req.from)
        const to = dayStartOf(req.to) + DAY_MS
        const inputs = yield* picks.backtestInputs(from, to, maxPicks + 1)
        if (inputs.picks.length > maxPicks) {
          return yield* Effect.fail(new BacktestTooLarge({ maxPicks }))
        }
        const result = runBacktest(inputs.picks, {
          from, to, minWhales: req.min_flaggers, minConviction: req.min_conviction, tokens: req.tokens,
          exit: req.exit, sizing: req.sizing, initialCapital: req.initial_capital,
          feeBps: req.costs.fee_bps, slippageBps: req.costs.slippage_bps, gasUsd: req.costs.gas_usd
        }, inputs.eth)
        return {
          request: req,
          picks_considered: inputs.picks.length,
          trades: result.trades.map((t) => ({ ...t, entry_at: iso(t.entry_at), exit_at: iso(t.exit_at) })),
          skipped: result.skipped,
          equity: result.daily.map((p) => ({ t: iso(p.t), equity: p.equity, eth: p.eth })),
          metrics: result.metrics,
          demo: inputs.demo
        } satisfies BacktestResponse
      }),
      sample: picks.settings.cacheMs > 0 ? cachedSample : computeSample
    } as const
  }),
  dependencies: [Picks.Default]
}) {}

export type { BacktestSample }
