/** Echo accounting and the fill model: rules, and invariants over random command sequences (seeded, reproducible). */
import { describe, expect, it } from "vitest"
import { emptyBook, trade, value, type Book, type PricedOrder } from "../../server/domains/echo/Ledger"
import { DEFAULT_FILL_PARAMS, delayedPrice, gasUsd, priceAtOrBefore, quote, slippageBps } from "../../server/domains/echo/Fills"
import { copyVersusWhale, lagCurve, rank, riskAdjusted, tradeStats, type TradeFact } from "../../server/domains/echo/Stats"

const at = new Date("2026-01-01T00:00:00Z")
const order = (o: Partial<PricedOrder> & Pick<PricedOrder, "side">): PricedOrder => ({ token: "0xa", symbol: "A", price: 10, gasUsd: 0, at, ...o })

/** mulberry32: a small seeded PRNG, so a failing sequence is reproducible from its seed. */
const prng = (seed: number) => () => {
  seed |= 0
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

describe("ledger rules", () => {
  it("buys by USD and by quantity, charging gas into the cost basis", () => {
    const r = trade(emptyBook(1000), order({ side: "BUY", usd: 100, gasUsd: 2 }))
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.applied.quantity).toBeCloseTo(10)
    expect(r.applied.book.cash).toBeCloseTo(898)
    expect(r.applied.book.holdings.get("0xa")!.cost).toBeCloseTo(102)
    const q = trade(r.applied.book, order({ side: "BUY", quantity: 5, price: 20 }))
    expect(q.ok && q.applied.book.holdings.get("0xa")!.quantity).toBeCloseTo(15)
    expect(q.ok && q.applied.book.cash).toBeCloseTo(798)
  })

  it("rejects a buy beyond cash (gas included) with what was available, changing nothing", () => {
    const book = emptyBook(100)
    const r = trade(book, order({ side: "BUY", usd: 99, gasUsd: 2 }))
    expect(r).toEqual({ ok: false, rejection: { kind: "insufficient_cash", available_cash: 100, required_usd: 101 } })
    expect(book.cash).toBe(100)
  })

  it("rejects selling more than held, and selling what is not held", () => {
    const b = trade(emptyBook(1000), order({ side: "BUY", quantity: 3 }))
    if (!b.ok) throw new Error("buy failed")
    const r = trade(b.applied.book, order({ side: "SELL", quantity: 4 }))
    expect(r.ok === false && r.rejection).toMatchObject({ kind: "insufficient_holdings", available_quantity: 3, requested_quantity: 4 })
    const none = trade(b.applied.book, order({ side: "SELL", token: "0xb", quantity: 1 }))
    expect(none.ok === false && none.rejection.kind).toBe("insufficient_holdings")
  })

  it("realizes P&L against the average entry, and a full sell closes the holding", () => {
    let book: Book = emptyBook(1000)
    for (const o of [order({ side: "BUY", quantity: 10, price: 10 }), order({ side: "BUY", quantity: 10, price: 20 })]) {
      const r = trade(book, o)
      if (!r.ok) throw new Error("buy failed")
      book = r.applied.book
    }
    const half = trade(book, order({ side: "SELL", quantity: 10, price: 30, gasUsd: 1 }))
    if (!half.ok) throw new Error("sell failed")
    expect(half.applied.entryPrice).toBeCloseTo(15)
    expect(half.applied.realizedPnl).toBeCloseTo(300 - 1 - 150)
    const rest = trade(half.applied.book, order({ side: "SELL", usd: 10 * 5, price: 5 }))
    if (!rest.ok) throw new Error("sell failed")
    expect(rest.applied.book.holdings.size).toBe(0)
    expect(rest.applied.book.realized).toBeCloseTo(149 + 50 - 150)
  })

  it("rejects zero, negative, both or neither amounts and a missing price", () => {
    expect(trade(emptyBook(10), order({ side: "BUY" })).ok).toBe(false)
    expect(trade(emptyBook(10), order({ side: "BUY", usd: -1 })).ok).toBe(false)
    expect(trade(emptyBook(10), order({ side: "BUY", usd: 1, quantity: 1 })).ok).toBe(false)
    expect(trade(emptyBook(10), order({ side: "BUY", usd: 1, price: 0 })).ok).toBe(false)
  })

  it("values holdings at live prices; unpriced ones at cost", () => {
    const r = trade(emptyBook(1000), order({ side: "BUY", usd: 100 }))
    if (!r.ok) throw new Error()
    const v = value(r.applied.book, 1000, () => 12)
    expect(v.totalValue).toBeCloseTo(900 + 120)
    expect(v.unrealized).toBeCloseTo(20)
    expect(v.returnPct).toBeCloseTo(2)
    expect(value(r.applied.book, 1000, () => null).unpriced).toEqual(["0xa"])
  })
})

