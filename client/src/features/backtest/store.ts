/**
 * The backtest page's own store: the form (entry filter, exit rule, sizing, range, costs), the last run's answer, and
 * the public 90-day sample shown to everyone. A run is refused by the server below alpha tier; the page explains that
 * before anyone fills the form.
 */
import { createStore } from "solid-js/store"
import type { BacktestResponse, BacktestSample } from "../../../../schema/http/backtest"
import { backtestApi, type BacktestInput } from "./api"

export interface BacktestForm {
  from: string
  to: string
  minFlaggers: number
  minConviction: number
  tokens: string
  exit: "hold" | "first_exit"
  days: number
  sizing: "fixed" | "percent"
  usd: number
  pct: number
  capital: number
  feeBps: number
  slippageBps: number
  gasUsd: number
}

export interface BacktestState {
  form: BacktestForm
  result: BacktestResponse | null
  sample: BacktestSample | null
  sampleError: string | null
  running: boolean
  error: string | null
}

const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

export const defaultForm = (now = Date.now()): BacktestForm => ({
  from: dayOf(now - 365 * 86_400_000), to: dayOf(now), minFlaggers: 3, minConviction: 0, tokens: "", exit: "hold", days: 7,
  sizing: "fixed", usd: 1000, pct: 10, capital: 10_000, feeBps: 30, slippageBps: 50, gasUsd: 5
})

/** The request the form describes. */
export const requestOf = (f: BacktestForm): BacktestInput => ({
  from: f.from, to: f.to, min_flaggers: f.minFlaggers, min_conviction: f.minConviction,
  tokens: f.tokens.split(/[\s,]+/).map((t) => t.trim()).filter(Boolean),
  exit: f.exit === "hold" ? { rule: "hold", days: f.days } : { rule: "first_exit", max_days: f.days },
  sizing: f.sizing === "fixed" ? { mode: "fixed", usd: f.usd } : { mode: "percent", pct: f.pct / 100 },
  initial_capital: f.capital,
  costs: { fee_bps: f.feeBps, slippage_bps: f.slippageBps, gas_usd: f.gasUsd }
})

export const createBacktestStore = () => {
  const [state, setState] = createStore<BacktestState>({ form: defaultForm(), result: null, sample: null, sampleError: null, running: false, error: null })

  const loadSample = async () => {
    try {
      setState({ sample: await backtestApi.sample(), sampleError: null })
    } catch (e) {
      setState({ sampleError: (e as Error).message })
    }
  }

  /**
   * The default range is the span of the picks (first flag → today), not a fixed year: months before the first
   * pick would only draw a flat line. Left alone once the user has changed the dates.
   */
  const loadRange = async () => {
    const untouched = { from: state.form.from, to: state.form.to }
    const s = await backtestApi.picksSummary().catch(() => null)
    const first = s?.counts.first_flagged_at
    if (!first || state.form.from !== untouched.from || state.form.to !== untouched.to) return
    setState("form", "from", dayOf(Date.parse(first)))
  }

  const run = async () => {
    setState({ running: true, error: null })
    try {
      setState({ result: await backtestApi.run(requestOf(state.form)) })
    } catch (e) {
      setState({ error: (e as Error).message })
    } finally {
      setState({ running: false })
    }
  }

  return {
    state, loadSample, loadRange, run,
    set: <K extends keyof BacktestForm>(key: K, value: BacktestForm[K]) => setState("form", key, value)
  }
}
export type BacktestStore = ReturnType<typeof createBacktestStore>
