import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { STREAMS } from "../../schema/streams"
import { Bus } from "../../server/platform/infra/Bus"
import { verifyChain } from "../../server/domains/picks/Ledger"
import { Picks } from "../../server/domains/picks/Picks"
import { PicksRepo } from "../../server/domains/picks/Repo"
import { DAY_MS, HOUR_MS } from "../../server/domains/picks/Rules"
import { AAA, BBB, record, startPicks, USDC, wallet, WETH } from "./support"

const T0 = Date.parse("2026-03-01T00:00:00Z")
const iso = (ms: number) => new Date(ms).toISOString()
let app: Awaited<ReturnType<typeof startPicks>>
const ingest = (ms: number, m: ReturnType<typeof record>) => app.at(ms, Effect.flatMap(Picks, (p) => p.ingest(m)))
const picks = () => app.query<{ id: number; token: string; status: string; whales: number; entry_price: number | null; conviction: number; close_return: number | null; peak_return: number | null; exited_before_close: boolean | null; inputs: any }>(
  "SELECT id, token, status, whales, entry_price, conviction, close_return, peak_return, exited_before_close, inputs FROM picks ORDER BY id")

beforeAll(async () => { app = await startPicks() }, 120_000)
afterAll(async () => { await app?.close() })

describe("picks service", () => {
  const [A, B, C, D, E, X] = [1, 2, 3, 4, 5, 6].map(wallet)
  const flagRecord = record({ wallet: C!, token: AAA, category: "dex_buy", ts: iso(T0), price_usd: 1 })

  it("flags at the third distinct net buyer, once, never a stablecoin, and announces it on domain.events", async () => {
    await ingest(T0, record({ wallet: A!, token: AAA, category: "dex_buy", ts: iso(T0 - 3 * HOUR_MS), price_usd: 1 }))
    await ingest(T0, record({ wallet: B!, token: AAA, category: "dex_buy", ts: iso(T0 - 2 * HOUR_MS), price_usd: 1 }))
    for (const w of [A!, B!, C!]) await ingest(T0, record({ wallet: w, token: USDC, category: "dex_buy", ts: iso(T0 - HOUR_MS), price_usd: 1 }))
    expect(await picks()).toEqual([])
    expect(await ingest(T0, flagRecord)).toBe(1)
    // Redelivery of the same record, and a fourth buyer while the pick is open: no second pick.
    expect(await ingest(T0, flagRecord)).toBeNull()
    expect(await ingest(T0, record({ wallet: D!, token: AAA, category: "dex_buy", ts: iso(T0 + HOUR_MS), price_usd: 1.1 }))).toBeNull()
    const [p] = await picks()
    expect(p).toMatchObject({ token: AAA, status: "PENDING", whales: 3, entry_price: 1 })
    expect(p!.inputs.buyers.map((b: { wallet: string }) => b.wallet)).toEqual([A, B, C])
    const events = await app.run(Effect.flatMap(Bus, (bus) => bus.tail(STREAMS.domainEvents, 10)))
    expect(events.map((e) => e.payload)).toEqual([expect.objectContaining({ _tag: "PickFlagged", messageId: "pick:1", pick_id: 1, symbol: "AAA", whales: 3 })])
  })

  it("records each flagging whale's first exit with its route, day offset and move", async () => {
    await ingest(T0 + DAY_MS, record({ wallet: E!, token: AAA, category: "dex_sell", ts: iso(T0 + DAY_MS), price_usd: 1.5 }))
    await ingest(T0 + 2 * DAY_MS, record({ wallet: A!, token: AAA, category: "dex_sell", ts: iso(T0 + 2 * DAY_MS + HOUR_MS), price_usd: 1.4 }))
    await ingest(T0 + 3 * DAY_MS, record({ wallet: A!, token: AAA, category: "dex_sell", ts: iso(T0 + 3 * DAY_MS), price_usd: 1.3 }))
    await ingest(T0 + 3 * DAY_MS, record({ wallet: B!, token: AAA, category: "exchange_deposit", ts: iso(T0 + 3 * DAY_MS + HOUR_MS), price_usd: null }))
    await ingest(T0 + 6 * DAY_MS, record({ wallet: E!, token: AAA, category: "dex_buy", ts: iso(T0 + 7 * DAY_MS - HOUR_MS), price_usd: 1.2 }))
    const exits = await app.query<{ wallet: string; day_offset: number; move: number; route: string }>("SELECT wallet, day_offset, move, route FROM pick_exits ORDER BY ts")
    expect(exits.map((e) => [e.wallet, e.day_offset, Math.round(e.move * 1e6) / 1e6, e.route])).toEqual([
      [A, 2, 0.4, "dex_sell"],
      [B, 3, 0.3, "exchange_deposit"]
    ])
    const [p] = await picks()
    expect(p!.peak_return).toBeCloseTo(0.5, 10)
  })

  it("grades at exactly 7 × 24 h under a controlled clock", async () => {
    const gradeAt = (ms: number) => app.at(ms, Effect.flatMap(Picks, (p) => p.gradeDue()))
    expect(await gradeAt(T0 + 7 * DAY_MS - 1)).toBe(0)
    expect((await picks())[0]!.status).toBe("PENDING")
    expect(await gradeAt(T0 + 7 * DAY_MS)).toBe(1)
    const [p] = await picks()
    expect(p!.status).toBe("GRADED")
    expect(p!.close_return).toBeCloseTo(0.2, 10)
    expect(p!.peak_return).toBeCloseTo(0.5, 10)
    expect(p!.exited_before_close).toBe(true)
    expect(await gradeAt(T0 + 8 * DAY_MS)).toBe(0)
  })

  it("scores conviction point-in-time: a later pick of the same whales sees the earlier grade", async () => {
    const T1 = T0 + 10 * DAY_MS
    for (const [w, h] of [[A!, 2], [B!, 1]] as const) await ingest(T1, record({ wallet: w, token: AAA, category: "dex_buy", ts: iso(T1 - h * HOUR_MS), price_usd: 1 }))
    expect(await ingest(T1, record({ wallet: X!, token: AAA, category: "dex_buy", ts: iso(T1), price_usd: 1 }))).toBe(2)
    const second = (await picks())[1]!
    expect(second.inputs.conviction).toMatchObject({ history: 1, hitRate: Math.round((2 / 3) * 1e4) / 1e4 })
    const first = (await picks())[0]!
    expect(first.inputs.conviction.history).toBe(0)
  })

  it("grades UNPRICED when the token had no price after the flag", async () => {
    const T2 = T0 + 20 * DAY_MS
    for (const [w, h] of [[A!, 2], [B!, 1], [C!, 0]] as const) await ingest(T2, record({ wallet: w, token: BBB, category: "dex_buy", ts: iso(T2 - h * HOUR_MS), price_usd: 2 }))
    await app.at(T2 + 8 * DAY_MS, Effect.flatMap(Picks, (p) => p.gradeDue()))
    const bbb = (await picks()).find((p) => p.token === BBB)!
    expect(bbb.status).toBe("UNPRICED")
    expect(bbb.close_return).toBeNull()
  })

  it("honours a retraction: the pick it flagged is voided, its exit forgotten, and the ledger still verifies", async () => {
    const T3 = T0 + 40 * DAY_MS
    const buys = [[A!, 2], [B!, 1], [C!, 0]].map(([w, h]) => record({ wallet: w as string, token: BBB, category: "dex_buy", ts: iso(T3 - (h as number) * HOUR_MS), price_usd: 2 }))
    for (const m of buys) await ingest(T3, m)
    const id = (await picks()).find((p) => p.token === BBB && p.status === "PENDING")!.id
    const sell = record({ wallet: A!, token: BBB, category: "dex_sell", ts: iso(T3 + HOUR_MS), price_usd: 2.2 })
    await ingest(T3 + HOUR_MS, sell)
    expect(await app.query("SELECT * FROM pick_exits WHERE pick_id = $1", [id])).toHaveLength(1)
    const retract = (m: ReturnType<typeof record>) => app.at(T3 + 2 * HOUR_MS, Effect.flatMap(Picks, (p) => p.retract({
      messageId: `retract:${m.messageId}`, kind: "retraction", id: m.id, tx_hash: m.tx_hash, log_index: m.log_index, block: m.block,
      wallet: m.wallet, token: m.token, category: m.category, usd: m.usd, reason: "reorg"
    })))
    await retract(sell)
    expect(await app.query("SELECT * FROM pick_exits WHERE pick_id = $1", [id])).toHaveLength(0)
    await retract(buys[0]!)
    expect((await picks()).find((p) => p.id === id)!.status).toBe("VOID")
    const entries = await app.run(Effect.flatMap(PicksRepo, (r) => r.ledgerEntries(0, 1000)))
    expect(verifyChain(entries)).toMatchObject({ ok: true })
    expect(entries.map((e) => e.kind)).toEqual(expect.arrayContaining(["flag", "exit", "grade", "void"]))
    // The ledger refuses edits.
    await expect(app.query("UPDATE pick_ledger SET payload = 'x' WHERE seq = 1")).rejects.toThrow()
    await expect(app.query("DELETE FROM pick_ledger WHERE seq = 1")).rejects.toThrow()
  })

  it("keeps the daily ETH close from WETH records", async () => {
    await ingest(T0, record({ wallet: A!, token: WETH, category: "dex_buy", ts: iso(T0 + HOUR_MS), price_usd: 3000 }))
    await ingest(T0, record({ wallet: A!, token: WETH, category: "dex_buy", ts: iso(T0 + 2 * HOUR_MS), price_usd: 3100 }))
    await ingest(T0, record({ wallet: A!, token: WETH, category: "dex_buy", ts: iso(T0 + 30 * 60_000), price_usd: 2900 }))
    expect(await app.run(Effect.flatMap(PicksRepo, (r) => r.ethCloses(T0, T0)))).toEqual([{ ts: T0 + 2 * HOUR_MS, price: 3100 }])
  })
  it("tells another domain the open (PENDING) pick of a set of tokens (live for pro+, after the delay for others), and forgets it once graded", async () => {
    const T4 = T0 + 60 * DAY_MS
    const open = (tokens: ReadonlyArray<string>, ms = T4, live = true) => app.at(ms, Effect.flatMap(Picks, (p) => p.openPicksFor(tokens, live)))
    for (const [w, h] of [[A!, 2], [B!, 1], [D!, 0]] as const) await ingest(T4, record({ wallet: w, token: BBB, category: "dex_buy", ts: iso(T4 - h * HOUR_MS), price_usd: 4 }))
    const id = (await picks()).find((p) => p.token === BBB && p.status === "PENDING")!.id
    const found = await open([BBB.toUpperCase().replace("0X", "0x"), AAA, `0x${"9".repeat(40)}`, ""])
    expect([...found.keys()]).toEqual([BBB])
    expect(found.get(BBB)).toEqual({
      id: Number(id), token: BBB, symbol: "BBB", flagged_at: iso(T4), entry_price: 4, conviction: expect.any(Number), whales: 3, flaggers: [A, B, D]
    })
    expect((await open([])).size).toBe(0)
    // Not live: withheld for PICKS_FREE_DELAY_HOURS (24 by default) after the flag, then shown.
    expect((await open([BBB], T4 + HOUR_MS, false)).size).toBe(0)
    expect([...(await open([BBB], T4 + 25 * HOUR_MS, false)).keys()]).toEqual([BBB])
    await app.at(T4 + 7 * DAY_MS, Effect.flatMap(Picks, (p) => p.gradeDue()))
    expect((await open([BBB], T4 + 7 * DAY_MS)).size).toBe(0)
  })
})
