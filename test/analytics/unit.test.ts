/** Pure parts of the analytics, API-key and badge code: windows, the index formula, tier views, key format. */
import { describe, expect, it } from "vitest"
import { untilNextClose } from "../../server/domains/analytics/Windows"
import { computeIndex, EMPTY_DAY, labelOf, WEIGHTS } from "../../server/domains/analytics/IndexFormula"
import { buildPositioning, positioningFor } from "../../server/domains/analytics/PositioningModel"
import { windowOf } from "../../server/domains/analytics/Windows"
import { generateKey, hashKey, looksLikeKey, prefixOf } from "../../server/domains/apikeys/Format"
import { badgeSvg } from "../../server/gateways/publicapi/Badge"

const t = (iso: string) => Date.parse(iso)

describe("sliding windows", () => {
  it("splits (now − length, now] into whole roll-up hours and two partial edges", () => {
    const w = windowOf("24H", t("2026-06-01T12:34:56Z"))
    expect(w.from.toISOString()).toBe("2026-05-31T12:34:56.000Z")
    expect(w.fullFrom.toISOString()).toBe("2026-05-31T13:00:00.000Z")
    expect(w.fullTo.toISOString()).toBe("2026-06-01T12:00:00.000Z")
  })

  it("has no whole hour in 1H unless aligned, and never counts a record at exactly `from`", () => {
    const w = windowOf("1H", t("2026-06-01T12:34:56Z"))
    expect(w.fullFrom.getTime()).toBe(w.fullTo.getTime())
    const aligned = windowOf("1H", t("2026-06-01T12:00:00Z"))
    expect(aligned.from.toISOString()).toBe("2026-06-01T11:00:00.000Z")
    // The bucket starting at `from` would include a record at `from`: it is read from whale_tx instead.
    expect(aligned.fullFrom.toISOString()).toBe("2026-06-01T12:00:00.000Z")
  })
})

describe("index formula", () => {
  it("weights sum to 1 and an empty day is neutral", () => {
    expect(Object.values(WEIGHTS).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12)
    const idx = computeIndex(EMPTY_DAY("2026-06-01"), [])
    expect(idx).toMatchObject({ score: 50, label: "Neutral" })
    expect(idx.components.every((c) => c.score === 50 && c.raw === null)).toBe(true)
  })

  it("all buying with rising momentum is 100; all selling is 0", () => {
    const prev = [{ ...EMPTY_DAY("2026-05-31"), buyUsd: 100, sellUsd: 100 }]
    const up = computeIndex({ day: "2026-06-01", buyUsd: 1000, sellUsd: 0, withdrawUsd: 10, depositUsd: 0, buyers: 3, sellers: 0 }, prev)
    expect(up).toMatchObject({ score: 100, label: "Extreme buying" })
    const down = computeIndex({ day: "2026-06-01", buyUsd: 0, sellUsd: 1000, withdrawUsd: 0, depositUsd: 10, buyers: 0, sellers: 3 }, prev)
    expect(down).toMatchObject({ score: 0, label: "Extreme selling" })
  })

  it("labels by bands", () => {
    expect([19.9, 20, 39.9, 40, 60, 60.1, 80, 80.1].map(labelOf)).toEqual([
      "Extreme selling", "Selling", "Selling", "Neutral", "Neutral", "Buying", "Buying", "Extreme buying"
    ])
  })
})

describe("positioning views by tier", () => {
  const row = (token: string, wallet: string, net: number, cohort: "mega" | "mid") => ({
    token, symbol: token.slice(2, 6), wallet, label: `w${wallet}`, cohort, net7: net, gross7: Math.abs(net), net30: net, gross30: Math.abs(net)
  })
  const full = buildPositioning(Array.from({ length: 12 }, (_, i) => row(`0x${String(i).padStart(40, "0")}`, String(i), (i + 1) * (i % 2 ? -1 : 1), i % 2 ? "mid" : "mega")))

  it("anon: 5 rows without cohorts or wallets; free 10; pro all with cohorts; alpha also wallets", () => {
    const anon = positioningFor(full, "anon")
    expect(anon.assets).toHaveLength(5)
    expect(anon.cohorts).toBeUndefined()
    expect(anon.assets.some((a) => a.cohorts || a.top_accumulators)).toBe(false)
    expect(positioningFor(full, "free").assets).toHaveLength(10)
    const pro = positioningFor(full, "pro")
    expect(pro.assets).toHaveLength(12)
    expect(pro.cohorts).toHaveLength(4)
    expect(pro.assets.every((a) => a.cohorts && !a.top_accumulators)).toBe(true)
    expect(positioningFor(full, "alpha").assets.every((a) => a.top_accumulators)).toBe(true)
  })

  it("divergence compares the cohorts' directions", () => {
    // mega wallets only buy (+1), mid wallets only sell (−1): the widest gap.
    expect(full.divergence.score).toBe(100)
    expect(full.divergence.description).toBe("mega wallets accumulating while mid wallets distributing")
  })
})

describe("API keys", () => {
  it("are whk_live_ + 32 base62 characters, distinct, hashed with sha256 and listed by their first 12 characters", () => {
    const keys = new Set(Array.from({ length: 200 }, generateKey))
    expect(keys.size).toBe(200)
    for (const k of keys) expect(looksLikeKey(k)).toBe(true)
    const k = [...keys][0]!
    expect(prefixOf(k)).toHaveLength(12)
    expect(prefixOf(k).startsWith("whk_live_")).toBe(true)
    expect(hashKey(k)).toMatch(/^[0-9a-f]{64}$/)
    expect(looksLikeKey(`${k}x`)).toBe(false)
    expect(looksLikeKey(k.replace(/.$/, "-"))).toBe(false)
  })
})

describe("badge and closer timing", () => {
  it("draws the score and label, marking demo data", () => {
    const svg = badgeSvg({ score: 62.5, label: "Buying" }, true)
    expect(svg).toContain("62.5 Buying")
    expect(svg).toContain("whale index (demo)")
    expect(svg).toContain("#97ca00")
  })

  it("sleeps until the next day boundary plus the delay", () => {
    expect(untilNextClose(t("2026-06-01T23:59:00Z"), 120_000)).toBe(60_000 + 120_000 + 1_000)
    // Just after midnight but before the delay is over: yesterday's close is still due at 00:02.
    expect(untilNextClose(t("2026-06-02T00:01:00Z"), 120_000)).toBe(60_000 + 1_000)
  })
})
