/**
 * API keys (spec §2.3, §4.3, §5): only whale-tier users create them; the full key (`whk_live_` + 32 base62) is in
 * the create answer only; only its sha256 is stored; lists show prefix, name, created and last used; at most 10
 * active keys; revocation by prefix; a revoked key is refused while the others keep working.
 */
import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bearer, createUser, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { QUIET_CHAIN } from "../support/whales"

let app: TestApp
let whale: string

beforeAll(async () => {
  app = await startApp({ env: { ...QUIET_CHAIN } })
  await createUser(app, { email: "keys@example.com", tier: "whale" })
  await createUser(app, { email: "pro@example.com", tier: "pro" })
  whale = (await login(app, "keys@example.com")).token
})
afterAll(async () => {
  await app?.close()
})

const post = (path: string, body: unknown, token?: string) =>
  fetch(app.url + path, { method: "POST", headers: { "content-type": "application/json", ...(token ? bearer(token) : {}) }, body: JSON.stringify(body) })
const list = async (token = whale) => (await (await fetch(`${app.url}/api/keys`, { headers: bearer(token) })).json())
const create = async (name: string) => {
  const res = await post("/api/keys/create", { name }, whale)
  expect(res.status).toBe(200)
  return (await res.json()) as { key: string; prefix: string; name: string; created_at: string; last_used_at: null; warning: string }
}

describe("creating keys", () => {
  it("needs a session (401) and the whale tier (403)", async () => {
    expect((await post("/api/keys/create", { name: "x" })).status).toBe(401)
    const pro = (await login(app, "pro@example.com")).token
    const res = await post("/api/keys/create", { name: "x" }, pro)
    expect(res.status).toBe(403)
    expect((await res.json()).code).toBe("tier_required")
  })

  it("returns the full key once, in a recognisable format, and stores only its hash", async () => {
    const made = await create("laptop")
    expect(made.key).toMatch(/^whk_live_[0-9A-Za-z]{32}$/)
    expect(made.prefix).toBe(made.key.slice(0, 12))
    expect(made).toMatchObject({ name: "laptop", last_used_at: null })
    const rows = await app.query<Record<string, unknown>>("SELECT * FROM api_keys WHERE prefix = $1", [made.prefix])
    expect(rows).toHaveLength(1)
    expect(rows[0]!.key_hash).toBe(createHash("sha256").update(made.key).digest("hex"))
    expect(JSON.stringify(rows)).not.toContain(made.key)
    const listed = await list()
    expect(JSON.stringify(listed)).not.toContain(made.key)
    expect(listed.keys).toContainEqual({ prefix: made.prefix, name: "laptop", created_at: made.created_at, last_used_at: null })
    expect(listed.max_active).toBe(10)
  })

  it("allows at most 10 active keys; revoking one frees a place", async () => {
    const have = (await list()).keys.length
    for (let i = have; i < 10; i++) await create(`key ${i}`)
    const refused = await post("/api/keys/create", { name: "eleventh" }, whale)
    expect(refused.status).toBe(409)
    expect((await refused.json()).code).toBe("too_many_keys")
    const victim = (await list()).keys[0].prefix
    expect((await post("/api/keys/revoke", { prefix: victim }, whale)).status).toBe(200)
    expect((await list()).keys.map((k: { prefix: string }) => k.prefix)).not.toContain(victim)
    await create("after revoke")
    expect((await list()).keys).toHaveLength(10)
  })
})

describe("revoking and using keys", () => {
  it("refuses a revoked key and keeps the others working; unknown prefix 404, malformed 422", async () => {
    for (const k of (await list()).keys.slice(0, 2)) await post("/api/keys/revoke", { prefix: k.prefix }, whale)
    const keep = await create("keep")
    const drop = await create("drop")
    const use = (key: string) => fetch(`${app.url}/api/v1/stats`, { headers: { "x-api-key": key } })
    expect((await use(drop.key)).status).toBe(200)
    expect((await post("/api/keys/revoke", { prefix: drop.prefix }, whale)).status).toBe(200)
    expect((await use(drop.key)).status).toBe(401)
    expect((await use(keep.key)).status).toBe(200)
    expect((await post("/api/keys/revoke", { prefix: drop.prefix }, whale)).status).toBe(404)
    expect((await post("/api/keys/revoke", { prefix: "whk_" }, whale)).status).toBe(422)
    // Another user cannot revoke it.
    const pro = (await login(app, "pro@example.com")).token
    expect((await post("/api/keys/revoke", { prefix: keep.prefix }, pro)).status).toBe(404)
    expect((await use(keep.key)).status).toBe(200)
  })

  it("records when a key was last used (from the usage events)", async () => {
    const used = (await list()).keys.find((k: { name: string }) => k.name === "keep")
    await waitFor(async () => {
      const now = (await list()).keys.find((k: { prefix: string }) => k.prefix === used.prefix)
      return now.last_used_at !== null && Date.parse(now.last_used_at) > Date.now() - 60_000
    }, 20_000, 200)
  })
})
