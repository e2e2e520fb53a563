/** The console's number formatting (client/src/lib/format.ts): what a trader reads. */
import { describe, expect, it } from "vitest"
import { ago, amount, countdown, money, price, shortAddress, signedPct, signedUsd, usd } from "../../client/src/lib/format"

describe("console formatting", () => {
  it("writes USD compactly, flows with their sign", () => {
    expect(usd(1_240_000)).toBe("$1.24M")
    expect(usd(950_400)).toBe("$950.4K")
    expect(usd(12.5)).toBe("$12.5")
    expect(usd(-3_000)).toBe("-$3K")
    expect(usd(null)).toBe("—")
    expect(signedUsd(2_100_000)).toBe("+$2.1M")
    expect(signedUsd(-340_000)).toBe("−$340K")
    expect(signedUsd(0)).toBe("$0")
  })

  it("gives small prices their digits and counts leading zeros like a DEX screen", () => {
    expect(price(3_201.7)).toBe("$3,202")
    expect(price(4.5)).toBe("$4.50")
    expect(price(0.2214)).toBe("$0.221")
    expect(price(0.00000906)).toBe("$0.0₅906")
    expect(amount("1234567.5")).toBe("1.23M")
    expect(amount("12.5")).toBe("12.5")
  })

  it("says how long ago, and shortens addresses", () => {
    const now = Date.parse("2026-01-01T12:00:00Z")
    expect(ago("2026-01-01T11:59:58Z", now)).toBe("just now")
    expect(ago("2026-01-01T11:59:18Z", now)).toBe("42s ago")
    expect(ago("2026-01-01T11:55:00Z", now)).toBe("5m ago")
    expect(ago("2025-12-30T12:00:00Z", now)).toBe("2d ago")
    expect(shortAddress("0x28c6c06298d514db089934071355e5743bf21d60")).toBe("0x28c6…1d60")
    expect(shortAddress("0x28c6…1d60")).toBe("0x28c6…1d60")
  })

  it("signs percent changes like flows and writes exact money to the cent", () => {
    expect(signedPct(3.2149)).toBe("+3.2 %")
    expect(signedPct(-12)).toBe("−12.0 %")
    expect(signedPct(0.04)).toBe("0.0 %")
    expect(signedPct(null)).toBe("—")
    expect(money(1592)).toBe("$1,592.00")
    expect(money(-48.1)).toBe("−$48.10")
    expect(money(undefined)).toBe("—")
    expect(countdown(293)).toBe("in 12 d 5 h")
    expect(countdown(5.4)).toBe("in 5 h")
    expect(countdown(0.5)).toBe("in 30 min")
    expect(countdown(72)).toBe("in 3 d")
    expect(countdown(-1)).toBe("now")
  })
})
