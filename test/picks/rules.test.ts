import { describe, expect, it } from "vitest"
import {
  breadthOf, conviction, DAY_MS, decideFlag, defaultRules, exitOf, grade, HOUR_MS, marks, netBuyers, type WindowTrade
} from "../../server/domains/picks/Rules"

const T = Date.parse("2026-03-01T12:00:00Z")
const buy = (wallet: string, ts: number, amount = 10, price: number | null = 2): WindowTrade =>
  ({ wallet, side: "buy", amount, usd: price === null ? null : amount * price, price, ts })
const sell = (wallet: string, ts: number, amount = 10, price: number | null = 2): WindowTrade =>
  ({ wallet, side: "sell", amount, usd: price === null ? null : amount * price, price, ts })

describe("flagging rule", () => {
  it("flags at the threshold and not one short of it", () => {
    const two = [buy("0xa", T - 2 * HOUR_MS), buy("0xb", T - HOUR_MS)]
    const third = buy("0xc", T)
    expect(decideFlag(two[1]!, two, false, defaultRules)).toBeNull()
    const flag = decideFlag(third, [...two, third], false, defaultRules)
    expect(flag?.buyers.map((b) => b.wallet)).toEqual(["0xa", "0xb", "0xc"])
    expect(flag?.entryPrice).toBe(2)
    // The same wallet buying three times is one whale.
    const same = [buy("0xa", T - 2), buy("0xa", T - 1), buy("0xb", T)]
    expect(decideFlag(same[2]!, same, false, defaultRules)).toBeNull()
  })

  it("counts net buyers only: a wallet that sold more than it bought in the window is not one", () => {
    const trades = [buy("0xa", T - 3 * HOUR_MS, 10), sell("0xa", T - 2 * HOUR_MS, 11), buy("0xb", T - HOUR_MS), buy("0xc", T)]
    expect(decideFlag(trades[3]!, trades, false, defaultRules)).toBeNull()
    const even = [buy("0xa", T - 3 * HOUR_MS, 10), sell("0xa", T - 2 * HOUR_MS, 10), buy("0xb", T - HOUR_MS), buy("0xc", T)]
    expect(netBuyers(even, T, defaultRules.windowMs).map((b) => b.wallet)).toEqual(["0xb", "0xc"])
  })

  it("honours the window edges: (t − 24 h, t]", () => {
    const atEdge = [buy("0xa", T - 24 * HOUR_MS), buy("0xb", T - HOUR_MS), buy("0xc", T)]
    expect(decideFlag(atEdge[2]!, atEdge, false, defaultRules)).toBeNull()
    const inside = [buy("0xa", T - 24 * HOUR_MS + 1), buy("0xb", T - HOUR_MS), buy("0xc", T)]
    expect(decideFlag(inside[2]!, inside, false, defaultRules)).not.toBeNull()
    // A trade after the trigger never counts (no look-ahead).
    const later = [buy("0xa", T + 1), buy("0xb", T - HOUR_MS), buy("0xc", T)]
    expect(decideFlag(later[2]!, later, false, defaultRules)).toBeNull()
  })

  it("keeps one open pick per token, flags on buys only, and takes the last window price without a trigger price", () => {
    const trades = [buy("0xa", T - 3 * HOUR_MS, 10, 1.5), buy("0xb", T - HOUR_MS, 10, 1.75), buy("0xc", T, 10, null)]
    expect(decideFlag(trades[2]!, trades, true, defaultRules)).toBeNull()
    expect(decideFlag(trades[2]!, trades, false, defaultRules)?.entryPrice).toBe(1.75)
    const unpriced = trades.map((t) => ({ ...t, price: null, usd: null }))
    expect(decideFlag(unpriced[2]!, unpriced, false, defaultRules)?.entryPrice).toBeNull()
    expect(decideFlag(sell("0xd", T), [...trades, sell("0xd", T)], false, defaultRules)).toBeNull()
  })

  it("uses the configured threshold and window", () => {
    const trades = [buy("0xa", T - 30 * HOUR_MS), buy("0xb", T)]
    expect(decideFlag(trades[1]!, trades, false, { ...defaultRules, minWhales: 2 })).toBeNull()
    expect(decideFlag(trades[1]!, trades, false, { ...defaultRules, minWhales: 2, windowMs: 48 * HOUR_MS })).not.toBeNull()
  })
})

describe("conviction", () => {
  const buyers = [
    { wallet: "0xa", netAmount: 1, netUsd: 100_000 },
    { wallet: "0xb", netAmount: 1, netUsd: 100_000 },
    { wallet: "0xc", netAmount: 1, netUsd: 100_000 }
  ]
  it("scores count, size, breadth and record on 0–100", () => {
    const c = conviction(buyers, [], T, 3)
    // count 3/6 = 0.5, size log10(300000/10000)/3 = 0.49237, breadth 1, record (0+1)/(0+2) = 0.5
    expect(c.score).toBe(Math.round(1000 * (0.3 * 0.5 + 0.25 * (Math.log10(30) / 3) + 0.15 * 1 + 0.3 * 0.5)) / 10)
    expect(c).toMatchObject({ whales: 3, usd: 300_000, breadth: 1, hitRate: 0.5, history: 0 })
  })

  it("is point-in-time: grades known only after the flag never change the score", () => {
    const known = { flaggers: ["0xa"], gradedAt: T - DAY_MS, closeReturn: 0.2 }
    const later = { flaggers: ["0xb"], gradedAt: T + 1, closeReturn: -0.5 }
    const before = conviction(buyers, [known], T, 3)
    expect(before.history).toBe(1)
    expect(before.hitRate).toBeCloseTo(2 / 3, 4)
    expect(conviction(buyers, [known, later], T, 3)).toEqual(before)
    // A grade of other wallets' picks does not count either.
    expect(conviction(buyers, [known, { flaggers: ["0xz"], gradedAt: T - 1, closeReturn: -1 }], T, 3)).toEqual(before)
  })

  it("measures breadth as evenness of the flaggers' USD", () => {
    expect(breadthOf([1, 1, 1])).toBe(1)
    expect(breadthOf([1, 0, 0])).toBe(0)
    expect(breadthOf([5])).toBe(0)
    expect(breadthOf([3, 1])).toBeCloseTo((1 / (0.75 ** 2 + 0.25 ** 2) - 1) / 1, 10)
  })
})

