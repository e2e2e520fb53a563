/**
 * The demo history at start, in the running app: stored in the background through the batched insert path while
 * the service already answers (/readyz), every record `source = demo`, the demo wallets tracked, progress on the
 * demo-history actor, index closes stored for its days once complete (the 30-day chart reads real closes). The demo's
 * activity is the demo wallets' alone: no record is of a seed wallet (a real person's or firm's). Not
 * generated again by a later start (the progress row; see Writer.ts). A few days keep the test short; the 120-day budget is `npm run bench:demo`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"

const DAYS = 6

describe("demo history on a first start", () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp({ env: { DEMO_HISTORY_DAYS: String(DAYS), DEMO_HISTORY_BLOCKS: "5", DEMO_BLOCK_MS: "60000" } })
  }, 120_000)
  afterAll(async () => app?.close())

  const history = async () => (await app.query<{ days: number; records: number; from_ts: Date; to_ts: Date; stored_to: Date; finished_at: Date | null }>(
    "SELECT days, records::int AS records, from_ts, to_ts, stored_to, finished_at FROM demo_history"))[0]

  it("answers while the history is stored, then has every day of it, as demo records of about 100 wallets", async () => {
    expect((await fetch(`${app.url}/readyz`)).status).toBe(200)
    await waitFor(async () => (await history())?.finished_at != null, 90_000, 200)
    const row = (await history())!
    expect(row.days).toBe(DAYS)
    expect(row.stored_to.getTime()).toBe(row.to_ts.getTime())
    const [counts] = await app.query<{ n: number; days: number; wallets: number; sources: Array<string> }>(`
      SELECT count(*)::int AS n, count(DISTINCT ts::date)::int AS days, count(DISTINCT wallet)::int AS wallets,
        array_agg(DISTINCT source) AS sources
      FROM whale_tx WHERE ts >= $1 AND ts < $2`, [row.from_ts, row.to_ts])
    expect(counts!.n).toBe(row.records)
    expect(counts!.n).toBeGreaterThan(DAYS * 400)
    expect(counts!.days).toBeGreaterThanOrEqual(DAYS)
    expect(counts!.wallets).toBeGreaterThanOrEqual(90)
    expect(counts!.sources).toEqual(["demo"])
    const [tracked] = await app.query<{ demo: number; all: number }>(
      "SELECT count(*) FILTER (WHERE source = 'demo')::int AS demo, count(*)::int AS all FROM tracked_wallets WHERE active")
    expect(tracked!.demo).toBe(100)
    expect(tracked!.all).toBeGreaterThanOrEqual(145)
    // Generated activity never carries a real wallet or name: every record's wallet is a demo wallet ("Demo …").
    const [who] = await app.query<{ seed: number; labels: Array<string> }>(`
      SELECT count(*) FILTER (WHERE w.source <> 'demo')::int AS seed, array_agg(DISTINCT w.label) AS labels
      FROM whale_tx t JOIN tracked_wallets w ON w.address = t.wallet`)
    expect(who!.seed).toBe(0)
    expect(who!.labels.filter((l) => !/^Demo (treasury|fund|foundation|desk|market maker|whale|trader|degen|farmer) \d{2,3}$/.test(l))).toEqual([])
  }, 120_000)

  it("reports progress on the demo-history actor and stores the index closes of the history's days", async () => {
    const metrics = await (await fetch(`${app.metricsUrl}/metrics`)).text()
    const handled = Number(/actor_messages_handled_total\{[^}]*actor="demo-history"[^}]*\} (\d+)/.exec(metrics)?.[1] ?? NaN)
    expect(handled, metrics.split("\n").filter((l) => l.includes("demo-history")).join("\n")).toBe((await history())!.records)
    await waitFor(async () => {
      const [c] = await app.query<{ n: number }>("SELECT count(*)::int AS n FROM whale_index_daily")
      return c!.n >= DAYS - 1
    }, 30_000, 200)
    const index = await (await fetch(`${app.url}/api/v1/public/whale-index`)).json() as { data: { history: Array<{ date: string; score: number }> } }
    expect(index.data.history.length).toBeGreaterThanOrEqual(DAYS - 1)
    expect(new Set(index.data.history.map((h) => h.score)).size).toBeGreaterThan(1)
  }, 60_000)
})