describe("ledger invariants over random sequences", () => {
  for (const seed of [1, 7, 42, 2024, 99991]) {
    it(`seed ${seed}: cash >= 0, holdings = sum of trades, money conserved`, () => {
      const rand = prng(seed)
      const tokens = ["0x1", "0x2", "0x3"]
      const start = 10_000
      let book: Book = emptyBook(start)
      const net = new Map<string, number>()
      for (let i = 0; i < 2_000; i++) {
        const token = tokens[Math.floor(rand() * tokens.length)]!
        const side = rand() < 0.55 ? "BUY" : "SELL"
        const price = 0.5 + rand() * 50
        const byUsd = rand() < 0.5
        const size = side === "SELL" && rand() < 0.3 ? (book.holdings.get(token)?.quantity ?? 1) * (byUsd ? price : 1) : rand() * (byUsd ? 3_000 : 200)
        const r = trade(book, { side, token, symbol: token, price, gasUsd: rand() * 5, at, ...(byUsd ? { usd: size } : { quantity: size }) })
        if (!r.ok) continue
        book = r.applied.book
        net.set(token, (net.get(token) ?? 0) + (side === "BUY" ? r.applied.quantity : -r.applied.quantity))
        expect(book.cash).toBeGreaterThanOrEqual(0)
        let basis = 0
        for (const h of book.holdings.values()) {
          expect(h.quantity).toBeGreaterThan(0)
          basis += h.cost
        }
        expect(book.cash + basis).toBeCloseTo(start + book.realized, 4)
      }
      for (const t of tokens) expect(book.holdings.get(t)?.quantity ?? 0).toBeCloseTo(Math.max(0, net.get(t) ?? 0), 6)
    })
  }
})

describe("fills", () => {
  const p = DEFAULT_FILL_PARAMS
  it("slippage grows with size against liquidity, floored liquidity and capped", () => {
    expect(slippageBps(0, 1e6, p)).toBe(p.feeBps)
    expect(slippageBps(10_000, 1_000_000, p)).toBeCloseTo(30 + 1000 * 0.1)
    expect(slippageBps(10_000, 1, p)).toBeCloseTo(slippageBps(10_000, p.minLiquidityUsd, p))
    expect(slippageBps(1e12, 1e6, p)).toBe(p.maxBps)
    expect(slippageBps(50_000, 1e6, p)).toBeGreaterThan(slippageBps(10_000, 1e6, p))
  })
  it("a buy pays above market, a sell gets below; gas is units x base fee x ETH/USD", () => {
    const b = quote("BUY", 100, 10_000, 1e6, 2000, p)
    const s = quote("SELL", 100, 10_000, 1e6, 2000, p)
    expect(b.price).toBeCloseTo(100 * 1.013)
    expect(s.price).toBeCloseTo(100 * 0.987)
    expect(gasUsd(2000, p)).toBeCloseTo(150_000 * 20e-9 * 2000)
    expect(gasUsd(null, p)).toBeCloseTo(150_000 * 20e-9 * 3000)
  })
  it("the delayed price is the first priced record at or after block + delay, else the latest", () => {
    const series = [{ block: 10, log: 1, price: 1 }, { block: 10, log: 5, price: 2 }, { block: 11, log: 0, price: 3 }, { block: 15, log: 2, price: 4 }]
    expect(delayedPrice(series, 10, 5, 0)).toMatchObject({ price: 2, block: 10 })
    expect(delayedPrice(series, 10, 5, 1)).toMatchObject({ price: 3, block: 11 })
    expect(delayedPrice(series, 10, 5, 2)).toMatchObject({ price: 4, block: 15 })
    expect(delayedPrice(series, 10, 5, 25)).toMatchObject({ price: 4, delayed: false })
    expect(delayedPrice([], 10, 5, 1)).toBeNull()
    expect(priceAtOrBefore(series, 12)).toBe(3)
    expect(priceAtOrBefore(series, 9)).toBeNull()
  })
})