describe("grading on the 7-day close", () => {
  const flaggedAt = T
  const points = [
    { ts: T + 2 * HOUR_MS, price: 1.8 },
    { ts: T + 2 * DAY_MS, price: 3 },
    { ts: T + 6 * DAY_MS + 23 * HOUR_MS, price: 2.5 },
    { ts: T + 7 * DAY_MS, price: 2.4 },
    { ts: T + 7 * DAY_MS + 1, price: 9 }
  ]

  it("stays PENDING until exactly 7 × 24 h, then grades close, highest reading and adverse move", () => {
    expect(grade({ flaggedAt, entryPrice: 2 }, points, [], T + 7 * DAY_MS - 1, defaultRules)).toBeNull()
    const g = grade({ flaggedAt, entryPrice: 2 }, points, [T + 3 * DAY_MS], T + 7 * DAY_MS, defaultRules)
    expect(g).toMatchObject({ status: "GRADED", closePrice: 2.4, exitedBeforeClose: true })
    if (g?.status !== "GRADED") throw new Error("graded expected")
    expect(g.closeReturn).toBeCloseTo(0.2, 12)
    expect(g.peakReturn).toBeCloseTo(0.5, 12)
    expect(g.maxAdverse).toBeCloseTo(-0.1, 12)
    expect(g.marks.dayCloses).toEqual([1.8, 3, 3, 3, 3, 3, 2.4])
  })

  it("grades UNPRICED without an entry price or a recent close, never guessing", () => {
    expect(grade({ flaggedAt, entryPrice: null }, points, [], T + 8 * DAY_MS, defaultRules)).toMatchObject({ status: "UNPRICED", reason: "no entry price" })
    expect(grade({ flaggedAt, entryPrice: 2 }, [], [], T + 8 * DAY_MS, defaultRules)).toMatchObject({ status: "UNPRICED" })
    const stale = [{ ts: T + 4 * DAY_MS, price: 3 }]
    expect(grade({ flaggedAt, entryPrice: 2 }, stale, [], T + 8 * DAY_MS, defaultRules)).toMatchObject({ status: "UNPRICED", reason: "no recent price at the 7-day mark" })
    expect(grade({ flaggedAt, entryPrice: 2 }, stale, [], T + 8 * DAY_MS, { ...defaultRules, closeMaxAgeMs: 3 * DAY_MS })).toMatchObject({ status: "GRADED", closePrice: 3 })
  })

  it("exits after the 7 days do not count as exited before the close; a max adverse move is never positive", () => {
    const g = grade({ flaggedAt, entryPrice: 1 }, points, [T + 7 * DAY_MS + 1], T + 9 * DAY_MS, defaultRules)
    expect(g).toMatchObject({ status: "GRADED", exitedBeforeClose: false, maxAdverse: 0 })
  })

  it("marks a pending pick with its highest reading so far", () => {
    const m = marks(flaggedAt, points, T + 3 * DAY_MS)
    expect(m.peak).toBe(3)
    expect(m.dayCloses).toEqual([1.8, 3, 3, null, null, null, null])
  })
})

describe("exits", () => {
  const pick = { flaggedAt: T, entryPrice: 2, flaggers: ["0xa", "0xb", "0xc"] }
  it("dates a flagging whale's DEX sell or exchange deposit, with its route and move", () => {
    expect(exitOf(pick, { wallet: "0xa", category: "dex_sell", ts: T + 26 * HOUR_MS, price: 3 }, null)).toEqual({
      wallet: "0xa", ts: T + 26 * HOUR_MS, dayOffset: 1, hours: 26, price: 3, move: 0.5, route: "dex_sell"
    })
    expect(exitOf(pick, { wallet: "0xb", category: "exchange_deposit", ts: T + HOUR_MS, price: null }, 1.5)).toMatchObject({
      dayOffset: 0, price: 1.5, move: -0.25, route: "exchange_deposit"
    })
    expect(exitOf(pick, { wallet: "0xb", category: "exchange_deposit", ts: T + HOUR_MS, price: null }, null)).toMatchObject({ price: null, move: null })
  })

  it("ignores other wallets, buys, records at or before the flag and after 30 days", () => {
    expect(exitOf(pick, { wallet: "0xz", category: "dex_sell", ts: T + 1, price: 3 }, null)).toBeNull()
    expect(exitOf(pick, { wallet: "0xa", category: "dex_buy", ts: T + 1, price: 3 }, null)).toBeNull()
    expect(exitOf(pick, { wallet: "0xa", category: "exchange_withdraw", ts: T + 1, price: 3 }, null)).toBeNull()
    expect(exitOf(pick, { wallet: "0xa", category: "dex_sell", ts: T, price: 3 }, null)).toBeNull()
    expect(exitOf(pick, { wallet: "0xa", category: "dex_sell", ts: T + 30 * DAY_MS, price: 3 }, null)).toMatchObject({ dayOffset: 30 })
    expect(exitOf(pick, { wallet: "0xa", category: "dex_sell", ts: T + 30 * DAY_MS + 1, price: 3 }, null)).toBeNull()
  })
})
