/**
 * The admin console's identity endpoints (schema/http/identity.ts) on a whole app: corrections set and removed with
 * a reason through the same service as the CLI, the corrections log, whale discovery's queue with approve and
 * reject; 401 anonymous, 403 for a signed-in user without admin rights (whatever the tier), 422 for bad input,
 * 404/409 for unknown or refused candidates. Every 2xx answer is checked against its contract (RESPONSE_CHECK strict).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CandidatesAnswer, CorrectionAnswer, CorrectionsAnswer } from "../../schema/http/identity"
import { bearer, createUser, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { QUIET_CHAIN } from "../support/whales"

let app: TestApp
let admin: Record<string, string>
let whale: Record<string, string>
const BOT = `0x${"b0".repeat(20)}`
const PENDING = `0x${"a1".repeat(20)}`
const OTHER = `0x${"a2".repeat(20)}`

const call = async (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) => {
  const res = await fetch(`${app.url}${path}`, {
    method, redirect: "manual",
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const text = await res.text()
  let json: any = text
  try { json = JSON.parse(text) } catch { /* not JSON */ }
  return { status: res.status, json }
}

const candidate = (address: string, status: string) =>
  app.query(`INSERT INTO whale_candidates (address, status, move_verb, move_usd, move_symbol, move_block, move_tx, holdings_usd, holdings, cohort, reason, note, measured_at, last_active_at, last_block)
    VALUES ($1, $2, 'bought', 2400000, 'PEPE', 20000000, '0x${"ab".repeat(32)}', 31000000, '[{"symbol":"USDC","units":31000000,"usd":31000000}]', 'large',
      'bought $2.4M PEPE in block 20000000; holds $31M', 'waits for an operator''s approval', now(), now(), 20000000)`, [address, status])

beforeAll(async () => {
  app = await startApp({ env: { ...QUIET_CHAIN, WHALE_DISCOVERY: "review", WHALE_MAX_TRACKED: "5" } })
  await createUser(app, { email: "admin@identity.test", tier: "free", admin: true })
  await createUser(app, { email: "whale@identity.test", tier: "whale" })
  admin = bearer((await login(app, "admin@identity.test")).token)
  whale = bearer((await login(app, "whale@identity.test")).token)
  await candidate(PENDING, "pending")
  await candidate(OTHER, "pending")
}, 120_000)
afterAll(async () => {
  await app?.close()
})

