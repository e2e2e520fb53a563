/**
 * The playbook service against stored records with known sums: the window and its halves (edges included and
 * excluded), baseline ratios, z-scores against matched windows (another high-severity event and missing data
 * excluded), the recovery point, flow buckets, signals, fastest; roll-up figures equal record sums at odd minutes;
 * the state machine with every move, two concurrent LIVE attempts and the `domain.events` announcements.
 */
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { STREAMS } from "../../schema/streams"
import { Bus } from "../../server/platform/infra/Bus"
import { FlowRepo } from "../../server/domains/playbook/FlowRepo"
import { Playbook } from "../../server/domains/playbook/Playbook"
import { PlaybookReads } from "../../server/domains/playbook/Reads"
import { PlaybookLive } from "../../server/domains/playbook/Layer"
import { Chain } from "../../server/domains/chain/Chain"
import { ChainCatalog } from "../../server/domains/chain/Catalog"
import { startServices, type TestServices } from "../support/serviceTest"
import { ChainReads } from "../support/layers"
import { HOUR, insertTx, trackTestWallets, W, type Tx } from "../support/whales"
import { failureOf, fixedClock, runAt } from "./support"

const MIN = 60_000
const WEEK = 7 * 24 * HOUR
const T = Date.parse("2026-03-04T18:00:00Z")
const AFTER = T + 73 * HOUR
type PlaybookLayer = Layer.Layer.Success<typeof PlaybookLive> | Chain | ChainCatalog

let app: TestServices<PlaybookLayer>
let eventId: number

const create = (title: string, ts: number, severity = 5, category: "fomc" | "cpi" | "other" = "fomc") =>
  runAt(app, AFTER, Effect.flatMap(Playbook, (p) => p.create({ title, category, timestamp: new Date(ts).toISOString(), severity })))

beforeAll(async () => {
  // A service test: the playbook's services and the chain's reads on the platform (database, bus), no app. The
  // chain's reads without a chain to follow: any call of the source fails the test, naming it. Running windows are
  // computed once per minute here (the default is 5 s): a slot outlasts a slow machine's pause.
  app = await startServices(PlaybookLive.pipe(Layer.provideMerge(ChainReads)), { env: { PLAYBOOK_CALENDAR_FILE: "", PLAYBOOK_RUNNING_CACHE_SECONDS: "60" } })
  // The reference data the app seeds at start (token symbols: an event's `tokens` scope is resolved through them).
  await app.runtime.runPromise(Effect.flatMap(ChainCatalog, (c) => c.seed()))
  await trackTestWallets(app)
  const rows: Array<Tx> = [
    { wallet: W.W3, token: "WETH", category: "exchange_deposit", usd: 200, at: T - 24 * HOUR },
    { wallet: W.W3, token: "WETH", category: "dex_buy", usd: 999, at: T - 24 * HOUR - 1 },
    { wallet: W.W1, token: "WETH", category: "dex_buy", usd: 1000, at: T - 2 * HOUR },
    { wallet: W.W2, token: "UNI", category: "dex_sell", usd: 300, at: T - 30 * MIN },
    { wallet: W.W1, token: "WETH", category: "dex_sell", usd: 400, at: T },
    { wallet: W.W2, token: "LINK", category: "dex_buy", usd: 500, at: T + 90 * MIN },
    { wallet: W.W4, token: "WETH", category: "exchange_withdraw", usd: 100, at: T + 48 * HOUR - MIN },
    { wallet: W.W4, token: "WETH", category: "dex_buy", usd: 777, at: T + 48 * HOUR },
    { wallet: W.W1, token: "WETH", category: "dex_buy", usd: 1001, at: T - 100 * HOUR },
    // One buy of 100·k inside the matched window k weeks before, and the first stored data before week 8's window.
    ...[1, 2, 3, 4, 5, 6, 7, 8].map((k): Tx => ({ wallet: W.W2, token: "UNI", category: "dex_buy", usd: 100 * k, at: T - k * WEEK })),
    { wallet: W.W4, token: "WETH", category: "exchange_deposit", usd: 1, at: T - 8 * WEEK - 30 * HOUR }
  ]
  await insertTx(app, rows)
  eventId = (await create("Rate decision", T)).id
  await create("Other high-severity event", T - 3 * WEEK + HOUR)
  await create("Low-severity event", T - 5 * WEEK + HOUR, 2)
})

