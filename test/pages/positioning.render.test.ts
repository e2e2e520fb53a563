/** `/positioning` per tier, rendered from the real read model: each tier sees exactly its part, nothing more. */
import { describe, expect, it } from "vitest"
import type { WalletTokenRow } from "../../server/domains/analytics/FlowsRepo"
import { buildPositioning, positioningFor } from "../../server/domains/analytics/PositioningModel"
import { FREE_ROWS, renderPositioning } from "../../server/domains/pages/PositioningPage"
import type { Tier } from "../../schema/tiers"

const hex = (i: number, width = 40) => `0x${i.toString(16).padStart(width, "0")}`
// 14 assets (ZZT01…ZZT14, most traded first), two wallets each, one of them a named accumulator
const rows: Array<WalletTokenRow> = []
for (let i = 1; i <= 14; i++) {
  const sym = `ZZT${String(i).padStart(2, "0")}`
  const gross = 1_000_000 * (20 - i)
  rows.push({ token: hex(1000 + i), symbol: sym, wallet: hex(5000 + i), label: `Accumulator Fund ${i}`, cohort: "mega", net7: gross / 4, gross7: gross / 2, net30: gross / 2, gross30: gross })
  rows.push({ token: hex(1000 + i), symbol: sym, wallet: hex(6000 + i), label: null, cohort: "mid", net7: -gross / 8, gross7: gross / 4, net30: -gross / 4, gross30: gross / 2 })
}
rows.push({ token: "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", symbol: "WETH", wallet: hex(7000), label: "Eth Whale", cohort: "large", net7: 5e6, gross7: 9e6, net30: 7e5, gross30: 1e6 })
const full = buildPositioning(rows)
const render = (tier: Tier) => renderPositioning(positioningFor(full, tier), tier, { generatedAt: "2026-11-24T05:00:00Z", demo: false })

describe("/positioning rendering per tier", () => {
  it("anon: majors, score and divergence; the asset table is a sign-up teaser", () => {
    const html = render("anon")
    expect(html).toContain("ETH")
    expect(html).toContain("Cohort divergence")
    expect(html).toContain("Sign up free")
    expect(html).not.toMatch(/ZZT\d\d/)
    expect(html).not.toContain("Size cohorts")
    expect(html).not.toContain("Accumulator Fund")
  })

  it(`free: the top ${FREE_ROWS} rows, then a Pro teaser`, () => {
    const html = render("free")
    for (let i = 1; i <= FREE_ROWS; i++) expect(html).toContain(`ZZT${String(i).padStart(2, "0")}`)
    for (let i = FREE_ROWS + 1; i <= 14; i++) expect(html).not.toContain(`ZZT${String(i).padStart(2, "0")}`)
    expect(html).toContain("Upgrade to Pro")
    expect(html).not.toContain("Size cohorts")
    expect(html).not.toContain("Accumulator Fund")
    expect(html).not.toContain("Sign up free")
  })

  it("pro: every asset and the size cohorts, no named wallets", () => {
    for (const tier of ["pro"] as const) {
      const html = render(tier)
      for (let i = 1; i <= 14; i++) expect(html).toContain(`ZZT${String(i).padStart(2, "0")}`)
      expect(html).toContain("Size cohorts")
      expect(html).not.toContain("Accumulator Fund")
      expect(html).not.toContain(hex(5001).slice(0, 6) + "…")
      expect(html).toContain("Named accumulator wallets are on Alpha")
    }
  })

  it("alpha and above: also the named accumulator wallets", () => {
    for (const tier of ["alpha", "whale", "staff"] as const) {
      const html = render(tier)
      expect(html).toContain("Accumulator Fund 1")
      expect(html).toContain("Top accumulators")
      expect(html).not.toContain("Upgrade to Pro")
    }
  })

  it("escapes what comes from data", () => {
    const hostile = buildPositioning([{ ...rows[0]!, symbol: "<script>x</script>", label: "<img src=x onerror=1>" }])
    const html = renderPositioning(positioningFor(hostile, "alpha"), "alpha", { generatedAt: "now", demo: true })
    expect(html).not.toContain("<script>x")
    expect(html).not.toContain("<img src=x")
    expect(html).toContain("Demo data")
  })
})
