/**
 * The playbook over HTTP: the calendar seeded at start, gates (whale-tier reads, admin writes), 422s, 404s and 409s,
 * an admin's journey (create → LIVE → whale flow arriving on the live panel through the playbook-live actor, with a
 * retraction and an actor restart → COMPLETED with final metrics), the reads' shapes, the gated page and the MCP tools.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import {
  CompareResult, ConfluenceList, EventDetail, EventFlow, EventList, FastestResult, ImpactList, LiveResponse, PastEventList,
  Patterns, PlaybookEvent, PositioningList, RecoveryResult, SearchResult, SignalsResult
} from "../../schema/http/playbook"
import { STREAMS } from "../../schema/streams"
import { ActorRegistry } from "../../server/platform/actors/Registry"
import { bearer, createUser, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { HOUR, insertTx, QUIET_CHAIN, trackTestWallets, W } from "../support/whales"
import { chainTx, publish } from "../support/ws"
import { shippedPastEvents } from "./support"

let app: TestApp
let whale: Record<string, string>
let pro: Record<string, string>
let admin: Record<string, string>

const call = async (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) => {
  const res = await fetch(`${app.url}${path}`, {
    method, redirect: "manual",
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const text = await res.text()
  let json: unknown = null
  try {
    json = JSON.parse(text)
  } catch {
    json = text
  }
  return { status: res.status, json: json as any, headers: res.headers }
}
const get = <T extends z.ZodType>(schema: T, path: string) =>
  call("GET", path, whale).then((r) => {
    expect(r.status, JSON.stringify(r.json)).toBe(200)
    return schema.parse(r.json) as z.output<T>
  })

beforeAll(async () => {
  app = await startApp({ env: { ...QUIET_CHAIN, PLAYBOOK_LIVE_PUBLISH_MS: "200" } })
  await trackTestWallets(app)
  await createUser(app, { email: "whale@playbook.test", tier: "whale" })
  await createUser(app, { email: "pro@playbook.test", tier: "pro" })
  await createUser(app, { email: "admin@playbook.test", tier: "whale", admin: true })
  whale = bearer((await login(app, "whale@playbook.test")).token)
  pro = bearer((await login(app, "pro@playbook.test")).token)
  admin = bearer((await login(app, "admin@playbook.test")).token)
  // The calendar is upserted at start by a background process.
  await waitFor(async () => Number((await app.query<{ n: string }>("SELECT count(*) AS n FROM playbook_events"))[0]!.n) >= 54, 20_000, 100)
})

afterAll(async () => {
  await app?.close()
})

describe("calendar and gates", () => {
  it("serves the real calendar to the whale tier only", async () => {
    const fomc = await get(EventList, "/api/playbook/events?category=fomc&limit=100")
    expect(fomc.events).toHaveLength(24)
    expect(fomc.events.find((e) => e.timestamp === "2024-09-18T18:00:00.000Z")).toMatchObject({ title: "FOMC rate decision (September 2024)", source_url: "https://www.federalreserve.gov/monetarypolicy/fomccalendars.htm", origin: "calendar" })
    expect((await get(EventList, "/api/playbook/events")).events).toHaveLength(50)
    expect((await call("GET", "/api/playbook/events")).status).toBe(401)
    expect((await call("GET", "/api/playbook/events", pro)).status).toBe(403)
    expect((await call("GET", "/api/playbook/patterns", pro)).status).toBe(403)
    const past = await get(PastEventList, "/api/playbook/past-events?limit=5&offset=1")
    expect(past.events).toHaveLength(5)
    expect(past.total).toBeGreaterThan(40)
    expect(past.events.every((e) => Date.parse(e.timestamp) <= Date.now())).toBe(true)
    expect(Date.parse(past.events[0]!.timestamp)).toBeGreaterThanOrEqual(Date.parse(past.events[4]!.timestamp))
  })

  it("lets only administrators write", async () => {
    const body = { title: "Test event", category: "other", timestamp: "2030-01-01T00:00:00Z", severity: 2 }
    expect((await call("POST", "/api/playbook/events", {}, body)).status).toBe(401)
    expect((await call("POST", "/api/playbook/events", whale, body)).status).toBe(403)
    const created = await call("POST", "/api/playbook/events", admin, body)
    expect(created.status).toBe(200)
    const e = PlaybookEvent.parse(created.json)
    expect(e).toMatchObject({ status: "SCHEDULED", origin: "admin", tokens: [], high_severity: false })
    expect((await call("PUT", `/api/playbook/events/${e.id}`, whale, { severity: 5 })).status).toBe(403)
    const put = await call("PUT", `/api/playbook/events/${e.id}`, admin, { severity: 5, tokens: ["eth"] })
    expect(put.json).toMatchObject({ severity: 5, high_severity: true, tokens: ["ETH"], title: "Test event" })
    expect((await call("POST", `/api/playbook/events/${e.id}/status`, whale, { status: "LIVE" })).status).toBe(403)
    expect((await call("POST", `/api/playbook/events/${e.id}/recompute`, {}, {})).status).toBe(401)
  })

  it("answers 422 with every problem, 404 for unknown ids and 409 with the allowed moves", async () => {
    const bad = await call("POST", "/api/playbook/events", admin, { title: "", category: "weather", timestamp: "2030-01-01 00:00", severity: 9, extra: 1 })
    expect(bad.status).toBe(422)
    expect(bad.json.detail.map((d: { loc: Array<string> }) => d.loc.join("."))).toEqual(expect.arrayContaining(["body.title", "body.category", "body.timestamp", "body.severity"]))
    expect((await call("PUT", "/api/playbook/events/1", admin, {})).status).toBe(422)
    expect((await call("GET", "/api/playbook/events/1/flow?bucket=7", whale)).status).toBe(422)
    expect((await call("GET", "/api/playbook/events?limit=0", whale)).status).toBe(422)
    expect((await call("GET", "/api/playbook/events?status=DONE", whale)).status).toBe(422)
    expect((await call("GET", "/api/playbook/search?sort=random", whale)).status).toBe(422)
    expect((await call("GET", "/api/playbook/events/abc", whale)).status).toBe(422)
    expect((await call("POST", "/api/playbook/events/1/status", admin, { status: "DONE" })).status).toBe(422)
    const missing = await call("GET", "/api/playbook/events/999999", whale)
    expect(missing).toMatchObject({ status: 404, json: { code: "event_not_found" } })
    expect((await call("GET", "/api/playbook/compare?a=1", whale)).status).toBe(404)
    expect((await call("GET", "/api/playbook/events/999999/recovery", whale)).status).toBe(404)
    const refused = await call("POST", "/api/playbook/events/1/status", admin, { status: "COMPLETED" })
    expect(refused).toMatchObject({ status: 409, json: { code: "illegal_transition", status: "SCHEDULED", requested: "COMPLETED", allowed: ["LIVE"] } })
    expect(await call("POST", "/api/playbook/events/1/recompute", admin)).toMatchObject({ status: 409, json: { code: "not_completed" } })
  })
})

describe("an admin runs a live event", () => {
  it("goes LIVE, whale flow arrives on the live panel, survives a restart, completes with final metrics", async () => {
    const now = Date.now()
    expect(await get(LiveResponse, "/api/playbook/live")).toBeNull()
    const created = PlaybookEvent.parse((await call("POST", "/api/playbook/events", admin, {
      title: "Surprise rate cut", category: "fomc", timestamp: new Date(now - HOUR).toISOString(), severity: 5, tokens: ["ETH"]
    })).json)
    const before = await insertTx(app, [{ wallet: W.W1, token: "WETH", category: "dex_buy", usd: 1000, at: now - 2 * HOUR }])
    expect(before).toHaveLength(1)
    // One record days earlier: the 7-day baseline is a mean over several slots, so its counts are fractions. And one
    // nine days back, before every baseline slot: slots start where the data does (its first roll-up hour), and a
    // running window's slots are not hour-aligned, so without it the slot holding the record three days back started
    // before the data whenever the test ran in the first minutes of an hour (its baseline then read 0).
    await insertTx(app, [
      { wallet: W.W1, token: "WETH", category: "dex_buy", usd: 10, at: now - 3 * 24 * HOUR },
      { wallet: W.W1, token: "WETH", category: "dex_buy", usd: 5, at: now - 9 * 24 * HOUR }
    ])
    const live = await call("POST", `/api/playbook/events/${created.id}/status`, admin, { status: "LIVE" })
    expect(live.json).toMatchObject({ status: "LIVE" })
    const other = PlaybookEvent.parse((await call("POST", "/api/playbook/events", admin, { title: "Other", category: "cpi", timestamp: new Date(now).toISOString(), severity: 4 })).json)
    expect(await call("POST", `/api/playbook/events/${other.id}/status`, admin, { status: "LIVE" })).toMatchObject({ status: 409, json: { code: "live_event_exists", live_event_id: created.id } })

    // Records stored by the listener and published on chain.tx reach the live panel.
    const ts = new Date(now - 10 * 60_000).toISOString()
    const [idA, idB] = await insertTx(app, [
      { wallet: W.W2, token: "WETH", category: "dex_sell", usd: 400, at: Date.parse(ts) },
      { wallet: W.W3, token: "WETH", category: "dex_buy", usd: 250, at: Date.parse(ts) }
    ])
    const stored = await app.query<{ id: string; tx_hash: string }>("SELECT id, tx_hash FROM whale_tx WHERE id = ANY($1::bigint[]) ORDER BY id", [[idA, idB]])
    const msgA = chainTx(1, { id: idA!, tx_hash: stored[0]!.tx_hash, ts, wallet: W.W2, category: "dex_sell", usd: 400 })
    const msgB = chainTx(2, { id: idB!, tx_hash: stored[1]!.tx_hash, ts, wallet: W.W3, category: "dex_buy", usd: 250 })
    await publish(app, STREAMS.chainTx, [msgA, msgB, { ...msgB, messageId: "again" }])
    const liveTotals = async () => (await get(LiveResponse, "/api/playbook/live"))?.live?.totals
    await waitFor(async () => (await liveTotals())?.records === 3, 10_000, 50)
    expect(await liveTotals()).toMatchObject({ dex_buy_usd: 1250, dex_sell_usd: 400, net_flow_usd: 850, whales_active: 3 })

    // A reorg retracts one record.
    await publish(app, STREAMS.chainTx, [{ messageId: "retract-b", kind: "retraction", id: idB, tx_hash: msgB.tx_hash, log_index: 0, block: msgB.block, wallet: W.W3, token: msgB.token, category: "dex_buy", usd: 250, reason: "reorg" }])
    await waitFor(async () => (await liveTotals())?.records === 2, 10_000, 50)
    await app.query("DELETE FROM whale_tx WHERE id = $1", [idB])

    // A record stored while the actor restarts is counted once it rebuilds from the stored records.
    await insertTx(app, [{ wallet: W.W4, token: "WETH", category: "exchange_withdraw", usd: 75, at: now - 5 * 60_000 }])
    expect(await app.runtime.runPromise(Effect.flatMap(ActorRegistry, (r) => r.restart("playbook-live")))).toBe(true)
    await waitFor(async () => (await liveTotals())?.records === 3, 10_000, 50)
    const panel = (await get(LiveResponse, "/api/playbook/live"))!
    expect(panel.live).toMatchObject({ event_id: created.id, totals: { dex_buy_usd: 1000, dex_sell_usd: 400, exchange_withdraw_usd: 75, net_flow_usd: 675, records: 3 } })
    expect(panel.live!.fastest.map((f) => f.usd)).toEqual([400, 75])
    // The window's metrics are shared for a slot of PLAYBOOK_RUNNING_CACHE_SECONDS (5): they catch up within one.
    const liveMetrics = async () => (await get(LiveResponse, "/api/playbook/live"))?.metrics?.whole.figures
    await waitFor(async () => (await liveMetrics())?.exchange_withdraw_usd === 75, 15_000, 100)
    expect(await liveMetrics()).toMatchObject({ dex_buy_usd: 1000, dex_sell_usd: 400, exchange_withdraw_usd: 75, records: 3 })

    const done = await call("POST", `/api/playbook/events/${created.id}/status`, admin, { status: "COMPLETED" })
    expect(done.status).toBe(200)
    const completed = PlaybookEvent.parse(done.json)
    expect(completed.final_metrics!.whole.figures).toMatchObject({ net_flow_usd: 675, whales_active: 3 })
    expect(completed.final_metrics!.pre.figures.net_flow_usd).toBe(1000)
    expect(await get(LiveResponse, "/api/playbook/live")).toBeNull()
    const recomputed = await call("POST", `/api/playbook/events/${created.id}/recompute`, admin)
    const detail = EventDetail.parse(recomputed.json)
    expect(detail.final_metrics!.whole.figures.net_flow_usd).toBe(675)
    const m = detail.final_metrics!
    const baselineRecords = [m.whole, m.pre, m.post].map((span) => span.baseline?.records ?? 0)
    expect(baselineRecords.some((n) => n > 0 && n < 1), String(baselineRecords)).toBe(true)
    EventDetail.parse((await call("GET", `/api/playbook/events/${created.id}`, whale)).json)
    const impact = await get(ImpactList, "/api/playbook/impact")
    expect(impact.events[0]).toMatchObject({ event: { id: created.id }, net_flow_usd: 675, pre_net_flow_usd: 1000, post_net_flow_usd: -325 })

    // Every read of the event answers in its documented shape.
    const flow = await get(EventFlow, `/api/playbook/events/${created.id}/flow?bucket=5`)
    expect(flow.buckets.reduce((a, b) => a + b.records, 0)).toBe(3)
    const rec = await get(RecoveryResult, `/api/playbook/events/${created.id}/recovery`)
    expect(rec).toMatchObject({ pre_net_flow_usd: 1000, pre_direction: "inflow", reversal: true, recovery_hour: null })
    const sig = await get(SignalsResult, `/api/playbook/events/${created.id}/signals`)
    expect(sig.biggest_trades.map((t) => t.usd)).toEqual([1000])
    const fast = await get(FastestResult, `/api/playbook/events/${created.id}/fastest?limit=1`)
    expect(fast.trades.map((t) => t.usd)).toEqual([400])
    const cmp = await get(CompareResult, `/api/playbook/compare?a=${other.id}&b=${created.id}`)
    expect(cmp.a.id).toBe(other.id)
    expect(cmp.b.id).toBe(created.id)
    const found = await get(SearchResult, "/api/playbook/search?q=surprise&token=eth")
    expect(found.events.map((e) => e.id)).toEqual([created.id])
    expect((await get(SearchResult, "/api/playbook/search?flow=inflow&sort=impact")).events.map((e) => e.id)).toContain(created.id)
  })

  it("shows patterns, positioning and confluence over the calendar", async () => {
    const p = await get(Patterns, "/api/playbook/patterns")
    expect(p.categories.map((c) => c.category)).toEqual(expect.arrayContaining(["fomc", "cpi", "upgrade"]))
    // Every CPI release of the shipped calendar whose window has ended.
    const pastCpi = shippedPastEvents("cpi")
    expect(pastCpi).toBeGreaterThanOrEqual(32) // 2024 (12), 2025 (11: no October release), 2026 through September (9)
    expect(p.categories.find((c) => c.category === "cpi")).toMatchObject({ n: pastCpi })
    expect(p.method).toMatch(/no measurable effect/)
    const pos = await get(PositioningList, "/api/playbook/positioning?days_ahead=365")
    expect(pos.events.every((e) => e.event.status === "SCHEDULED" && e.hours_until > 0 && e.gauge >= 0 && e.gauge <= 100)).toBe(true)
    const conf = await get(ConfluenceList, "/api/playbook/confluence?window_days=14")
    expect(conf.past.length).toBeGreaterThan(5)
    expect(conf.past.every((c) => c.events.length >= 2 && c.events.every((e) => e.severity >= 4))).toBe(true)
  })
})

describe("the /playbook page and MCP", () => {
  it("is served to the whale tier only", async () => {
    expect((await call("GET", "/playbook")).status).toBe(302)
    expect((await call("GET", "/playbook")).headers.get("location")).toBe("/login?next=%2Fplaybook")
    expect((await call("GET", "/playbook", pro)).status).toBe(403)
    const page = await call("GET", "/playbook", whale)
    expect(page.status).toBe(200)
    expect(page.headers.get("content-type")).toMatch(/text\/html/)
  })

  it("answers the playbook tools", async () => {
    const rpc = async (session: string | null, body: unknown) => {
      const res = await fetch(`${app.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(session ? { "mcp-session-id": session } : {}) },
        body: JSON.stringify(body)
      })
      return { session: res.headers.get("mcp-session-id"), json: (await res.json()) as any }
    }
    const init = await rpc(null, { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } } })
    const list = await rpc(init.session, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "playbook_events", arguments: { category: "upgrade" } } })
    const events = list.json.result.structuredContent.events as Array<{ id: number; title: string }>
    expect(events.map((e) => e.title)).toContain("Pectra (Prague-Electra) upgrade on Ethereum mainnet")
    const one = await rpc(init.session, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "playbook_event", arguments: { event_id: events[0]!.id } } })
    expect(one.json.result.structuredContent.event).toMatchObject({ id: events[0]!.id, category: "upgrade" })
    const none = await rpc(init.session, { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "playbook_event", arguments: { event_id: 999999 } } })
    expect(none.json.result.structuredContent).toEqual({ event: null })
  })
})