afterAll(async () => {
  await app?.close()
})

describe("metrics of a completed window", () => {
  it("sums the window and its halves, edges included at the start and excluded at the end", async () => {
    const d = await runAt(app, AFTER, Effect.flatMap(Playbook, (p) => p.detail(eventId)))
    const m = d.metrics!
    expect(m.window).toMatchObject({ from: "2026-03-03T18:00:00.000Z", to: "2026-03-06T18:00:00.000Z", complete: true, pre_hours: 24, post_hours: 48 })
    expect(m.pre.figures).toEqual({ dex_buy_usd: 1000, dex_sell_usd: 300, exchange_deposit_usd: 200, exchange_withdraw_usd: 0, net_flow_usd: 500, whales_active: 3, records: 3 })
    expect(m.post.figures).toEqual({ dex_buy_usd: 500, dex_sell_usd: 400, exchange_deposit_usd: 0, exchange_withdraw_usd: 100, net_flow_usd: 200, whales_active: 3, records: 3 })
    expect(m.whole.figures).toEqual({ dex_buy_usd: 1500, dex_sell_usd: 700, exchange_deposit_usd: 200, exchange_withdraw_usd: 100, net_flow_usd: 700, whales_active: 4, records: 6 })
    expect(m.whole.top_tokens.map((t) => [t.symbol, t.net_flow_usd])).toEqual([["LINK", 500], ["WETH", 500], ["UNI", -300]]) // ties by address
  })

  it("compares with the 7-day baseline of the same length", async () => {
    const m = (await runAt(app, AFTER, Effect.flatMap(Playbook, (p) => p.detail(eventId)))).metrics!
    // 72 h slots: [T−96h, T−24h) holds 999, [T−168h, T−96h) holds 1001 + the week-1 buy of 100.
    expect(m.baseline_slots).toBe(2)
    expect(m.whole.baseline!.dex_buy_usd).toBe(1050)
    expect(m.whole.ratio.dex_buy_usd).toBe(1.4286)
    // 24 h slots (7): 999 + 1001 + 100 over seven slots.
    expect(m.pre.baseline!.dex_buy_usd).toBe(300)
    expect(m.pre.ratio.dex_buy_usd).toBe(3.3333)
    expect(m.pre.ratio.exchange_withdraw_usd).toBeNull()
  })

  it("scores against matched weeks without other high-severity events or missing data", async () => {
    const m = (await runAt(app, AFTER, Effect.flatMap(Playbook, (p) => p.detail(eventId)))).metrics!
    expect(m.matched_windows).toEqual({ used: 7, excluded: 1, weeks: 8 })
    // Buys 100, 200, 400 … 800 (week 3 excluded): mean 471.43, sample sd 256.35.
    expect(m.whole.z.dex_buy_usd).toBeCloseTo(4.0124, 3)
    expect(m.post.z.dex_buy_usd).toBeCloseTo((500 - 471.4286) / 256.3480, 3)
    expect(m.pre.z.dex_buy_usd).toBeNull() // every matched pre window is empty: no spread
  })

  it("finds the recovery point: outflow in hour 1, back to inflow by the end of hour 2", async () => {
    const r = await runAt(app, AFTER, Effect.flatMap(PlaybookReads, (p) => p.recovery(eventId)))
    expect(r).toMatchObject({ pre_net_flow_usd: 500, pre_direction: "inflow", reversal: true, recovery_hour: 2, recovered_at: "2026-03-04T20:00:00.000Z" })
    expect(r.hours).toHaveLength(48)
    expect(r.hours.slice(0, 3).map((h) => h.cumulative_net_flow_usd)).toEqual([-400, 100, 100])
    expect(r.hours[47]!.cumulative_net_flow_usd).toBe(200)
    const d = await runAt(app, AFTER, Effect.flatMap(Playbook, (p) => p.detail(eventId)))
    expect(d.metrics!.recovery_hours).toBe(2)
  })

  it("buckets the flow hourly and by 5 minutes over the window", async () => {
    const hourly = await runAt(app, AFTER, Effect.flatMap(PlaybookReads, (p) => p.flow(eventId, 60)))
    expect(hourly.buckets).toHaveLength(72)
    expect(hourly.buckets[0]).toMatchObject({ start: "2026-03-03T18:00:00.000Z", exchange_deposit_usd: 200, net_flow_usd: -200, records: 1 })
    expect(hourly.buckets[22]).toMatchObject({ dex_buy_usd: 1000 })
    expect(hourly.buckets[24]).toMatchObject({ start: "2026-03-04T18:00:00.000Z", dex_sell_usd: 400 })
    expect(hourly.buckets[71]).toMatchObject({ exchange_withdraw_usd: 100 })
    expect(hourly.buckets.reduce((a, b) => a + b.net_flow_usd, 0)).toBe(700)
    const fine = await runAt(app, AFTER, Effect.flatMap(PlaybookReads, (p) => p.flow(eventId, 5)))
    expect(fine.buckets).toHaveLength(864)
    expect(fine.buckets[306]).toMatchObject({ start: "2026-03-04T19:30:00.000Z", dex_buy_usd: 500 })
    expect(fine.buckets.reduce((a, b) => a + b.records, 0)).toBe(6)
  })

  it("lists the signals of the 6 hours before and the fastest records after", async () => {
    const s = await runAt(app, AFTER, Effect.flatMap(PlaybookReads, (p) => p.signals(eventId)))
    expect(s.buckets).toHaveLength(12)
    expect(s.buckets[8]).toMatchObject({ start: "2026-03-04T16:00:00.000Z", dex_buy_usd: 1000 })
    expect(s.buckets[11]).toMatchObject({ dex_sell_usd: 300 })
    expect(s.biggest_trades.map((t) => t.usd)).toEqual([1000, 300])
    expect(s.active_wallets.map((w) => [w.label, w.records])).toEqual([["Alpha Whale", 1], ["Beta Fund", 1]])
    const f = await runAt(app, AFTER, Effect.flatMap(PlaybookReads, (p) => p.fastest(eventId, 2)))
    expect(f.trades.map((t) => [t.usd, t.seconds_from_event])).toEqual([[400, 0], [500, 5400]])
  })
})

