import { describe, expect, it } from "vitest"
import { histogram, median, rate, RETURN_EDGES, wilson } from "../../server/domains/picks/Stats"

describe("picks statistics", () => {
  it("gives rates with a 95 % Wilson interval and none below the minimum n", () => {
    // Wilson 95 % for 12 / 20: centre 0.5835, half-width 0.2017 (standard tables: 0.387–0.781).
    const r = rate(12, 20, 20)
    expect(r).toMatchObject({ hits: 12, n: 20, value: 0.6, insufficient: false })
    expect(r.low).toBeCloseTo(0.3866, 3)
    expect(r.high).toBeCloseTo(0.7812, 3)
    expect(rate(12, 19, 20)).toEqual({ hits: 12, n: 19, value: null, low: null, high: null, insufficient: true })
    const all = wilson(10, 10)
    expect(all.high).toBeCloseTo(1, 12)
    expect(all.low).toBeCloseTo(0.7225, 3)
  })

  it("gives medians with an order-statistic interval", () => {
    const xs = Array.from({ length: 20 }, (_, i) => i + 1)
    // n = 20: P(X ≤ 5) = 0.0207 ≤ 0.025 < P(X ≤ 6): [x(6), x(15)].
    expect(median(xs, 5)).toEqual({ n: 20, value: 10.5, low: 6, high: 15 })
    expect(median([1, 2, 3], 5)).toEqual({ n: 3, value: null, low: null, high: null })
    expect(median([3, 1, 2, 5, 4], 1)).toEqual({ n: 5, value: 3, low: null, high: null })
  })

  it("bins returns on fixed edges with an open last bin", () => {
    const h = histogram([-2, -0.3, 0, 0.05, 0.1, 5], RETURN_EDGES)
    expect(h[0]).toEqual({ from: -1, to: -0.5, count: 1 })
    expect(h.find((b) => b.from === -0.5)!.count).toBe(1)
    expect(h.find((b) => b.from === 0)!.count).toBe(2)
    expect(h.find((b) => b.from === 0.1)!.count).toBe(1)
    expect(h.at(-1)).toEqual({ from: 3, to: null, count: 1 })
    expect(h.reduce((a, b) => a + b.count, 0)).toBe(6)
  })
})
