/**
 * `GET /api/picks2/picks` streams every graded pick, no server-side cap: thousands of graded picks (several query
 * batches, the last one partial) arrive chunked, complete, in flag order, each with its exit count, and nothing that
 * is not GRADED; an empty table answers an empty list.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PicksList } from "../../schema/http/picks"
import { GRADED_BATCH } from "../../server/domains/picks/Picks"
import { startApp, type TestApp } from "../support/harness"

const GRADED = 2 * GRADED_BATCH + 321
const T0 = Date.parse("2025-01-01T00:00:00Z")

let app: TestApp
beforeAll(async () => {
  app = await startApp({ env: { DEMO_HISTORY_BLOCKS: "0", DEMO_BLOCK_MS: "3600000", PICKS_CACHE_SECONDS: "0" } })
}, 120_000)
afterAll(async () => { await app?.close() })

const list = async () => {
  const res = await fetch(`${app.url}/api/picks2/picks`)
  return { res, body: PicksList.parse(await res.json()) }
}

describe("GET /api/picks2/picks", () => {
  it("answers an empty list before any pick is graded", async () => {
    const { res, body } = await list()
    expect(res.status).toBe(200)
    expect(body.picks).toEqual([])
  })

  it("streams every graded pick, across batches, in flag order, with exit counts", async () => {
    // Graded picks flagged an hour apart, in shuffled insertion order (ids do not follow flag times), every third a
    // pick of the same instant (the id breaks the tie); PENDING and UNPRICED picks between them are left out.
    await app.query(`
      INSERT INTO picks (token, symbol, flagged_at, flag_record, entry_price, whales, flaggers, conviction, inputs, status,
        close_return, peak_return, max_adverse, exited_before_close, day_closes, graded_at)
      SELECT '0x' || lpad(to_hex(i), 40, '0'), 'T' || i, $1::timestamptz + ((i / 3) * interval '1 hour'), 'r' || i, 1, 3,
        ARRAY['0xa', '0xb', '0xc'], 50, '{}'::jsonb, 'GRADED', (i % 7 - 3) / 10.0, (i % 7) / 10.0, -0.05, false,
        ARRAY[1, 1, 1, 1, 1, 1, 1]::double precision[], $1::timestamptz + ((i / 3) * interval '1 hour') + interval '7 days'
      FROM (SELECT i FROM generate_series(1, ${GRADED}) i ORDER BY md5(i::text)) s`, [new Date(T0).toISOString()])
    await app.query(`
      INSERT INTO picks (token, symbol, flagged_at, flag_record, entry_price, whales, flaggers, conviction, inputs, status)
      SELECT '0xf' || lpad(to_hex(i), 39, '0'), 'P' || i, $1::timestamptz + i * interval '90 minutes', 'p' || i, 1, 3,
        ARRAY['0xa'], 10, '{}'::jsonb, CASE WHEN i % 2 = 0 THEN 'PENDING' ELSE 'UNPRICED' END
      FROM generate_series(1, 40) i`, [new Date(T0).toISOString()])
    const [first] = await app.query<{ id: number }>(`SELECT id FROM picks WHERE symbol = 'T1'`)
    await app.query(`INSERT INTO pick_exits (pick_id, wallet, ts, day_offset, hours, price, move, route, record) VALUES
      ($1, '0xa', $2, 1, 30, 1.1, 0.1, 'dex_sell', 'x1'), ($1, '0xb', $2, 1, 31, 1.1, 0.1, 'exchange_deposit', 'x2')`,
    [first!.id, new Date(T0 + 30 * 3_600_000).toISOString()])

    const { res, body } = await list()
    expect(res.status).toBe(200)
    expect(res.headers.get("transfer-encoding")).toBe("chunked")
    expect(res.headers.get("content-type")).toContain("application/json")
    expect(body.picks).toHaveLength(GRADED)
    expect(body.picks.every((p) => p.status === "GRADED")).toBe(true)
    expect(new Set(body.picks.map((p) => p.id)).size).toBe(GRADED)
    const key = (p: { flagged_at: string; id: number }) => [Date.parse(p.flagged_at), p.id] as const
    for (let i = 1; i < body.picks.length; i++) {
      const [a, b] = [key(body.picks[i - 1]!), key(body.picks[i]!)]
      expect(a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]), `row ${i} out of order`).toBe(true)
    }
    expect(body.picks.find((p) => p.symbol === "T1")).toMatchObject({ exits: 2, close_return: -0.2, peak_return: 0.1 })
    expect(body.picks.filter((p) => p.exits > 0)).toHaveLength(1)
  })
})