describe("roll-up figures at odd minutes", () => {
  it("equal the sums of the records over the same half-open spans", async () => {
    const U = Date.parse("2026-01-14T13:37:00Z")
    const cats = ["dex_buy", "dex_sell", "exchange_deposit", "exchange_withdraw"] as const
    const wallets = Object.values(W)
    let seed = 7
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648)
    const rows: Array<Tx> = Array.from({ length: 300 }, () => ({
      wallet: wallets[Math.floor(rand() * 4)]!, token: (["WETH", "UNI", "LINK"] as const)[Math.floor(rand() * 3)]!,
      category: cats[Math.floor(rand() * 4)]!, usd: Math.round(rand() * 100_000) / 100, at: U - 30 * HOUR + Math.floor(rand() * 84 * HOUR)
    }))
    // Records exactly on the window's edges.
    rows.push({ wallet: W.W1, token: "WETH", category: "dex_buy", usd: 11.11, at: U - 24 * HOUR })
    rows.push({ wallet: W.W1, token: "WETH", category: "dex_buy", usd: 22.22, at: U + 48 * HOUR })
    rows.push({ wallet: W.W1, token: "WETH", category: "dex_buy", usd: 33.33, at: U })
    await insertTx(app, rows)
    const id = (await create("Odd minute", U, 3, "cpi")).id
    const m = (await runAt(app, AFTER, Effect.flatMap(Playbook, (p) => p.detail(id)))).metrics!
    const direct = async (from: number, to: number) =>
      (await app.query<Record<string, number>>(
        `SELECT coalesce(sum(usd) FILTER (WHERE category = 'dex_buy'), 0)::float8 AS dex_buy_usd,
           coalesce(sum(usd) FILTER (WHERE category = 'dex_sell'), 0)::float8 AS dex_sell_usd,
           coalesce(sum(usd) FILTER (WHERE category = 'exchange_deposit'), 0)::float8 AS exchange_deposit_usd,
           coalesce(sum(usd) FILTER (WHERE category = 'exchange_withdraw'), 0)::float8 AS exchange_withdraw_usd,
           count(DISTINCT wallet)::int AS whales_active, count(*)::int AS records
         FROM whale_tx WHERE ts >= $1 AND ts < $2`, [new Date(from).toISOString(), new Date(to).toISOString()]))[0]!
    for (const [span, from, to] of [[m.whole, U - 24 * HOUR, U + 48 * HOUR], [m.pre, U - 24 * HOUR, U], [m.post, U, U + 48 * HOUR]] as const) {
      const d = await direct(from, to)
      for (const k of Object.keys(d)) expect(span.figures[k as keyof typeof span.figures]).toBeCloseTo(d[k]!, 2)
    }
    const hourly = await runAt(app, AFTER, Effect.flatMap(PlaybookReads, (p) => p.flow(id, 60)))
    expect(hourly.buckets[0]!.start).toBe("2026-01-13T13:37:00.000Z")
    expect(hourly.buckets.reduce((a, b) => a + b.records, 0)).toBe(m.whole.figures.records)
  })

  it("stay equal to the records after a reorg's delete, a moved record and late records of new wallets in stored hours", async () => {
    const U = Date.parse("2026-01-14T13:37:00Z")
    // Spans over the records of the test above: whole hours, odd minutes, inside one hour, empty.
    const spans = [
      { from: U - 30 * HOUR, to: U + 54 * HOUR }, { from: U - 24 * HOUR, to: U }, { from: U, to: U + 48 * HOUR },
      { from: U - 7 * HOUR - 13 * MIN, to: U + 5 * HOUR + 2 * MIN }, { from: U + MIN, to: U + 20 * MIN },
      { from: U - 2 * HOUR - 37 * MIN, to: U - 37 * MIN }, { from: U - 100 * HOUR, to: U - 90 * HOUR }
    ]
    const same = async () => {
      const [rollup, records] = await runAt(app, AFTER, Effect.flatMap(FlowRepo, (f) => Effect.all([f.figures(spans), f.figures(spans, null, "records")])))
      records.forEach((r, i) => {
        const x = rollup[i]!
        expect([i, x.records, x.whales_active]).toEqual([i, r.records, r.whales_active])
        for (const k of ["dex_buy_usd", "dex_sell_usd", "exchange_deposit_usd", "exchange_withdraw_usd"] as const) expect(x[k]).toBeCloseTo(r[k], 2)
      })
      return rollup
    }
    const before = await same()
    expect(before[0]!.whales_active).toBe(4)
    // A reorg removes every record of W2 in the first 20 hours, and of everyone in one whole hour.
    await app.query("DELETE FROM whale_tx WHERE wallet = $1 AND ts >= $2 AND ts < $3", [W.W2, new Date(U - 30 * HOUR).toISOString(), new Date(U - 10 * HOUR).toISOString()])
    await app.query("DELETE FROM whale_tx WHERE ts >= $1 AND ts < $2", [new Date(U - 2 * HOUR - 23 * MIN).toISOString(), new Date(U - HOUR - 23 * MIN).toISOString()])
    await same()
    // An update that moves nothing (a token's symbol resolved later) leaves the figures alone.
    await app.query("UPDATE whale_tx SET symbol = symbol || '' WHERE ts >= $1 AND ts < $2", [new Date(U - 30 * HOUR).toISOString(), new Date(U + 54 * HOUR).toISOString()])
    await same()
    // A record moves to another hour and another wallet (an update of whale_tx).
    await app.query(
      `UPDATE whale_tx SET ts = ts + interval '3 hours 11 minutes', wallet = $1
       WHERE id = (SELECT min(id) FROM whale_tx WHERE ts >= $2 AND ts < $3)`,
      ["0x5555555555555555555555555555555555555555", new Date(U).toISOString(), new Date(U + 48 * HOUR).toISOString()]
    )
    // Late records of a wallet never seen before, in hours already stored, and a record without a price.
    await insertTx(app, [
      { wallet: "0x6666666666666666666666666666666666666666", token: "UNI", category: "dex_sell", usd: 12.34, at: U + 2 * MIN },
      { wallet: "0x6666666666666666666666666666666666666666", token: "WETH", category: "dex_buy", usd: null, at: U - 5 * HOUR }
    ])
    const after = await same()
    expect(after[0]!.whales_active).toBe(6)
    expect(after[4]!.whales_active).toBeGreaterThanOrEqual(1)
  })
})

