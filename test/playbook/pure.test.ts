/** Pure parts of the playbook: the state machine, spans, metric math, patterns, gauge, confluence, calendar files. */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { CATEGORIES, type EventMetrics, type EventStatus, type Figures } from "../../schema/http/playbook"
import { parseCalendar } from "../../server/domains/playbook/CalendarFile"
import { figures, meanFigures, ratios, recovery, zScores, ZERO } from "../../server/domains/playbook/Compare"
import { activityRatio, confluence, gauge, positioningDirection } from "../../server/domains/playbook/Outlook"
import { categoryPattern } from "../../server/domains/playbook/Patterns"
import { baselineSlots, buckets, DAY_MS, eventWindow, HOUR_MS, matchedWeeks, split, WEEK_MS, windowSize } from "../../server/domains/playbook/Spans"
import { canRecompute, decide, TRANSITIONS } from "../../server/domains/playbook/StateMachine"
import { bootstrapMeanCi, median, sampleSd, zScore } from "../../server/domains/playbook/Stats"

const t = (iso: string) => Date.parse(iso)
const STATES: ReadonlyArray<EventStatus> = ["SCHEDULED", "LIVE", "COMPLETED"]

describe("state machine (spec §3.1)", () => {
  it("allows exactly SCHEDULED → LIVE and LIVE → COMPLETED", () => {
    const legal: Array<string> = []
    for (const from of STATES)
      for (const to of STATES) {
        const d = decide(from, to, null)
        if (d._tag === "Move") legal.push(`${from}->${to}`)
        else expect(d).toEqual({ _tag: "Illegal", from, to, allowed: TRANSITIONS[from] })
      }
    expect(legal).toEqual(["SCHEDULED->LIVE", "LIVE->COMPLETED"])
    expect(decide("SCHEDULED", "LIVE", null)).toMatchObject({ effect: "go-live" })
    expect(decide("LIVE", "COMPLETED", null)).toMatchObject({ effect: "complete" })
  })

  it("refuses a second LIVE event, but an illegal move is reported as such first", () => {
    expect(decide("SCHEDULED", "LIVE", 7)).toEqual({ _tag: "LiveTaken", liveEventId: 7 })
    expect(decide("COMPLETED", "LIVE", 7)).toMatchObject({ _tag: "Illegal", allowed: [] })
    expect(decide("LIVE", "COMPLETED", 7)).toMatchObject({ _tag: "Move" })
  })

  it("recomputes only COMPLETED events", () => {
    expect(STATES.filter(canRecompute)).toEqual(["COMPLETED"])
  })
})