describe("admin identity endpoints", () => {
  const endpoints: ReadonlyArray<[string, string, unknown?]> = [
    ["GET", "/api/admin/identity/corrections"],
    ["POST", "/api/admin/identity/corrections", { address: BOT, action: "set", field: "class", value: "mev_bot", reason: "x" }],
    ["GET", "/api/admin/identity/candidates"],
    ["POST", `/api/admin/identity/candidates/${PENDING}/approve`],
    ["POST", `/api/admin/identity/candidates/${PENDING}/reject`, { reason: "x" }]
  ]

  it("answers 401 anonymous and 403 to a signed-in user without admin rights, changing nothing", async () => {
    for (const [method, path, body] of endpoints) {
      expect((await call(method, path, {}, body)).status, `${method} ${path}`).toBe(401)
      const r = await call(method, path, whale, body)
      expect(r.status, `${method} ${path}`).toBe(403)
      expect(r.json).toMatchObject({ code: "admin_required" })
    }
    expect(await app.query("SELECT * FROM wallet_identity_corrections")).toEqual([])
    expect((await app.query<{ status: string }>("SELECT status FROM whale_candidates WHERE address = $1", [PENDING]))[0]!.status).toBe("pending")
  })

  it("sets and removes a class with a reason, and shows the log newest first", async () => {
    const set = await call("POST", "/api/admin/identity/corrections", admin, { address: BOT.toUpperCase().replace("0X", "0x"), action: "set", field: "class", value: "mev_bot", reason: "front-runs our users, seen by hand" })
    expect(set.status, JSON.stringify(set.json)).toBe(200)
    const answer = CorrectionAnswer.parse(set.json)
    expect(answer.identity).toMatchObject({ address: BOT, class: "mev_bot", class_source: "operator", confidence: 1 })
    expect(answer.correction).toMatchObject({ address: BOT, action: "set", field: "class", value: "mev_bot", operator: "admin@identity.test" })
    const label = await call("POST", "/api/admin/identity/corrections", admin, { address: BOT, action: "set", field: "label", value: "Acme searcher", reason: "Acme told us" })
    expect(CorrectionAnswer.parse(label.json).identity).toMatchObject({ label: "Acme searcher", label_source: "operator" })
    const unset = await call("POST", "/api/admin/identity/corrections", admin, { address: BOT, action: "unset", field: "class", value: null, reason: "not sure any more" })
    expect(CorrectionAnswer.parse(unset.json).identity.class).toBe("unknown")
    const log = CorrectionsAnswer.parse((await call("GET", `/api/admin/identity/corrections?address=${BOT}`, admin)).json)
    expect(log.corrections.map((c) => [c.action, c.field, c.value, c.reason])).toEqual([
      ["unset", "class", null, "not sure any more"], ["set", "label", "Acme searcher", "Acme told us"], ["set", "class", "mev_bot", "front-runs our users, seen by hand"]
    ])
  })

  it("refuses bad corrections with 422 (no reason, not an address) or 400 (an unknown class), recording nothing", async () => {
    const before = (await app.query("SELECT id FROM wallet_identity_corrections")).length
    const noReason = await call("POST", "/api/admin/identity/corrections", admin, { address: BOT, action: "set", field: "class", value: "whale", reason: "  " })
    expect(noReason.status).toBe(422)
    const badAddress = await call("POST", "/api/admin/identity/corrections", admin, { address: "0x12", action: "set", field: "class", value: "whale", reason: "r" })
    expect(badAddress.status).toBe(422)
    const badClass = await call("POST", "/api/admin/identity/corrections", admin, { address: BOT, action: "set", field: "class", value: "dolphin", reason: "r" })
    expect(badClass.status).toBe(400)
    expect(badClass.json.code).toBe("invalid_correction")
    expect((await app.query("SELECT id FROM wallet_identity_corrections")).length).toBe(before)
  })

  it("lists the discovery queue and lets the administrator approve or reject", async () => {
    const queue = CandidatesAnswer.parse((await call("GET", "/api/admin/identity/candidates?status=pending", admin)).json)
    expect(queue).toMatchObject({ mode: "review", max_tracked: 5 })
    expect(queue.candidates.map((c) => c.address).sort()).toEqual([PENDING, OTHER].sort())
    expect(queue.candidates[0]!.reason).toBe("bought $2.4M PEPE in block 20000000; holds $31M")

    const approved = await call("POST", `/api/admin/identity/candidates/${PENDING}/approve`, admin)
    expect(approved.status, JSON.stringify(approved.json)).toBe(200)
    expect(approved.json).toMatchObject({ status: "joined", decided_by: "admin@identity.test", cohort: "large" })
    expect(await app.query("SELECT address, source, active FROM tracked_wallets WHERE address = $1", [PENDING])).toEqual([{ address: PENDING, source: "discovered", active: true }])

    expect((await call("POST", `/api/admin/identity/candidates/${OTHER}/reject`, admin, { reason: "" })).status).toBe(422)
    const rejected = await call("POST", `/api/admin/identity/candidates/${OTHER}/reject`, admin, { reason: "an exchange's cold wallet" })
    expect(rejected.json).toMatchObject({ status: "rejected", note: "an exchange's cold wallet" })
    expect((await call("POST", `/api/admin/identity/candidates/${OTHER}/approve`, admin)).status).toBe(409)
    expect((await call("POST", `/api/admin/identity/candidates/0x${"99".repeat(20)}/approve`, admin)).status).toBe(404)
    expect((await call("POST", "/api/admin/identity/candidates/0x99/approve", admin)).status).toBe(422)
  })

  it("serves the console page to everyone (the page itself says who may use it)", async () => {
    const page = await call("GET", "/admin/identity")
    expect(page.status).toBe(200)
    expect(String(page.json)).toMatch(/<!doctype html>/i)
  })
})
