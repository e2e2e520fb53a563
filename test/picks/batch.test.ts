/**
 * A read of many records (`ingestMany`, the picks-grader's path) leaves exactly what handling them one at a time
 * leaves: the same records, picks (flags, conviction inputs, marks, grades), exits and ETH closes — over seeded random
 * sequences with blocks of equal times, sells and deposits of flaggers, unpriced records, excluded tokens and
 * redeliveries, long enough for picks to be graded (which frees a token) and exits to be dated. Both databases get
 * the same inputs in the same order, test after test, so their whole state must stay equal.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { ChainTxMessage } from "../../schema/streams"
import { Picks } from "../../server/domains/picks/Picks"
import { DAY_MS, HOUR_MS } from "../../server/domains/picks/Rules"
import { AAA, BBB, record, startPicks, USDC, wallet, WETH } from "./support"

const T0 = Date.parse("2026-03-01T00:00:00Z")
type App = Awaited<ReturnType<typeof startPicks>>
let one: App
let many: App

beforeAll(async () => {
  ;[one, many] = await Promise.all([startPicks(), startPicks()])
}, 180_000)
afterAll(async () => {
  await Promise.all([one?.close(), many?.close()])
})

/** Mulberry32: a small seeded generator, so a failure can be replayed. */
const rng = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const sequence = (seed: number, blocks: number): Array<ChainTxMessage> => {
  const r = rng(seed)
  const pick = <T>(xs: ReadonlyArray<T>): T => xs[Math.floor(r() * xs.length)]!
  const wallets = [1, 2, 3, 4, 5, 6].map(wallet)
  const out: Array<ChainTxMessage> = []
  // Each seed's records start after the last's picks were graded (both databases keep every test's state).
  let ts = T0 + (seed - 1) * 60 * DAY_MS
  for (let b = 0; b < blocks; b++) {
    ts += Math.floor(r() * 14 * HOUR_MS)
    const n = 1 + Math.floor(r() * 5)
    for (let i = 0; i < n; i++) {
      if (out.length > 0 && r() < 0.04) {
        out.push({ ...out[Math.floor(r() * out.length)]! })
        continue
      }
      const token = pick([AAA, AAA, BBB, BBB, USDC, WETH])
      const category = pick(["dex_buy", "dex_buy", "dex_buy", "dex_sell", "exchange_deposit", "exchange_withdraw"] as const)
      const price = r() < 0.15 ? null : Math.round((0.5 + r()) * 1000) / 1000
      out.push(record({ wallet: pick(wallets), token, category, ts: new Date(ts).toISOString(), price_usd: price, amount: String(10 + Math.floor(r() * 200)) }))
    }
  }
  return out
}

const state = (app: App) =>
  Promise.all([
    app.query(`SELECT tx_hash, log_index, wallet, token, category, amount, usd, price_usd, ts FROM pick_records ORDER BY 1, 2, 3, 4`),
    app.query(`SELECT id, token, flagged_at, flag_record, entry_price, whales, flaggers, flag_usd, conviction, inputs, status, peak_price,
      trough_price, close_price, close_return, peak_return, max_adverse, day_closes, exited_before_close, graded_at FROM picks ORDER BY id`),
    app.query(`SELECT pick_id, wallet, ts, day_offset, hours, price, move, route, record FROM pick_exits ORDER BY 1, 2`),
    app.query(`SELECT day, close, close_ts FROM pick_eth_daily ORDER BY day`),
    app.query(`SELECT kind, pick_id FROM pick_ledger ORDER BY seq`)
  ])

describe("picks: a read of many records", () => {
  for (const seed of [1, 2, 3]) {
    it(`leaves what one record at a time leaves (seed ${seed})`, async () => {
      const records = sequence(seed, 120)
      const r = rng(seed * 7919)
      const flagged: Array<number> = []
      for (let i = 0; i < records.length;) {
        const size = 1 + Math.floor(r() * 40)
        const read = records.slice(i, i + size)
        i += size
        const now = Date.parse(read.at(-1)!.ts)
        for (const m of read) await one.at(Date.parse(m.ts), Effect.flatMap(Picks, (p) => p.ingest(m)))
        flagged.push(...await many.at(now, Effect.flatMap(Picks, (p) => p.ingestMany(read))))
        // The grader's schedule, between reads (in both).
        if (r() < 0.3) await Promise.all([one, many].map((app) => app.at(now, Effect.flatMap(Picks, (p) => p.gradeDue()))))
      }
      const [a, b] = await Promise.all([state(one), state(many)])
      // Something happened worth comparing: picks flagged and graded, exits dated.
      expect(a[1].length).toBeGreaterThan(1)
      expect(a[1].some((p: any) => p.status === "GRADED" || p.status === "UNPRICED")).toBe(true)
      expect(a[2].length).toBeGreaterThan(0)
      expect(flagged.length).toBeGreaterThan(0)
      expect(a[1].map((p: any) => Number(p.id))).toEqual(expect.arrayContaining(flagged))
      expect(b).toEqual(a)
    }, 120_000)
  }

  it("handles a worst-case block of one token in one read", async () => {
    const CCC = `0x${"d".repeat(40)}`
    for (const app of [one, many]) await app.query(`INSERT INTO tokens (address, symbol, decimals, stable, eth_derivative, blacklisted) VALUES ('${CCC}', 'CCC', 18, false, false, false)`)
    const t = T0 + 400 * DAY_MS
    const at = new Date(t).toISOString()
    const block = Array.from({ length: 300 }, (_, i) =>
      record({ wallet: wallet(1 + (i % 40)), token: CCC, symbol: "CCC", category: i % 3 === 2 ? "dex_sell" : "dex_buy", ts: at, price_usd: 1 + (i % 7) / 100 }))
    for (const m of block) await one.at(t, Effect.flatMap(Picks, (p) => p.ingest(m)))
    const flagged = await many.at(t, Effect.flatMap(Picks, (p) => p.ingestMany(block)))
    const [a, b] = await Promise.all([state(one), state(many)])
    expect(flagged).toHaveLength(1)
    expect(b).toEqual(a)
  }, 120_000)
})
