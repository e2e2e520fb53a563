/**
 * What the account page reads and does (server side): the account's live sessions with the current one marked,
 * signing one out (its token stops working; another account's session id is 404), and today's data API usage by
 * session, not counted against the quota.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bearer, createUser, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { whaleWithKey } from "../support/whales"

let app: TestApp
beforeAll(async () => {
  app = await startApp({ env: { WHALE_ROLES: "http" } })
})
afterAll(async () => {
  await app?.close()
})

const get = async (path: string, token: string) => {
  const res = await fetch(`${app.url}${path}`, { headers: bearer(token) })
  return { status: res.status, body: (await res.json()) as any }
}
const post = async (path: string, token: string) => {
  const res = await fetch(`${app.url}${path}`, { method: "POST", headers: { ...bearer(token), "content-type": "application/json" }, body: "{}" })
  return { status: res.status, body: (await res.json()) as any }
}

describe("sessions", () => {
  it("lists the account's live sessions, marks the current one, and signs another out", async () => {
    await createUser(app, { email: "sessions@example.com" })
    const laptop = await login(app, "sessions@example.com", undefined, { "user-agent": "Laptop browser" })
    const phone = await login(app, "sessions@example.com", undefined, { "user-agent": "Phone browser" })
    const list = await get("/auth/sessions", laptop.token)
    expect(list.status).toBe(200)
    expect(list.body.sessions).toHaveLength(2)
    const current = list.body.sessions.filter((s: { current: boolean }) => s.current)
    expect(current).toHaveLength(1)
    expect(current[0].user_agent).toBe("Laptop browser")
    const other = list.body.sessions.find((s: { current: boolean }) => !s.current)
    expect(other.user_agent).toBe("Phone browser")

    // Another account cannot see or end these sessions.
    await createUser(app, { email: "intruder@example.com" })
    const intruder = await login(app, "intruder@example.com")
    expect((await get("/auth/sessions", intruder.token)).body.sessions).toHaveLength(1)
    const refused = await post(`/auth/sessions/${other.id}/revoke`, intruder.token)
    expect(refused).toMatchObject({ status: 404, body: { code: "session_not_found" } })
    expect((await get("/auth/me", phone.token)).status).toBe(200)

    const revoked = await post(`/auth/sessions/${other.id}/revoke`, laptop.token)
    expect(revoked).toMatchObject({ status: 200, body: { revoked: true, id: other.id, current: false } })
    expect((await get("/auth/me", phone.token)).status).toBe(401)
    expect((await get("/auth/me", laptop.token)).status).toBe(200)
    expect((await get("/auth/sessions", laptop.token)).body.sessions).toHaveLength(1)
    expect((await post(`/auth/sessions/${other.id}/revoke`, laptop.token)).status).toBe(404)
  })
})

describe("usage", () => {
  it("shows today's data API requests of the account by session, without counting", async () => {
    const { key, token } = await whaleWithKey(app, "usage@example.com")
    for (let i = 0; i < 3; i++) expect((await fetch(`${app.url}/api/v1/stats`, { headers: { "x-api-key": key } })).status).toBe(200)
    const first = await get("/api/keys/usage", token)
    expect(first.status).toBe(200)
    expect(first.body).toMatchObject({ used: 3, limit: 25_000, remaining: 24_997 })
    expect(first.body.keys).toEqual([expect.objectContaining({ requests: 3, name: "test key" })])
    expect(Date.parse(first.body.reset_at) - Date.now()).toBeLessThanOrEqual(86_400_000)
    // Reading it is not a request against the quota.
    expect((await get("/api/keys/usage", token)).body.used).toBe(3)
    expect((await fetch(`${app.url}/api/keys/usage`)).status).toBe(401)
  })
})
