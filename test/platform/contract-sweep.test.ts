/**
 * Every JSON read of the route table answers within its contract on real-looking data: the app starts on two weeks of
 * the demo history (stored, replayed into picks and the playbook's windows), a whale-tier administrator with an API
 * key calls every GET endpoint that declares a response schema — path parameters filled from the lists that name
 * them — anonymously and signed in, and none may answer 500 `response_contract` (the harness runs the response check
 * in `strict`). Other suites check what the answers mean; this one only that each matches its schema.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUser, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"

const DAYS = 14

let app: TestApp
let token: string
let apiKey: string

beforeAll(async () => {
  app = await startApp({ env: { DEMO_HISTORY_DAYS: String(DAYS), DEMO_HISTORY_BLOCKS: "20", DEMO_BLOCK_MS: "60000", PICKS_MIN_N: "1", PICKS_CACHE_SECONDS: "0" } })
  await createUser(app, { email: "sweep@example.com", tier: "whale", admin: true })
  token = (await login(app, "sweep@example.com")).token
  apiKey = ((await post("/api/keys/create", { name: "sweep" })) as { key: string }).key
  await fetch(`${app.url}/api/echo/admin/settings`, { method: "PUT", headers: auth(), body: JSON.stringify({ echo_live: true }) })
}, 120_000)
afterAll(async () => app?.close())

const auth = (): Record<string, string> => ({ authorization: `Bearer ${token}`, "content-type": "application/json" })
const post = async (path: string, body: unknown) =>
  (await fetch(`${app.url}${path}`, { method: "POST", headers: auth(), body: JSON.stringify(body) })).json()
const json = async (path: string) => (await fetch(`${app.url}${path}`, { headers: auth() })).json() as Promise<any>

interface Operation {
  readonly responses: Record<string, { content?: Record<string, { schema?: Record<string, unknown> }> }>
  readonly parameters: ReadonlyArray<{ name: string; in: string; required: boolean }>
}

describe("the contract sweep", () => {
  it("answers every JSON GET within its response schema, anonymous and signed in", async () => {
    await waitFor(async () => (await app.query("SELECT 1 FROM picks_history_replay")).length === 1, 420_000, 500)
    const events = (await json("/api/playbook/events?limit=50")).events as Array<{ id: number; status: string }>
    const picks = (await json("/api/picks2/picks")).picks as Array<{ id: number; symbol: string }>
    const tokens = (await json("/api/echo/tokens")).tokens as Array<{ address: string }>
    const trades = (await json("/api/echo/feed")).items as Array<{ wallet: string }>
    expect(events.length).toBeGreaterThan(0)
    expect(picks.length).toBeGreaterThan(0)
    expect(tokens.length).toBeGreaterThan(0)
    const values: Record<string, string> = {
      event_id: String((events.find((e) => e.status === "COMPLETED") ?? events[0])!.id),
      pick_id: String(picks[0]!.id),
      symbol: picks[0]!.symbol,
      address: tokens[0]!.address,
      token: tokens[0]!.address
    }
    const walletPath = `/api/echo/wallet/${trades[0]?.wallet ?? tokens[0]!.address}/lag-curve`
    /** The queries an endpoint needs to answer 200. */
    const queries: Record<string, string> = {
      "/api/playbook/compare": `?a=${events[0]!.id}&b=${events[events.length - 1]!.id}`,
      "/api/echo/token-lookup": `?address=${tokens[0]!.address}`
    }

    const doc = (await json("/openapi.json")) as { paths: Record<string, Record<string, Operation>> }
    const checked: Array<string> = []
    const broken: Array<string> = []
    for (const [template, ops] of Object.entries(doc.paths)) {
      const op = ops.get
      const schema = op?.responses["200"]?.content?.["application/json"]?.schema
      if (!op || !schema || Object.keys(schema).length === 0) continue
      const names = op.parameters.filter((p) => p.in === "path").map((p) => p.name)
      if (names.some((n) => values[n] === undefined && n !== "address")) continue
      // The wallet pages and the keyed wallet endpoints: a wallet the demo chain trades with.
      const filled = template.includes("/wallets/{address}") ? template.replace("{address}", trades[0]?.wallet ?? tokens[0]!.address) : template
      const path = (template.includes("/wallet/{address}") ? walletPath : filled.replace(/\{(\w+)\}/g, (_, n: string) => encodeURIComponent(values[n]!))) +
        (queries[template] ?? "")
      const callers: ReadonlyArray<Record<string, string>> = [{}, { authorization: `Bearer ${token}`, "x-api-key": apiKey }]
      for (const headers of callers) {
        const res = await fetch(`${app.url}${path}`, { headers })
        const body = await res.text()
        checked.push(`${path} ${res.status}`)
        if (res.status === 500 && body.includes("response_contract")) broken.push(JSON.parse(body).detail)
      }
    }
    expect(broken).toEqual([])
    // The sweep reached the reads it is about (the keyed API, the playbook's windows, the picks' views, Echo).
    expect(checked).toEqual(expect.arrayContaining([
      expect.stringMatching(/^\/api\/v1\/transactions 200$/), expect.stringMatching(/^\/api\/playbook\/events\/\d+\/signals 200$/),
      expect.stringMatching(/^\/api\/picks2\/exit-timing\/\d+ 200$/), expect.stringMatching(/^\/api\/echo\/portfolio 200$/),
      expect.stringMatching(/^\/api\/playbook\/compare\?a=\d+&b=\d+ 200$/), expect.stringMatching(/^\/api\/echo\/token-lookup\?address=0x[0-9a-f]+ 200$/)
    ]))
  }, 600_000)
})
