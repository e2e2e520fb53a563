/**
 * The demo history generator (pure): the shape of 120 days of demo whale activity — days covered, cohorts, regimes
 * with pumps and whale exits ending both ways, exchange flows, macro-event pre-positioning and reactions, prices
 * consistent with the swaps — and its determinism for a seed.
 */
import { describe, expect, it } from "vitest"
import { loadReference } from "../../server/domains/chain/Reference.js"
import type { WhaleRecord } from "../../server/domains/chain/Types.js"
import { BUILTIN_EVENTS, eventsBetween, newYork, parseCalendar } from "../../server/domains/chain/demo/Calendar.js"
import { blockAt, DEFAULT_CLOCK, makeHistory, PRE_HOURS, REACTION_HOURS, riskOn } from "../../server/domains/chain/demo/History.js"
import { DAY, HOUR, makeMarket, PUMP, WETH } from "../../server/domains/chain/demo/Market.js"
import { demoWallets } from "../../server/domains/chain/demo/Wallets.js"

const ref = loadReference()
const labels = [...ref.labels.values()]
const exchanges = [...new Set(labels.flatMap((l) => (l.category === "exchange" ? [l.exchange] : [])))]
const routers = [...new Set(labels.flatMap((l) => (l.category === "router" ? [l.venue] : [])))]
const TO = Date.parse("2026-11-24T05:00:00Z")
const FROM = TO - 120 * DAY

const build = (seed: number) => {
  const market = makeMarket(seed, ref.tokens.values(), BUILTIN_EVENTS)
  const wallets = demoWallets(seed, exchanges, routers)
  return { market, wallets, history: makeHistory({ seed, market, wallets }) }
}
const { market, wallets, history } = build(1)
const records: Array<WhaleRecord> = []
for (const batch of history.hours(FROM, TO)) records.push(...batch)
const walletOf = new Map(wallets.map((w) => [w.address, w]))
const tokenOf = new Map(market.tokens.map((t) => [t.address, t]))

