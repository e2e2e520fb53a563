/**
 * Time arithmetic of the read models, all in UTC. A timeframe is a sliding window `(now − length, now]`: the whole
 * hours inside it are read from the hourly roll-up, the two partial hours at its edges from whale_tx through its
 * `ts` index (at most two hours of rows). Days are UTC calendar days.
 */
import type { Timeframe } from "../../../schema/http/analytics"

export const HOUR_MS = 3_600_000
export const DAY_MS = 86_400_000

export const TIMEFRAME_MS: Record<Timeframe, number> = { "1H": HOUR_MS, "24H": 24 * HOUR_MS, "7D": 7 * DAY_MS }

export interface Window {
  /** Exclusive lower bound. */
  readonly from: Date
  /** Inclusive upper bound (now). */
  readonly to: Date
  /** Whole hours `[fullFrom, fullTo)` come from the roll-up (empty when fullFrom >= fullTo). */
  readonly fullFrom: Date
  readonly fullTo: Date
}

const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS
const ceilHour = (ms: number) => Math.ceil(ms / HOUR_MS) * HOUR_MS

export const windowOf = (timeframe: Timeframe, nowMs: number): Window => {
  const from = nowMs - TIMEFRAME_MS[timeframe]
  // A record at exactly `from` is outside; one at `fullFrom` (the first whole hour) is inside.
  const fullFrom = from % HOUR_MS === 0 ? from + HOUR_MS : ceilHour(from)
  const fullTo = Math.max(fullFrom, floorHour(nowMs))
  return { from: new Date(from), to: new Date(nowMs), fullFrom: new Date(fullFrom), fullTo: new Date(fullTo) }
}

/** `YYYY-MM-DD` of the UTC day holding `ms`. */
export const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

/** Start (ms) of the UTC day holding `ms`. */
export const dayStart = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS

/** Milliseconds from `now` until the next day boundary as seen `delayMs` late (plus a second). */
export const untilNextClose = (now: number, delayMs: number) => dayStart(now - delayMs) + DAY_MS + delayMs - now + 1_000

/** The UTC day `n` days after `day` (`YYYY-MM-DD`, n may be negative). */
export const addDays = (day: string, n: number) => dayOf(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS)

/** Days from `first` to `last` inclusive, oldest first. */
export const daysBetween = (first: string, last: string): Array<string> => {
  const out: Array<string> = []
  for (let d = first; d <= last; d = addDays(d, 1)) out.push(d)
  return out
}

/** ISO 8601 with an explicit UTC offset (`2026-06-01T12:00:00.000+00:00`), as the data API promises. */
export const isoWithOffset = (ms: number) => new Date(ms).toISOString().replace("Z", "+00:00")