describe("state machine", () => {
  const move = (id: number, to: "SCHEDULED" | "LIVE" | "COMPLETED") => failureOf(app, AFTER, Effect.flatMap(Playbook, (p) => p.setStatus(id, to, "admin:1")))

  it("moves SCHEDULED → LIVE → COMPLETED once each, caches the final metrics and announces each change", async () => {
    const id = (await create("Life cycle", T)).id
    expect(await move(id, "COMPLETED")).toBe("TransitionRefused")
    expect(await move(id, "SCHEDULED")).toBe("TransitionRefused")
    expect(await move(id, "LIVE")).toBe("success")
    const other = (await create("Second", T + HOUR)).id
    expect(await move(other, "LIVE")).toBe("LiveEventExists")
    expect(await move(id, "LIVE")).toBe("TransitionRefused")
    expect(await move(id, "SCHEDULED")).toBe("TransitionRefused")
    expect(await failureOf(app, AFTER, Effect.flatMap(Playbook, (p) => p.recompute(id)))).toBe("NotCompleted")
    expect(await move(id, "COMPLETED")).toBe("success")
    for (const to of ["SCHEDULED", "LIVE", "COMPLETED"] as const) expect(await move(id, to)).toBe("TransitionRefused")
    const d = await runAt(app, AFTER, Effect.flatMap(Playbook, (p) => p.detail(id)))
    expect(d.status).toBe("COMPLETED")
    expect(d.final_metrics!.whole.figures.net_flow_usd).toBe(700)
    expect(await failureOf(app, AFTER, Effect.flatMap(Playbook, (p) => p.recompute(id)))).toBe("success")
    expect(await move(999_999, "LIVE")).toBe("EventNotFound")
    const announced = await runAt(app, AFTER, Effect.flatMap(Bus, (b) => b.tail(STREAMS.domainEvents, 50)))
    const mine = announced.map((e) => e.payload).filter((p) => p.event_id === id)
    expect(mine.map((p) => [p.messageId, p._tag, p.status])).toEqual([
      [`playbook:${id}:LIVE`, "PlaybookEventStatus", "LIVE"],
      [`playbook:${id}:COMPLETED`, "PlaybookEventStatus", "COMPLETED"]
    ])
    const trail = await app.query<{ from_status: string; to_status: string }>("SELECT from_status, to_status FROM playbook_transitions WHERE event_id = $1 ORDER BY id", [id])
    expect(trail).toEqual([{ from_status: "SCHEDULED", to_status: "LIVE" }, { from_status: "LIVE", to_status: "COMPLETED" }])
  })

  it("lets exactly one of two concurrent moves to LIVE win", async () => {
    const a = (await create("Race A", T)).id
    const b = (await create("Race B", T)).id
    const results = await Promise.all([move(a, "LIVE"), move(b, "LIVE")])
    expect(results.sort()).toEqual(["LiveEventExists", "success"])
    const live = await app.query<{ id: number }>("SELECT id FROM playbook_events WHERE status = 'LIVE'")
    expect(live).toHaveLength(1)
    await move(Number(live[0]!.id), "COMPLETED")
  })
})

