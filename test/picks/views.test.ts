import { describe, expect, it } from "vitest"
import { DAY_MS } from "../../server/domains/picks/Rules"
import { behaviour, exitTimingIndex, type ExitRec, type PickRec, sample, summary, tokens, topRunners, truncateAddress, wallets } from "../../server/domains/picks/Views"

const NOW = Date.parse("2026-06-01T00:00:00Z")
let nextId = 1
const pick = (o: Partial<PickRec>): PickRec => ({
  id: nextId++, token: "0xt1", symbol: "AAA", flaggedAt: NOW - 20 * DAY_MS, status: "GRADED", whales: 3, flaggers: ["0xa", "0xb", "0xc"],
  conviction: 50, entryPrice: 1, peakReturn: 0.2, closeReturn: 0.1, maxAdverse: -0.05, exitedBeforeClose: false,
  dayCloses: [1, 1, 1, 1, 1, 1, 1.1], gradedAt: NOW - 13 * DAY_MS, ...o
})

describe("picks views", () => {
  it("withholds every rate below the minimum n and gives it with its interval at n", () => {
    const few = Array.from({ length: 19 }, () => pick({}))
    const s1 = summary(few, [], { minWhales: 3, windowHours: 24, minN: 20 }, false)
    expect(s1.close.positive).toMatchObject({ n: 19, value: null, insufficient: true })
    expect(s1.close.mean).toBeNull()
    const s2 = summary([...few, pick({ closeReturn: -0.1 })], [], { minWhales: 3, windowHours: 24, minN: 20 }, false)
    expect(s2.close.positive).toMatchObject({ n: 20, hits: 19, value: 0.95, insufficient: false })
    expect(s2.close.positive.low).toBeLessThan(0.95)
    expect(s2.counts).toMatchObject({ total: 20, graded: 20, pending: 0, tokens: 1 })
  })

  it("the backtest sample takes the last 90 days of graded picks and excludes individual fires", () => {
    const inside = pick({ flaggedAt: NOW - 30 * DAY_MS })
    const individual = pick({ flaggedAt: NOW - 30 * DAY_MS, whales: 1, flaggers: ["0xa"], closeReturn: 5 })
    const tooOld = pick({ flaggedAt: NOW - 120 * DAY_MS })
    const notGradedYet = pick({ flaggedAt: NOW - 3 * DAY_MS, status: "PENDING", closeReturn: null })
    const unpriced = pick({ flaggedAt: NOW - 30 * DAY_MS, status: "UNPRICED" })
    const s = sample([inside, individual, tooOld, notGradedYet, unpriced], NOW, 1, false)
    expect(s).toMatchObject({ picks: 1, excluded_individual: 1, window_days: 90 })
    expect(s.median_close.value).toBe(0.1)
  })

  it("top runners stay within the 10–300 % band; the exit-timing index keeps two picks per token", () => {
    const ps = [pick({ peakReturn: 0.09 }), pick({ peakReturn: 0.1 }), pick({ peakReturn: 3 }), pick({ peakReturn: 3.01 })]
    expect(topRunners(ps, 25).map((p) => p.peakReturn)).toEqual([3, 0.1])
    expect(topRunners(ps, 1)).toHaveLength(1)
    const same = [pick({}), pick({}), pick({}), pick({ token: "0xt2" })]
    const counts = new Map(same.map((p, i) => [p.id, 8 + i]))
    expect(exitTimingIndex(same, counts, 8).map((p) => p.id)).toEqual([same[3]!.id, same[2]!.id, same[1]!.id])
    expect(exitTimingIndex(same, counts, 11).map((p) => p.id)).toEqual([same[3]!.id])
  })

  it("wallets: tracked wallets only, truncated, filtered by min_picks; behaviour counts routes", () => {
    const p1 = pick({})
    const p2 = pick({})
    const exits: Array<ExitRec> = [
      { pickId: p1.id, wallet: "0x1111111111111111111111111111111111111111", ts: 0, dayOffset: 0, hours: 5, price: 1, move: 0.1, route: "dex_sell" },
      { pickId: p2.id, wallet: "0x1111111111111111111111111111111111111111", ts: 0, dayOffset: 2, hours: 50, price: 1, move: -0.1, route: "exchange_deposit" },
      { pickId: p1.id, wallet: "0x2222222222222222222222222222222222222222", ts: 0, dayOffset: 1, hours: 30, price: null, move: null, route: "dex_sell" }
    ]
    const tracked = new Set(["0x1111111111111111111111111111111111111111"])
    const w = wallets([p1, p2], exits, tracked, "picks", 1)
    expect(w.wallets).toEqual([{ wallet: "0x1111…1111", picks: 2, median_hold_hours: 27.5, median_exit_move: 0, dex_sells: 1, exchange_deposits: 1 }])
    expect(wallets([p1, p2], exits, tracked, "picks", 3).wallets).toEqual([])
    expect(truncateAddress("0x2222222222222222222222222222222222222222")).toBe("0x2222…2222")
    const b = behaviour([p1, p2], exits, 1)
    expect(b).toMatchObject({ exits: 3, picks_with_exits: 2, routes: { dex_sell: 2, exchange_deposit: 1 } })
    expect(b.by_day).toEqual([{ day_offset: 0, exits: 1 }, { day_offset: 1, exits: 1 }, { day_offset: 2, exits: 1 }])
  })

  it("tokens: one row per token, limited", () => {
    const ps = [pick({}), pick({}), pick({ token: "0xt2", symbol: "BBB" })]
    const t = tokens(ps, 60, 1)
    expect(t.tokens.map((r) => [r.symbol, r.picks])).toEqual([["AAA", 2], ["BBB", 1]])
    expect(tokens(ps, 1, 1).tokens).toHaveLength(1)
  })
})