describe("stats", () => {
  const fact = (f: Partial<TradeFact>): TradeFact => ({
    id: 1, side: "SELL", origin: "manual", token: "0xa", symbol: "A", quantity: 1, price: 10, usd: 10, whalePrice: null, gasUsd: 0,
    realizedPnl: 0, entryPrice: 10, openedAt: at, createdAt: new Date(at.getTime() + 3_600_000), ...f
  })
  it("win rate, profit factor, best and worst, holding time", () => {
    const s = tradeStats([fact({ id: 1, realizedPnl: 30, usd: 130 }), fact({ id: 2, realizedPnl: -10, usd: 90 }), fact({ id: 3, side: "BUY", realizedPnl: null })])
    expect(s).toMatchObject({ trades: 3, closed_trades: 2, wins: 1, losses: 1, win_rate: 0.5, profit_factor: 3, avg_holding_hours: 1 })
    expect(s.best_trade).toMatchObject({ id: 1, pnl: 30 })
    expect(s.worst_trade).toMatchObject({ id: 2, pnl: -10 })
    expect(tradeStats([fact({ realizedPnl: 5 })]).profit_factor).toBeNull()
  })
  it("copy versus whale: the fill against the whale's price, plus gas", () => {
    const c = copyVersusWhale([
      fact({ side: "BUY", origin: "copy", quantity: 10, price: 10.5, whalePrice: 10, gasUsd: 1 }),
      fact({ side: "SELL", origin: "auto", quantity: 10, price: 11.5, whalePrice: 12, gasUsd: 1 }),
      fact({ side: "BUY", origin: "manual", quantity: 10, price: 99, whalePrice: null })
    ])
    expect(c).toEqual({ copied_trades: 2, price_cost_usd: 10, gas_cost_usd: 2, cost_of_following_usd: 12 })
  })
  it("risk-adjusted figure and ranking", () => {
    expect(riskAdjusted([0.1])).toBeNull()
    expect(riskAdjusted([0.1, 0.3])).toBeCloseTo(0.2 / Math.sqrt(0.02))
    const ranked = rank([
      { userId: 1, displayName: "a", returnPct: 5, riskAdjusted: null, trades: 1, closedTrades: 1, resets: 0, days: 3 },
      { userId: 2, displayName: "b", returnPct: 9, riskAdjusted: 1, trades: 1, closedTrades: 1, resets: 1, days: 3 },
      { userId: 3, displayName: "c", returnPct: 5, riskAdjusted: 2, trades: 1, closedTrades: 1, resets: 0, days: 3 }
    ])
    expect(ranked.map((r) => [r.userId, r.rank])).toEqual([[2, 1], [3, 2], [1, 3]])
  })
  it("lag curve: later copies of a rising token earn less", () => {
    const series = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40]
      .map((price, i) => ({ block: 100 + i, log: 0, price }))
    const curve = lagCurve([{ token: "0xa", side: "BUY", block: 100, log: 0, price: 10 }], () => series, () => 1e9, 2000, [0, 1, 5, 25], DEFAULT_FILL_PARAMS)
    expect(curve.map((c) => c.delay_blocks)).toEqual([0, 1, 5, 25])
    const returns = curve.map((c) => c.return_pct!)
    for (let i = 1; i < returns.length; i++) expect(returns[i]!).toBeLessThan(returns[i - 1]!)
    expect(curve[0]!.positions).toBe(1)
  })
})