describe("pre-positioning", () => {
  it("measures the last 24 h and 72 h against the 7-day average, over the event's tokens when it names some", async () => {
    const AT = Date.parse("2026-08-01T12:00:00Z")
    await insertTx(app, [
      { wallet: W.W1, token: "WETH", category: "dex_buy", usd: 300, at: AT - HOUR },
      { wallet: W.W4, token: "UNI", category: "dex_buy", usd: 500, at: AT - 2 * HOUR },
      { wallet: W.W2, token: "WETH", category: "dex_sell", usd: 100, at: AT - 30 * HOUR },
      { wallet: W.W3, token: "WETH", category: "exchange_withdraw", usd: 300, at: AT - 100 * HOUR },
      { wallet: W.W1, token: "WETH", category: "dex_buy", usd: 1000, at: AT - 8 * 24 * HOUR }
    ])
    const eth = (await runAt(app, AT, Effect.flatMap(Playbook, (p) => p.create({ title: "ETH unlock", category: "unlock", timestamp: new Date(AT + 10 * HOUR).toISOString(), severity: 3, tokens: ["ETH"] })))).id
    const all = (await runAt(app, AT, Effect.flatMap(Playbook, (p) => p.create({ title: "Jobs", category: "jobs", timestamp: new Date(AT + 40 * HOUR).toISOString(), severity: 3 })))).id
    const pos = await runAt(app, AT, Effect.flatMap(PlaybookReads, (r) => r.positioning(30)))
    expect(pos.events.map((e) => e.event.id)).toEqual([eth, all])
    // ETH (WETH) only: 7 days gross 700 → 100 per 24 h; 24 h gross 300 (3×), 72 h gross 400 (1.3333×), net 72 h +200.
    expect(pos.events[0]).toMatchObject({
      hours_until: 10, scope: ["ETH"], direction: "accumulating", gauge: 100,
      last_24h: { gross_usd: 300, net_flow_usd: 300, ratio: 3 }, last_72h: { gross_usd: 400, net_flow_usd: 200, ratio: 1.3333 }
    })
    // Every token: 7 days gross 1200; 24 h gross 800 (4.6667×), 72 h gross 900 (1.75×).
    expect(pos.events[1]).toMatchObject({ scope: [], last_24h: { gross_usd: 800, ratio: 4.6667 }, last_72h: { gross_usd: 900, net_flow_usd: 700, ratio: 1.75 }, gauge: 100 })
  })
})