describe("spans", () => {
  it("runs from 24 h before to 48 h after, with per-category overrides", () => {
    const w = eventWindow(t("2025-09-17T18:00:00Z"), windowSize("fomc"))
    expect(new Date(w.whole.from).toISOString()).toBe("2025-09-16T18:00:00.000Z")
    expect(new Date(w.whole.to).toISOString()).toBe("2025-09-19T18:00:00.000Z")
    expect(w.pre).toEqual({ from: w.whole.from, to: w.ts })
    expect(w.post).toEqual({ from: w.ts, to: w.whole.to })
    expect(windowSize("exploit", { exploit: { preHours: 6, postHours: 72 } })).toEqual({ preHours: 6, postHours: 72 })
  })

  it("splits a span into whole roll-up hours and partial edges", () => {
    expect(split({ from: t("2025-01-01T10:30:00Z"), to: t("2025-01-01T13:15:00Z") })).toEqual({
      fullFrom: t("2025-01-01T11:00:00Z"),
      fullTo: t("2025-01-01T13:00:00Z"),
      edges: [
        { from: t("2025-01-01T10:30:00Z"), to: t("2025-01-01T11:00:00Z") },
        { from: t("2025-01-01T13:00:00Z"), to: t("2025-01-01T13:15:00Z") }
      ]
    })
    expect(split({ from: t("2025-01-01T10:00:00Z"), to: t("2025-01-01T12:00:00Z") }).edges).toEqual([])
    const inside = { from: t("2025-01-01T10:10:00Z"), to: t("2025-01-01T10:50:00Z") }
    expect(split(inside)).toMatchObject({ edges: [inside] })
  })

  it("tiles the 7 days before a window with same-length slots, not before the data starts", () => {
    const from = t("2025-01-10T00:00:00Z")
    expect(baselineSlots(from, 72 * HOUR_MS, null)).toEqual([
      { from: from - 72 * HOUR_MS, to: from },
      { from: from - 144 * HOUR_MS, to: from - 72 * HOUR_MS }
    ])
    expect(baselineSlots(from, 24 * HOUR_MS, null)).toHaveLength(7)
    expect(baselineSlots(from, 24 * HOUR_MS, from - 3 * DAY_MS)).toHaveLength(3)
    // A running window seconds old has no baseline (it asked for hundreds of millions of slots: a stack overflow, 500).
    expect(baselineSlots(from, 1_500, null)).toEqual([])
    expect(baselineSlots(from, 5 * 60_000, null)).toHaveLength(2_016)
  })

  it("matches the same hours of the 8 weeks before, excluding other high-severity events and weeks without data", () => {
    const w = eventWindow(t("2025-03-19T18:00:00Z"), windowSize("fomc")).whole
    const other = t("2025-03-12T12:30:00Z") // a CPI release inside week 1
    const m = matchedWeeks(w, [other], w.from - 6 * WEEK_MS)
    expect(m.weeks).toEqual([2, 3, 4, 5, 6])
    expect(m.excluded).toEqual([
      { week: 1, reason: "other-event" },
      { week: 7, reason: "no-data" },
      { week: 8, reason: "no-data" }
    ])
  })

  it("cuts buckets at the span end", () => {
    const b = buckets({ from: 0, to: 70 * 60_000 }, 30)
    expect(b.map((x) => (x.to - x.from) / 60_000)).toEqual([30, 30, 10])
  })
})

const f = (buy: number, sell: number, extra: Partial<Figures> = {}): Figures =>
  figures({ dex_buy_usd: buy, dex_sell_usd: sell, exchange_deposit_usd: 0, exchange_withdraw_usd: 0, whales_active: 1, records: 1, ...extra })

