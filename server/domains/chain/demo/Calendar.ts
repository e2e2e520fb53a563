/**
 * The scheduled macro events the demo whales position around. The playbook's calendar (`data/playbook-calendar.json`,
 * when the project has one) is the source; without it a small built-in list is used: the FOMC rate decisions
 * (statement at 14:00 New York time) and the US CPI releases (08:30 New York time) of 2025–2026, as the Federal
 * Reserve and the BLS scheduled them (the 2025 CPI dates after the October shutdown as rescheduled).
 *
 * Parsing the calendar file is tolerant of its exact shape: a list (or `{ events: [...] }`) of objects with a time
 * (`timestamp`, `ts`, `at`, `datetime`, `scheduled_at` or `date`: ISO 8601 or unix seconds/milliseconds), a
 * `category` and a `title` or `name`. Entries without a usable time are skipped.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"

export interface MacroEvent {
  /** Unix milliseconds of the release. */
  readonly at: number
  readonly category: string
  readonly title: string
  /** 1 (minor) … 3 (major). */
  readonly severity: number
}

/** US daylight saving time: second Sunday of March to first Sunday of November (UTC−4), else UTC−5. */
const newYorkOffsetHours = (year: number, month: number, day: number) => {
  const nthSunday = (m: number, n: number) => {
    const first = new Date(Date.UTC(year, m - 1, 1)).getUTCDay()
    return 1 + ((7 - first) % 7) + 7 * (n - 1)
  }
  const key = month * 100 + day
  return key >= 300 + nthSunday(3, 2) && key < 1100 + nthSunday(11, 1) ? 4 : 5
}

/** `YYYY-MM-DD` at `hh:mm` New York time, as unix milliseconds. */
export const newYork = (date: string, hh: number, mm: number): number => {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number]
  return Date.UTC(y, m - 1, d, hh + newYorkOffsetHours(y, m, d), mm)
}

const FOMC = [
  "2025-01-29", "2025-03-19", "2025-05-07", "2025-06-18", "2025-07-30", "2025-09-17", "2025-10-29", "2025-12-10",
  "2026-01-28", "2026-03-18", "2026-04-29", "2026-06-17", "2026-07-29", "2026-09-16", "2026-10-28", "2026-12-09"
]
const CPI = [
  "2025-01-15", "2025-02-12", "2025-03-12", "2025-04-10", "2025-05-13", "2025-06-11", "2025-07-15", "2025-08-12",
  "2025-09-11", "2025-10-24", "2025-12-18",
  "2026-01-13", "2026-02-11", "2026-03-11", "2026-04-10", "2026-05-12", "2026-06-10", "2026-07-14", "2026-08-12",
  "2026-09-11", "2026-10-14", "2026-11-10", "2026-12-10"
]

export const BUILTIN_EVENTS: ReadonlyArray<MacroEvent> = [
  ...FOMC.map((d) => ({ at: newYork(d, 14, 0), category: "FOMC", title: `FOMC rate decision ${d}`, severity: 3 })),
  ...CPI.map((d) => ({ at: newYork(d, 8, 30), category: "CPI", title: `US CPI release ${d}`, severity: 2 }))
].sort((a, b) => a.at - b.at)

const TIME_FIELDS = ["timestamp", "ts", "at", "datetime", "scheduled_at", "starts_at", "event_time", "date"] as const

const timeOf = (value: unknown): number | null => {
  if (typeof value === "number" && Number.isFinite(value)) return value < 1e11 ? value * 1000 : value
  if (typeof value === "string" && value.trim() !== "") {
    if (/^\d+$/.test(value)) return timeOf(Number(value))
    const ms = Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value)
    return Number.isFinite(ms) ? ms : null
  }
  return null
}

/** The events of a calendar file's parsed JSON (see the header); entries without a usable time are skipped. */
export const parseCalendar = (json: unknown): Array<MacroEvent> => {
  const list = Array.isArray(json)
    ? json
    : typeof json === "object" && json !== null && Array.isArray((json as { events?: unknown }).events)
      ? (json as { events: Array<unknown> }).events
      : []
  const events: Array<MacroEvent> = []
  for (const entry of list) {
    if (typeof entry !== "object" || entry === null) continue
    const e = entry as Record<string, unknown>
    const at = TIME_FIELDS.map((f) => timeOf(e[f])).find((t) => t !== null)
    if (at === undefined || at === null) continue
    const category = typeof e.category === "string" && e.category !== "" ? e.category : "MACRO"
    const title = [e.title, e.name].find((t): t is string => typeof t === "string" && t !== "") ?? `${category} ${new Date(at).toISOString().slice(0, 10)}`
    const sev = typeof e.severity === "number" ? e.severity : typeof e.severity === "string" ? ({ low: 1, medium: 2, high: 3, critical: 3 } as Record<string, number>)[e.severity.toLowerCase()] ?? 2 : 2
    events.push({ at, category, title, severity: Math.min(3, Math.max(1, Math.round(sev))) })
  }
  return events.sort((a, b) => a.at - b.at)
}

export interface CalendarChoice {
  readonly events: ReadonlyArray<MacroEvent>
  /** Where they came from: the calendar file's path, or `built-in`. */
  readonly origin: string
}

/** The playbook calendar in `dataDir` when there is a usable one, else the built-in list. */
export const loadCalendar = (dataDir: string): CalendarChoice => {
  const file = join(dataDir, "playbook-calendar.json")
  if (existsSync(file)) {
    try {
      const events = parseCalendar(JSON.parse(readFileSync(file, "utf8")))
      if (events.length > 0) return { events, origin: file }
    } catch {
      // An unreadable calendar leaves the demo on the built-in list.
    }
  }
  return { events: BUILTIN_EVENTS, origin: "built-in" }
}

export const eventsBetween = (events: ReadonlyArray<MacroEvent>, from: number, to: number) =>
  events.filter((e) => e.at >= from && e.at < to)