describe("running windows", () => {
  it("are computed once per cache slot, as of its start, however many requests arrive in it", async () => {
    const R = Date.parse("2026-09-10T12:00:00Z")
    await insertTx(app, [{ wallet: W.W1, token: "WETH", category: "dex_buy", usd: 250, at: R - 30 * MIN }])
    const id = (await create("Open window", R, 3, "other")).id
    const at = R + 2 * HOUR + 17_000
    const counts = await runAt(app, at, Effect.gen(function* () {
      const pb = yield* Playbook
      const reads = yield* PlaybookReads
      const n = () => [pb.runningComputations(), reads.positioningComputations()]
      const start = n()
      // A burst of concurrent requests, then two more in a row: one computation each.
      const burst = yield* Effect.all([pb.detail(id), pb.detail(id), pb.detail(id), reads.positioning(30), reads.positioning(30)], { concurrency: "unbounded" })
      const first = yield* pb.detail(id)
      const second = yield* pb.detail(id)
      const before = yield* reads.positioning(30)
      const afterBurst = n()
      // A new event is seen at once, within the same slot (the events' version is part of the key).
      const added = yield* pb.create({ title: "Added in the slot", category: "jobs", timestamp: new Date(R + 3 * 24 * HOUR).toISOString(), severity: 2 })
      const after = yield* reads.positioning(30)
      yield* pb.detail(id)
      const afterAdd = n()
      // The next slot computes again.
      const next = yield* pb.detail(id).pipe(Effect.withClock(fixedClock(at + 60_000)))
      yield* reads.positioning(30).pipe(Effect.withClock(fixedClock(at + 60_000)))
      return { start, afterBurst, afterAdd, end: n(), burst, first, second, next, before, after, added }
    }))
    expect(counts.afterBurst).toEqual([counts.start[0]! + 1, counts.start[1]! + 1])
    expect(counts.afterAdd).toEqual([counts.start[0]! + 2, counts.start[1]! + 2])
    expect(counts.end).toEqual([counts.start[0]! + 3, counts.start[1]! + 3])
    expect(counts.before.events.map((e) => e.event.id)).not.toContain(counts.added.id)
    expect(counts.after.events.map((e) => e.event.id)).toContain(counts.added.id)
    expect(counts.first.metrics).toEqual(counts.second.metrics)
    expect(counts.burst[0]!.metrics).toEqual(counts.first.metrics)
    expect(counts.first.metrics!.window.as_of).toBe("2026-09-10T14:00:00.000Z")
    expect(counts.first.metrics!.pre.figures).toMatchObject({ dex_buy_usd: 250, records: 1 })
    expect(counts.next.metrics!.window.as_of).toBe("2026-09-10T14:01:00.000Z")
  })
})
