import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { verifyChain } from "../../server/domains/picks/Ledger"
import { Picks } from "../../server/domains/picks/Picks"
import { PicksRepo } from "../../server/domains/picks/Repo"
import { DAY_MS, HOUR_MS } from "../../server/domains/picks/Rules"
import { AAA, startPicks, wallet } from "./support"

const T0 = Date.parse("2026-05-01T00:00:00Z")
let app: Awaited<ReturnType<typeof startPicks>>
beforeAll(async () => { app = await startPicks() }, 120_000)
afterAll(async () => { await app?.close() })

let n = 0
const stored = (w: number, category: string, ts: number, price: number | null) => {
  n++
  return app.query(`INSERT INTO whale_tx (tx_hash, log_index, wallet, token, symbol, decimals, category, amount, amount_raw, usd, price_usd,
      block_number, block_hash, ts, source) VALUES ($1, 0, $2, $3, 'AAA', 18, $4, 100, 100, $5, $6, $7, $8, $9, 'replay')`,
    [`0x${n.toString(16).padStart(64, "0")}`, wallet(w), AAA, category, price === null ? null : 100 * price, price, 1000 + n, `0x${"f".repeat(64)}`, new Date(ts)])
}

describe("npm run picks -- rebuild", () => {
  it("recomputes the picks from stored records, the same way twice, appending to the ledger", async () => {
    await stored(1, "dex_buy", T0 - 2 * HOUR_MS, 1)
    await stored(2, "dex_buy", T0 - HOUR_MS, 1)
    await stored(3, "dex_buy", T0, 1)
    await stored(1, "dex_sell", T0 + 2 * DAY_MS, 1.5)
    await stored(2, "exchange_deposit", T0 + 3 * DAY_MS, null)
    await stored(5, "dex_buy", T0 + 7 * DAY_MS - HOUR_MS, 1.2)
    // A second wave for the same token after the first pick was graded: its conviction reads that grade.
    await stored(1, "dex_buy", T0 + 10 * DAY_MS - HOUR_MS, 1.1)
    await stored(2, "dex_buy", T0 + 10 * DAY_MS - 1, 1.1)
    await stored(6, "dex_buy", T0 + 10 * DAY_MS, 1.1)
    const rebuild = () => app.at(T0 + 12 * DAY_MS, Effect.flatMap(Picks, (p) => p.rebuild()))
    const state = async () => ({
      picks: await app.query("SELECT token, flagged_at, flag_record, entry_price, whales, flaggers, conviction, inputs, status, close_return, peak_return, day_closes FROM picks ORDER BY flagged_at"),
      exits: await app.query("SELECT wallet, ts, day_offset, move, route FROM pick_exits ORDER BY ts")
    })
    expect(await rebuild()).toEqual({ records: 9, flagged: 2, graded: 1 })
    const first = await state()
    expect(first.picks.map((p: any) => [p.status, p.whales])).toEqual([["GRADED", 3], ["PENDING", 3]])
    expect((first.picks[0] as any).close_return).toBeCloseTo(0.2, 10)
    expect((first.picks[1] as any).inputs.conviction.history).toBe(1)
    expect(first.exits.map((e: any) => [e.day_offset, e.route])).toEqual([[2, "dex_sell"], [3, "exchange_deposit"]])
    await rebuild()
    expect(await state()).toEqual(first)
    const entries = await app.run(Effect.flatMap(PicksRepo, (r) => r.ledgerEntries(0, 1000)))
    expect(verifyChain(entries)).toMatchObject({ ok: true })
    expect(entries.filter((e) => e.kind === "rebuild")).toHaveLength(2)
  })
})
