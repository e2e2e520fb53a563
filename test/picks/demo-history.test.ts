/**
 * Picks on the demo history of a first start: the history is stored, never published, so the picks-grader waits
 * for it and replays its picks once — flagged, graded on the 7-day close (some up, some down: the generator's pumps
 * end both ways), with their whales' exits — and every endpoint shows them. A few days keep the test short.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type LedgerEntry, verifyChain } from "../../server/domains/picks/Ledger"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"

const DAYS = 14

let app: TestApp
/** What `GET /api/console/history` said, read from the start until it says the replay is done. */
const progress: Array<{ replaying: boolean; percent: number; step: string; days: number }> = []
let watching: Promise<void> = Promise.resolve()
let closing = false
let watchError: unknown
beforeAll(async () => {
  app = await startApp({ env: { DEMO_HISTORY_DAYS: String(DAYS), DEMO_HISTORY_BLOCKS: "5", DEMO_BLOCK_MS: "60000", PICKS_MIN_N: "1", PICKS_CACHE_SECONDS: "0" } })
  watching = (async () => {
    // Until it says done (the test below bounds the wait), or the app is closed.
    while (!closing) {
      const res = await fetch(`${app.url}/api/console/history`)
      const body = (await res.json()) as (typeof progress)[number]
      if (res.status !== 200) throw new Error(`GET /api/console/history: ${res.status} ${JSON.stringify(body)}`)
      progress.push(body)
      if (!body.replaying) return
      await new Promise((r) => setTimeout(r, 200))
    }
  })().catch((e: unknown) => { watchError = e })
}, 120_000)
afterAll(async () => {
  closing = true
  await app?.close()
})

const get = async (path: string) => {
  const res = await fetch(`${app.url}${path}`)
  return { status: res.status, body: (await res.json()) as any }
}

describe("picks of the demo history", () => {

  it("are replayed once the history is stored: flagged, graded both ways, with exits", async () => {
    await waitFor(async () => (await app.query("SELECT 1 FROM picks_history_replay")).length === 1, 420_000, 500)
    const [replay] = await app.query<{ records: number; flagged: number; graded: number }>(
      "SELECT records::int AS records, flagged, graded FROM picks_history_replay")
    const [stored] = await app.query<{ n: number }>("SELECT records::int AS n FROM demo_history")
    expect(replay!.records).toBeGreaterThanOrEqual(stored!.n)
    expect(replay!.flagged).toBeGreaterThan(0)
    const [picks] = await app.query<{ total: number; graded: number; up: number; down: number; demo: number; exits: number; published: number }>(`
      SELECT count(*)::int AS total, count(*) FILTER (WHERE status = 'GRADED')::int AS graded,
        count(*) FILTER (WHERE close_return > 0)::int AS up, count(*) FILTER (WHERE close_return < 0)::int AS down,
        count(*) FILTER (WHERE demo)::int AS demo, (SELECT count(*)::int FROM pick_exits) AS exits,
        count(*) FILTER (WHERE published_at IS NOT NULL)::int AS published
      FROM picks`)
    expect(picks!.total).toBe(replay!.flagged)
    expect(picks!.demo).toBe(picks!.total)
    expect(picks!.graded).toBeGreaterThan(0)
    expect(picks!.up).toBeGreaterThan(0)
    expect(picks!.down).toBeGreaterThan(0)
    expect(picks!.exits).toBeGreaterThan(0)
    // Replayed picks are history: none is announced as a new pick (no alert fires for them).
    expect(picks!.published).toBe(picks!.total)
  }, 480_000)

  it("says how far the history replay is, up to 100 %, and then that it is done", async () => {
    // The replay is done (the test above waited for it): the next read says so.
    await watching
    expect(watchError).toBeUndefined()
    expect(progress.length).toBeGreaterThan(1)
    // While it replays: below 100, never going back, storing before the picks.
    const during = progress.slice(0, -1)
    expect(during.every((p) => p.replaying && p.percent < 100 && p.days === DAYS)).toBe(true)
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.percent).toBeGreaterThanOrEqual(progress[i - 1]!.percent)
    expect(during.some((p) => p.step === "storing")).toBe(true)
    expect(progress.at(-1)).toEqual({ replaying: false, percent: 100, step: "done", days: DAYS })
    // Done means the picks were replayed.
    expect(await app.query("SELECT 1 FROM picks_history_replay")).toHaveLength(1)
  }, 30_000)

  it("shows them on the endpoints, and the ledger still verifies", async () => {
    const s = await get("/api/picks2/summary")
    expect(s.status).toBe(200)
    expect(s.body.counts.graded).toBeGreaterThan(0)
    const list = await get("/api/picks2/picks")
    expect(list.body.picks.length).toBe(s.body.counts.graded + (s.body.counts.unpriced ?? 0))
    const withExits = list.body.picks.find((p: { id: number; exits?: number }) => (p.exits ?? 0) > 0)
    expect(withExits).toBeDefined()
    expect((await get(`/api/picks2/exit-timing/${withExits.id}`)).body.exits.length).toBeGreaterThan(0)
    // The ledger, fetched as the README tells a verifier to, still chains from genesis to its published head.
    const entries: Array<LedgerEntry> = []
    for (let after = 0; ;) {
      const page = await get(`/api/picks2/ledger/entries?after_seq=${after}&limit=5000`)
      entries.push(...page.body.entries)
      if (page.body.next_after_seq == null) break
      after = page.body.next_after_seq
    }
    const head = (await get("/api/picks2/ledger")).body.head
    expect(verifyChain(entries)).toEqual({ ok: true, entries: entries.length, head: head.hash })
  })
})