describe("metric math", () => {
  it("derives net flow as buys − sells + withdrawals − deposits, in cents", () => {
    expect(figures({ dex_buy_usd: 100.005, dex_sell_usd: 40, exchange_deposit_usd: 10, exchange_withdraw_usd: 5, whales_active: 2, records: 4 }).net_flow_usd).toBe(55.01)
  })

  it("compares with the baseline mean (net flow against its absolute value)", () => {
    const base = meanFigures([f(100, 50), f(300, 450)])!
    expect(base.dex_buy_usd).toBe(200)
    expect(base.net_flow_usd).toBe(-50)
    const r = ratios(f(400, 0), base)
    expect(r.dex_buy_usd).toBe(2)
    expect(r.net_flow_usd).toBe(8)
    expect(r.exchange_deposit_usd).toBeNull()
    expect(ratios(f(1, 1), null).dex_buy_usd).toBeNull()
  })

  it("scores against matched windows with the sample spread", () => {
    expect(sampleSd([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(2.138, 3)
    expect(zScore(10, [2, 4, 6])).toBe(3)
    expect(zScore(10, [5])).toBeNull()
    expect(zScore(10, [5, 5])).toBeNull()
    const z = zScores(f(10, 0), [f(2, 0), f(4, 0), f(6, 0)])
    expect(z.dex_buy_usd).toBe(3)
    expect(z.dex_sell_usd).toBeNull()
  })

  it("finds the recovery point by the documented rule", () => {
    // Pre-event inflow; cumulative post: -10, -5, +5 → against at hour 1, back at hour 3.
    expect(recovery(100, [-10, 5, 10])).toMatchObject({ direction: "inflow", reversal: true, hour: 3, cumulative: [-10, -5, 5] })
    // Never against: 0.
    expect(recovery(100, [0, 10, -5])).toMatchObject({ reversal: false, hour: 0 })
    // Against and never back within the window: null.
    expect(recovery(-100, [10, 5, -14])).toMatchObject({ direction: "outflow", reversal: true, hour: null })
    // Exactly back to zero is not "regained".
    expect(recovery(-100, [10, -10, -1])).toMatchObject({ hour: 3 })
    expect(recovery(0, [1, 2])).toMatchObject({ direction: "flat", hour: null })
  })
})

const metricsWith = (pre: number, post: number, rec: number | null, tokens: Array<[string, number]> = []): EventMetrics => {
  const span = (net: number) => ({
    from: "", to: "", figures: { ...ZERO, net_flow_usd: net }, baseline: null,
    ratio: { ...ZERO_NULL }, z: { ...ZERO_NULL, net_flow_usd: net / 100 },
    top_tokens: tokens.map(([symbol, n]) => ({ token: symbol, symbol, net_flow_usd: n, dex_buy_usd: 0, dex_sell_usd: 0 }))
  })
  return {
    event_id: 1,
    window: { from: "", to: "", pre_hours: 24, post_hours: 48, complete: true, as_of: "" },
    whole: span(pre + post), pre: span(pre), post: span(post),
    baseline_slots: 0, matched_windows: { used: 0, excluded: 0, weeks: 8 }, recovery_hours: rec, computed_at: ""
  }
}
const ZERO_NULL = { dex_buy_usd: null, dex_sell_usd: null, exchange_deposit_usd: null, exchange_withdraw_usd: null, net_flow_usd: null, whales_active: null, records: null }

describe("patterns", () => {
  it("says 'no measurable effect' when the bootstrap interval spans zero", () => {
    const p = categoryPattern("cpi", [metricsWith(0, 100, 2), metricsWith(0, -120, 4), metricsWith(0, 30, null)])
    expect(p.n).toBe(3)
    expect(p.verdict).toBe("no measurable effect")
    expect(p.ci95![0]).toBeLessThan(0)
    expect(p.ci95![1]).toBeGreaterThan(0)
    expect(p.hit_rate).toBe(0.6667)
    expect(p.post.mean_net_flow_usd).toBeCloseTo(3.33, 2)
    expect(p.post.median_net_flow_usd).toBe(30)
    expect(p.mean_post_net_without_largest).toBe(65)
    expect(p.median_recovery_hours).toBe(3)
  })

  it("names a consistent reaction and the tokens that moved most", () => {
    const p = categoryPattern("fomc", [
      metricsWith(-5, 100, 1, [["ETH", 50], ["PEPE", -5]]),
      metricsWith(-5, 120, 1, [["ETH", 70], ["LINK", 20]]),
      metricsWith(-5, 90, 1, [["LINK", -80]])
    ])
    expect(p.verdict).toBe("net buying after")
    expect(p.hit_rate).toBe(1)
    expect(p.pre.mean_net_flow_usd).toBe(-5)
    expect(p.top_tokens.slice(0, 2)).toEqual([{ symbol: "ETH", net_flow_usd: 120, events: 2 }, { symbol: "LINK", net_flow_usd: -60, events: 2 }])
    expect(categoryPattern("etf", [metricsWith(1, 1, null)]).verdict).toBe("insufficient data")
  })

  it("bootstraps deterministically", () => {
    const xs = [1, 5, 9, 2, 8]
    expect(bootstrapMeanCi(xs)).toEqual(bootstrapMeanCi(xs))
    const [lo, hi] = bootstrapMeanCi(xs)!
    expect(lo).toBeLessThan(5)
    expect(hi).toBeGreaterThan(5)
    expect(median([3, 1, 2, 10])).toBe(2.5)
  })
})

describe("positioning gauge and confluence", () => {
  it("scales activity against the 7-day average of the same length", () => {
    expect(activityRatio(200, 7 * 100, 24)).toBe(2)
    expect(activityRatio(300, 7 * 100, 72)).toBe(1)
    expect(activityRatio(5, 0, 24)).toBeNull()
    expect(gauge(1, 1, true)).toBe(50)
    expect(gauge(2, 3, true)).toBe(100)
    expect(gauge(0.5, null, true)).toBe(25)
    expect(gauge(null, null, true)).toBe(100)
    expect(gauge(null, null, false)).toBe(0)
    expect(positioningDirection(15, 100)).toBe("accumulating")
    expect(positioningDirection(-15, 100)).toBe("distributing")
    expect(positioningDirection(5, 100)).toBe("neutral")
  })

  it("clusters two or more high-severity events within the window", () => {
    const d = (day: number, severity = 5, id = day) => ({ id, ts: t("2026-01-01T00:00:00Z") + day * DAY_MS, severity })
    const cs = confluence([d(0), d(5), d(14), d(15, 3), d(30), d(50), d(60)], 14)
    expect(cs.map((c) => c.events.map((e) => e.id))).toEqual([[0, 5, 14], [50, 60]])
  })
})

describe("calendar files", () => {
  it("accepts JSON and derives keys", () => {
    const r = parseCalendar(JSON.stringify([{ title: "CPI", category: "cpi", timestamp: "2026-01-13T08:30:00-05:00", severity: 4, tokens: ["eth"] }]))
    expect(r).toEqual({ _tag: "Ok", entries: [{ key: "cpi:2026-01-13T13:30:00.000Z", title: "CPI", category: "cpi", timestamp: "2026-01-13T13:30:00.000Z", severity: 4, tokens: ["ETH"] }] })
  })

  it("accepts CSV with quoted fields and token lists", () => {
    const csv = 'title,category,timestamp,severity,tokens,description\n"Jobs, December",jobs,2026-01-09T13:30:00Z,3,ETH|WBTC,"line one\nline ""two"""\n'
    const r = parseCalendar(csv)
    expect(r._tag).toBe("Ok")
    if (r._tag === "Ok") expect(r.entries[0]).toMatchObject({ title: "Jobs, December", tokens: ["ETH", "WBTC"], description: 'line one\nline "two"' })
  })

  it("rejects a file whole, listing every problem", () => {
    const csv = [
      "title,category,timestamp,severity",
      "Good,cpi,2026-01-13T13:30:00Z,4",
      ",weather,yesterday,9",
      "Dup,cpi,2026-01-13T13:30:00Z,4"
    ].join("\n")
    const r = parseCalendar(csv)
    expect(r._tag).toBe("Rejected")
    if (r._tag !== "Rejected") return
    expect(r.problems.map((p) => `${p.row}:${p.field}`)).toEqual(["3:title", "3:category", "3:timestamp", "3:severity", "4:key"])
    const problems = (text: string) => {
      const p = parseCalendar(text)
      return p._tag === "Rejected" ? p.problems : []
    }
    expect(problems("[{")[0]).toMatchObject({ row: 0, field: "file" })
    expect(problems("title,when\n")).toHaveLength(4)
  })

  it("ships a valid real calendar covering 2024-01 to 2026-12", () => {
    const r = parseCalendar(readFileSync(new URL("../../data/playbook-calendar.json", import.meta.url), "utf8"))
    expect(r._tag).toBe("Ok")
    if (r._tag !== "Ok") return
    const byKey = new Map(r.entries.map((e) => [e.key, e]))
    // FOMC decisions at 2:00 p.m. ET: daylight saving time → 18:00 UTC, standard time → 19:00 UTC.
    expect(byKey.get("fomc:2024-09-18")?.timestamp).toBe("2024-09-18T18:00:00.000Z")
    expect(byKey.get("fomc:2024-12-18")?.timestamp).toBe("2024-12-18T19:00:00.000Z")
    expect(byKey.get("cpi:2024-02-13")?.timestamp).toBe("2024-02-13T13:30:00.000Z")
    expect(byKey.get("upgrade:pectra")?.timestamp).toBe("2025-05-07T10:05:11.000Z")
    const fomc = r.entries.filter((e) => e.category === "fomc").map((e) => e.timestamp.slice(0, 4))
    expect(["2024", "2025", "2026"].map((y) => fomc.filter((x) => x === y).length)).toEqual([8, 8, 8])
    for (const e of r.entries) expect(e.source_url).toMatch(/^https:\/\//)
    expect(new Set(r.entries.map((e) => e.category)).size).toBeGreaterThanOrEqual(4)
    expect(CATEGORIES).toContain("exploit")
  })
})
