/** The running state of the playbook-live actor: buckets, totals, first movers, idempotence and retractions. */
import { describe, expect, it } from "vitest"
import { apply, emptyState, type LiveRecord, retract, snapshot } from "../../actors/playbook-live/State"

const T = Date.parse("2026-06-01T12:00:00Z")
const MIN = 60_000
let n = 0
const rec = (minutes: number, category: LiveRecord["category"], usd: number | null, wallet = "0xa"): LiveRecord => {
  n += 1
  return { key: `0x${n}:0:${wallet}:0xt`, id: n, tx_hash: `0x${n}`, ts: T + minutes * MIN, wallet, wallet_label: null, token: "0xt", symbol: "WETH", category, usd }
}

describe("live state", () => {
  it("sums per 5-minute bucket from the window start, once per record, and lists the first movers", () => {
    const s = emptyState({ eventId: 1, title: "E", ts: T, from: T - 24 * 60 * MIN, to: T + 48 * 60 * MIN })
    const a = rec(-1, "dex_buy", 100)
    const b = rec(0, "dex_sell", 40, "0xb")
    const c = rec(4.99, "exchange_withdraw", 10)
    const d = rec(5, "exchange_deposit", 5, "0xb")
    for (const r of [a, b, c, d]) expect(apply(s, r)).toBe(true)
    expect(apply(s, b)).toBe(false)
    expect(apply(s, rec(48 * 60, "dex_buy", 1))).toBe(false) // at the window end: outside
    expect(apply(s, rec(-24 * 60 - 0.001, "dex_buy", 1))).toBe(false)
    const snap = snapshot(s, T + 10 * MIN)
    expect(snap.totals).toEqual({ dex_buy_usd: 100, dex_sell_usd: 40, exchange_deposit_usd: 5, exchange_withdraw_usd: 10, net_flow_usd: 65, whales_active: 2, records: 4 })
    expect(snap.buckets.map((x) => [x.start, x.net_flow_usd, x.records])).toEqual([
      ["2026-06-01T11:55:00.000Z", 100, 1],
      ["2026-06-01T12:00:00.000Z", -30, 2],
      ["2026-06-01T12:05:00.000Z", -5, 1]
    ])
    expect(snap.fastest.map((x) => [x.tx_hash, x.seconds_from_event])).toEqual([[b.tx_hash, 0], [c.tx_hash, 299.4], [d.tx_hash, 300]])
  })

  it("undoes a retracted record and ignores a retraction of one it never counted", () => {
    const s = emptyState({ eventId: 1, title: "E", ts: T, from: T - 60 * MIN, to: T + 60 * MIN })
    const a = rec(1, "dex_buy", 100)
    const b = rec(2, "dex_buy", 50, "0xb")
    apply(s, a)
    apply(s, b)
    s.dirty = false
    expect(retract(s, a.key)).toBe(true)
    expect(s.dirty).toBe(true)
    expect(retract(s, a.key)).toBe(false)
    expect(retract(s, "0xnever:0:0xa:0xt")).toBe(false)
    const snap = snapshot(s, T)
    expect(snap.totals).toMatchObject({ dex_buy_usd: 50, records: 1, whales_active: 1 })
    expect(snap.buckets).toHaveLength(1)
    expect(snap.fastest.map((x) => x.tx_hash)).toEqual([b.tx_hash])
  })
})
