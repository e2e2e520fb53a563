/**
 * Time spans of the playbook's metrics, all half-open `[from, to)` in epoch milliseconds (UTC):
 *  - an event's window runs from `preHours` before its timestamp to `postHours` after (24 h / 48 h unless the
 *    category overrides it); its pre half is `[from, ts)`, its post half `[ts, to)` — a record at exactly the
 *    timestamp belongs to the post half;
 *  - a span is read as whole roll-up hours `[fullFrom, fullTo)` plus at most two partial edge hours from the records;
 *  - the 7-day baseline of a span: the slots of the same length that tile the 7 days before the window start;
 *  - the matched windows of the z-score: the same hours of the week in the 8 weeks before, without another
 *    high-severity event in them and not before the first stored data.
 */
import type { EventCategory } from "../../../schema/http/playbook"

export const MINUTE_MS = 60_000
export const HOUR_MS = 3_600_000
export const DAY_MS = 86_400_000
export const WEEK_MS = 7 * DAY_MS

export interface Span {
  readonly from: number
  readonly to: number
}

export interface WindowSize {
  readonly preHours: number
  readonly postHours: number
}

export const DEFAULT_WINDOW: WindowSize = { preHours: 24, postHours: 48 }
export type WindowOverrides = Partial<Record<EventCategory, WindowSize>>

export interface EventWindow {
  readonly ts: number
  readonly size: WindowSize
  readonly whole: Span
  readonly pre: Span
  readonly post: Span
}

export const windowSize = (category: EventCategory, overrides: WindowOverrides = {}): WindowSize => overrides[category] ?? DEFAULT_WINDOW

export const eventWindow = (ts: number, size: WindowSize): EventWindow => {
  const from = ts - size.preHours * HOUR_MS
  const to = ts + size.postHours * HOUR_MS
  return { ts, size, whole: { from, to }, pre: { from, to: ts }, post: { from: ts, to } }
}

export const spanLength = (s: Span) => s.to - s.from

/** The part of a span that has happened by `now` (null when it has not started). */
export const clip = (s: Span, now: number): Span | null => (now <= s.from ? null : { from: s.from, to: Math.min(s.to, now) })

export const shift = (s: Span, byMs: number): Span => ({ from: s.from + byMs, to: s.to + byMs })

const floorHour = (ms: number) => Math.floor(ms / HOUR_MS) * HOUR_MS
const ceilHour = (ms: number) => Math.ceil(ms / HOUR_MS) * HOUR_MS

export interface SplitSpan {
  /** Whole roll-up hours `[fullFrom, fullTo)`; empty when `fullFrom >= fullTo`. */
  readonly fullFrom: number
  readonly fullTo: number
  /** Partial hours read from the records (0, 1 or 2 spans, each inside one hour). */
  readonly edges: ReadonlyArray<Span>
}

export const split = (s: Span): SplitSpan => {
  const fullFrom = ceilHour(s.from)
  const fullTo = floorHour(s.to)
  if (fullFrom >= fullTo) return { fullFrom, fullTo: fullFrom, edges: s.to > s.from ? [s] : [] }
  const edges: Array<Span> = []
  if (s.from < fullFrom) edges.push({ from: s.from, to: fullFrom })
  if (fullTo < s.to) edges.push({ from: fullTo, to: s.to })
  return { fullFrom, fullTo, edges }
}

/** A span shorter than this (a running window a few seconds old) has no baseline: its ratios are null. */
export const MIN_BASELINE_SLOT_MS = 5 * 60_000

/**
 * The baseline slots of a span of length `len` ending at `windowFrom`: `[windowFrom − k·len, windowFrom − (k−1)·len)`
 * for k = 1 … ⌊7 days / len⌋ (at least one), dropping slots that start before `dataSince`. None for a span under
 * MIN_BASELINE_SLOT_MS (at most 2,016 slots: a span of a few milliseconds asked for hundreds of millions).
 */
export const baselineSlots = (windowFrom: number, len: number, dataSince: number | null, days = 7): Array<Span> => {
  if (len < MIN_BASELINE_SLOT_MS) return []
  const n = Math.max(1, Math.floor((days * DAY_MS) / len))
  const out: Array<Span> = []
  for (let k = 1; k <= n; k++) {
    const slot = { from: windowFrom - k * len, to: windowFrom - (k - 1) * len }
    if (dataSince !== null && slot.from < dataSince) break
    out.push(slot)
  }
  return out
}

export interface Matched {
  /** Week offsets (1 = one week before) whose window is used. */
  readonly weeks: ReadonlyArray<number>
  readonly excluded: ReadonlyArray<{ readonly week: number; readonly reason: "other-event" | "no-data" }>
}

/**
 * The matched non-event windows of an event window: the window moved back by 1 … `weeks` weeks, excluding those that
 * contain the timestamp of another high-severity event (`otherHighTs`) and those starting before `dataSince`.
 */
export const matchedWeeks = (whole: Span, otherHighTs: ReadonlyArray<number>, dataSince: number | null, weeks = 8): Matched => {
  const used: Array<number> = []
  const excluded: Array<{ week: number; reason: "other-event" | "no-data" }> = []
  for (let k = 1; k <= weeks; k++) {
    const w = shift(whole, -k * WEEK_MS)
    if (dataSince === null || w.from < dataSince) excluded.push({ week: k, reason: "no-data" })
    else if (otherHighTs.some((t) => t >= w.from && t < w.to)) excluded.push({ week: k, reason: "other-event" })
    else used.push(k)
  }
  return { weeks: used, excluded }
}

/** Consecutive buckets of `minutes` from `s.from`; the last one is cut at `s.to`. */
export const buckets = (s: Span, minutes: number): Array<Span> => {
  const step = minutes * MINUTE_MS
  const out: Array<Span> = []
  for (let from = s.from; from < s.to; from += step) out.push({ from, to: Math.min(from + step, s.to) })
  return out
}

export const iso = (ms: number) => new Date(ms).toISOString()
