/**
 * Pure metric math of one span: figures against the 7-day baseline (ratio) and against the matched non-event
 * windows (z-score), and the recovery rule of the post-event hours.
 */
import { FIGURE_KEYS, type FigureKey, type Figures, type MeanFigures } from "../../../schema/http/playbook"
import { cents, mean, round, zScore } from "./Stats"

export const ZERO: Figures = {
  dex_buy_usd: 0,
  dex_sell_usd: 0,
  exchange_deposit_usd: 0,
  exchange_withdraw_usd: 0,
  net_flow_usd: 0,
  whales_active: 0,
  records: 0
}

/** Net flow of the four category sums: buys − sells + withdrawals − deposits. */
export const netFlow = (f: Pick<Figures, "dex_buy_usd" | "dex_sell_usd" | "exchange_deposit_usd" | "exchange_withdraw_usd">) =>
  f.dex_buy_usd - f.dex_sell_usd + f.exchange_withdraw_usd - f.exchange_deposit_usd

export const grossFlow = (f: Pick<Figures, "dex_buy_usd" | "dex_sell_usd" | "exchange_deposit_usd" | "exchange_withdraw_usd">) =>
  f.dex_buy_usd + f.dex_sell_usd + f.exchange_withdraw_usd + f.exchange_deposit_usd

/** Figures with USD in cents and the net flow derived. */
export const figures = (raw: Omit<Figures, "net_flow_usd">): Figures => ({
  dex_buy_usd: cents(raw.dex_buy_usd),
  dex_sell_usd: cents(raw.dex_sell_usd),
  exchange_deposit_usd: cents(raw.exchange_deposit_usd),
  exchange_withdraw_usd: cents(raw.exchange_withdraw_usd),
  net_flow_usd: cents(netFlow(raw)),
  whales_active: raw.whales_active,
  records: raw.records
})

/** Mean of each figure over the slots (null when there are none). */
export const meanFigures = (slots: ReadonlyArray<Figures>): MeanFigures | null => {
  if (slots.length === 0) return null
  const out = { ...ZERO }
  for (const k of FIGURE_KEYS) out[k] = round(mean(slots.map((s) => s[k]))!, 2)
  return out
}

type PerFigure = Record<FigureKey, number | null>

/** value / baseline per figure; the net flow against |baseline| (its sign stays the window's); null on a zero baseline. */
export const ratios = (value: Figures, baseline: MeanFigures | null): PerFigure => {
  const out = {} as PerFigure
  for (const k of FIGURE_KEYS) {
    const b = baseline === null ? 0 : k === "net_flow_usd" ? Math.abs(baseline[k]) : baseline[k]
    out[k] = b === 0 ? null : round(value[k] / b)
  }
  return out
}

/** z-score of each figure against the matched windows' figures. */
export const zScores = (value: Figures, matched: ReadonlyArray<Figures>): PerFigure => {
  const out = {} as PerFigure
  for (const k of FIGURE_KEYS) {
    const z = zScore(value[k], matched.map((m) => m[k]))
    out[k] = z === null ? null : round(z)
  }
  return out
}

export type Direction = "inflow" | "outflow" | "flat"
export const directionOf = (net: number): Direction => (net > 0 ? "inflow" : net < 0 ? "outflow" : "flat")

export interface Recovery {
  readonly direction: Direction
  readonly reversal: boolean
  /** 0: never went against the pre-event direction; n ≥ 1: regained it at the end of hour n; null: not in the window. */
  readonly hour: number | null
  readonly cumulative: ReadonlyArray<number>
}

export const RECOVERY_RULE =
  "The pre-event direction is the sign of the pre-event net flow. Cumulative post-event net flow is summed hour by " +
  "hour from the event timestamp. If it never moves against the pre-event direction the recovery hour is 0 (no " +
  "reversal); otherwise it is the first hour n (end of hour n after the timestamp) at which, after having been " +
  "against it, it is back on the pre-event side (strictly). Null when that does not happen within the window or the " +
  "pre-event net flow is exactly 0."

/** The recovery point of hourly post-event net flows (see `RECOVERY_RULE`). */
export const recovery = (preNet: number, hourlyNet: ReadonlyArray<number>): Recovery => {
  const direction = directionOf(preNet)
  const cumulative: Array<number> = []
  let sum = 0
  for (const h of hourlyNet) {
    sum += h
    cumulative.push(cents(sum))
  }
  if (direction === "flat") return { direction, reversal: false, hour: null, cumulative }
  const sign = direction === "inflow" ? 1 : -1
  let against = false
  for (let i = 0; i < cumulative.length; i++) {
    const c = cumulative[i]! * sign
    if (c < 0) against = true
    else if (against && c > 0) return { direction, reversal: true, hour: i + 1, cumulative }
  }
  return against ? { direction, reversal: true, hour: null, cumulative } : { direction, reversal: false, hour: 0, cumulative }
}
