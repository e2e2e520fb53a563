/**
 * Forward-looking views (pure): the pre-positioning gauge of an upcoming event and the confluence clusters of
 * high-severity events.
 */
import { HIGH_SEVERITY } from "../../../schema/http/playbook"
import { DAY_MS } from "./Spans"
import { round } from "./Stats"

/** Activity of a recent span against the same length of the 7-day average (null when the baseline is 0). */
export const activityRatio = (gross: number, gross7d: number, hours: number): number | null => {
  const baseline = (gross7d * hours) / (7 * 24)
  return baseline === 0 ? null : round(gross / baseline)
}

/**
 * The 0–100 gauge: 50 × the mean of the 24 h and 72 h activity ratios, capped at 100 — 50 is ordinary activity,
 * 100 twice the baseline or more, 0 none. With no baseline at all: 100 if there is activity, else 0.
 */
export const gauge = (r24: number | null, r72: number | null, anyActivity: boolean): number => {
  const rs = [r24, r72].filter((r): r is number => r !== null)
  if (rs.length === 0) return anyActivity ? 100 : 0
  const blend = rs.reduce((a, b) => a + b, 0) / rs.length
  return Math.max(0, Math.min(100, Math.round(50 * blend)))
}

/** Direction of the last 72 h: net flow beyond ±10 % of gross flow, else neutral. */
export const positioningDirection = (net: number, gross: number): "accumulating" | "distributing" | "neutral" =>
  gross === 0 || Math.abs(net) < 0.1 * gross ? "neutral" : net > 0 ? "accumulating" : "distributing"

export interface Dated {
  readonly id: number
  readonly ts: number
  readonly severity: number
}

export interface Cluster<E extends Dated> {
  readonly from: number
  readonly to: number
  readonly events: ReadonlyArray<E>
}

/**
 * Clusters of two or more high-severity events within `windowDays`: in time order, a cluster starts at the first
 * event not yet taken and takes every later high-severity event up to `windowDays` after it.
 */
export const confluence = <E extends Dated>(events: ReadonlyArray<E>, windowDays: number): Array<Cluster<E>> => {
  const high = events.filter((e) => e.severity >= HIGH_SEVERITY).sort((a, b) => a.ts - b.ts || a.id - b.id)
  const out: Array<Cluster<E>> = []
  let i = 0
  while (i < high.length) {
    const start = high[i]!.ts
    let j = i + 1
    while (j < high.length && high[j]!.ts <= start + windowDays * DAY_MS) j++
    if (j - i >= 2) out.push({ from: start, to: high[j - 1]!.ts, events: high.slice(i, j) })
    i = j
  }
  return out
}