describe("demo history", () => {
  it("covers every day of the window with about a hundred wallets in three cohorts", () => {
    const days = new Set(records.map((r) => r.ts.toISOString().slice(0, 10)))
    expect(days.size).toBeGreaterThanOrEqual(120)
    expect(records.every((r) => r.ts.getTime() >= FROM && r.ts.getTime() < TO)).toBe(true)
    expect(wallets.length).toBeGreaterThanOrEqual(90)
    expect(wallets.length).toBeLessThanOrEqual(110)
    const active = new Set(records.map((r) => r.wallet))
    expect(active.size).toBeGreaterThanOrEqual(wallets.length - 2)
    const cohorts = new Map<string, number>()
    for (const r of records) cohorts.set(walletOf.get(r.wallet)!.cohort, (cohorts.get(walletOf.get(r.wallet)!.cohort) ?? 0) + 1)
    expect([...cohorts.keys()].sort()).toEqual(["large", "mega", "mid"])
    // Cohorts keep their habits: a mega wallet's median trade is bigger than a mid wallet's.
    const median = (c: string) => {
      const xs = records.filter((r) => walletOf.get(r.wallet)!.cohort === c).map((r) => r.usd!).sort((a, b) => a - b)
      return xs[Math.floor(xs.length / 2)]!
    }
    expect(median("mega")).toBeGreaterThan(3 * median("mid"))
    const perDay = records.length / 120
    expect(perDay).toBeGreaterThan(400)
    expect(perDay).toBeLessThan(3_000)
  })

  it("has swaps both ways and exchange deposits and withdrawals, with amounts consistent with the prices", () => {
    const categories = new Map<string, number>()
    for (const r of records) categories.set(r.category, (categories.get(r.category) ?? 0) + 1)
    for (const c of ["dex_buy", "dex_sell", "exchange_deposit", "exchange_withdraw"]) expect(categories.get(c)).toBeGreaterThan(records.length / 20)
    for (const r of records.filter((_, i) => i % 97 === 0)) {
      const token = tokenOf.get(r.token)!
      const price = market.usd(token, r.ts.getTime())
      expect(Math.abs(Number(r.amount) * price - r.usd!) / r.usd!).toBeLessThan(0.01)
      expect(r.amountRaw).toMatch(/^\d+$/)
      expect(r.block).toBe(blockAt(DEFAULT_CLOCK, r.ts.getTime()))
      if (r.counterToken === WETH) {
        expect(Math.abs(Number(r.counterAmount) * market.ethUsd(r.ts.getTime()) - r.usd!) / r.usd!).toBeLessThan(0.01)
      } else if (r.counterToken !== null) {
        expect(tokenOf.get(r.counterToken)!.stable).toBe(true)
        expect(Math.abs(Number(r.counterAmount) - r.usd!) / r.usd!).toBeLessThan(0.01)
      } else {
        expect(r.category.startsWith("exchange_")).toBe(true)
        expect(exchanges).toContain(r.venue)
      }
    }
    const keys = new Set(records.map((r) => `${r.txHash}:${r.logIndex}:${r.wallet}:${r.token}`))
    expect(keys.size).toBe(records.length)
  })

  it("has pumps that several whales accumulate and exit, ending above and below the entry", () => {
    const pumps = new Map<string, { token: string; start: number; end: number; delta: number; peak: number }>()
    for (const t of market.tokens) {
      for (let ms = FROM; ms < TO; ms += DAY) {
        const s = market.segmentAt(t, ms)
        if (s.kind === "pump" && s.start >= FROM && s.end <= TO) pumps.set(`${t.address}:${s.index}`, s)
      }
    }
    expect(pumps.size).toBeGreaterThanOrEqual(4)
    let wins = 0
    let losses = 0
    let withExits = 0
    for (const s of pumps.values()) {
      const token = tokenOf.get(s.token)!
      const span = s.end - s.start
      const runUp = s.start + PUMP.runUp * span
      const peak = s.start + PUMP.peak * span
      const exited = s.start + PUMP.exited * span
      const ofToken = records.filter((r) => r.token === s.token && r.category.startsWith("dex_"))
      const buyers = new Set(ofToken.filter((r) => r.category === "dex_buy" && r.ts.getTime() >= s.start && r.ts.getTime() < runUp).map((r) => r.wallet))
      const exiters = new Set(ofToken.filter((r) => r.category === "dex_sell" && r.ts.getTime() >= peak && r.ts.getTime() < exited && buyers.has(r.wallet)).map((r) => r.wallet))
      if (buyers.size >= 3 && exiters.size >= 2) withExits++
      // The move over the run-up is a pump; the close 7 days after the run-up began decides the pick.
      const entry = market.usd(token, runUp)
      expect(market.usd(token, peak) / entry).toBeGreaterThan(1.15)
      if (market.usd(token, runUp + 7 * DAY) > entry) wins++
      else losses++
    }
    expect(withExits).toBeGreaterThanOrEqual(3)
    expect(wins).toBeGreaterThan(0)
    expect(losses).toBeGreaterThan(0)
  })

  it("pre-positions before macro events and reacts after them", () => {
    const events = eventsBetween(BUILTIN_EVENTS, FROM + 3 * DAY, TO - DAY)
    expect(events.length).toBeGreaterThanOrEqual(6)
    expect(new Set(events.map((e) => e.category))).toEqual(new Set(["FOMC", "CPI"]))
    let reacting = 0
    let positioned = 0
    for (const e of events) {
      const count = (from: number, to: number) => records.filter((r) => r.ts.getTime() >= from && r.ts.getTime() < to).length
      const after = count(e.at, e.at + REACTION_HOURS * HOUR)
      const baseline = count(e.at - 3 * DAY, e.at - 2 * DAY) / (24 / REACTION_HOURS)
      if (after > 2 * baseline) reacting++
      const ethNet = records
        .filter((r) => r.token === WETH && r.category.startsWith("dex_") && walletOf.get(r.wallet)!.habit.macro)
        .filter((r) => r.ts.getTime() >= e.at - PRE_HOURS * HOUR && r.ts.getTime() < e.at)
        .reduce((s, r) => s + (r.category === "dex_buy" ? r.usd! : -r.usd!), 0)
      if (ethNet > 0 === riskOn(1, e)) positioned++
    }
    expect(reacting).toBeGreaterThanOrEqual(events.length - 1)
    expect(positioned).toBeGreaterThanOrEqual(events.length - 1)
  })

  it("is deterministic for a seed, an hour at a time, and differs between seeds", () => {
    const hour = Date.parse("2026-10-01T15:00:00Z")
    expect(build(1).history.hour(hour)).toEqual(history.hour(hour))
    expect(records.filter((r) => r.ts.getTime() >= hour && r.ts.getTime() < hour + HOUR)).toEqual(history.hour(hour))
    const other = build(2).history.hour(hour)
    expect(other.length).toBeGreaterThan(0)
    expect(other).not.toEqual(history.hour(hour))
    expect(build(1).market.ethUsd(hour)).toBe(market.ethUsd(hour))
    expect(build(2).market.ethUsd(hour)).not.toBe(market.ethUsd(hour))
  })
})

describe("demo calendar", () => {
  it("places FOMC at 14:00 and CPI at 08:30 New York time across daylight saving", () => {
    expect(new Date(newYork("2026-09-16", 14, 0)).toISOString()).toBe("2026-09-16T18:00:00.000Z")
    expect(new Date(newYork("2026-12-09", 14, 0)).toISOString()).toBe("2026-12-09T19:00:00.000Z")
    expect(new Date(newYork("2026-11-10", 8, 30)).toISOString()).toBe("2026-11-10T13:30:00.000Z")
  })

  it("reads a playbook calendar file of several shapes and skips entries without a time", () => {
    const events = parseCalendar({
      events: [
        { category: "FOMC", title: "Rate decision", timestamp: "2026-12-09T19:00:00Z", severity: "high" },
        { category: "CPI", name: "CPI", ts: 1_765_373_400 },
        { category: "NFP", date: "2026-12-04" },
        { category: "broken" }
      ]
    })
    expect(events.map((e) => [e.category, new Date(e.at).toISOString(), e.severity])).toEqual([
      ["NFP", "2026-12-04T00:00:00.000Z", 2],
      ["CPI", "2025-12-10T13:30:00.000Z", 2],
      ["FOMC", "2026-12-09T19:00:00.000Z", 3]
    ].sort((a, b) => String(a[1]).localeCompare(String(b[1]))))
    expect(parseCalendar("nonsense")).toEqual([])
  })
})
