/**
 * `POST /email/batch-send` runs at most once per EMAIL_BATCH_COOLDOWN_SECONDS across the whole deployment: a second
 * run answers 429 with how long to wait — from the same process, and (on Redis) from another process of the same
 * deployment, which shares the counter.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUser, login, type LoggedIn } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"

let app: TestApp
let other: TestApp | undefined
let staff: LoggedIn
// One deployment: the same secrets in both processes, so a session made on one is valid on the other.
const env = {
  WHALE_ROLES: "http", EMAIL_BATCH_COOLDOWN_SECONDS: "600",
  SESSION_SECRET: "batch-cooldown-session-secret-0123456789abcdef", INTERNAL_SECRET: "batch-cooldown-internal-secret-0123456789"
}
const cookieOf = (l: LoggedIn) => l.setCookies.map((c) => c.split(";")[0]).join("; ")

beforeAll(async () => {
  app = await startApp({ env })
  await createUser(app, { email: "staff@whale.test", admin: true })
  staff = await login(app, "staff@whale.test")
  // A second process of the same deployment: same database, same Redis prefix (only when Redis is the bus).
  if (app.env.REDIS_URL && app.env.DATABASE_URL) other = await startApp({ env, databaseUrl: app.env.DATABASE_URL, redisPrefix: app.env.REDIS_PREFIX })
}, 120_000)
afterAll(async () => {
  await other?.close()
  await app?.close()
})

const batchSend = async (on: TestApp) => {
  const cookie = cookieOf(staff)
  const { csrf_token } = (await (await fetch(`${on.url}/api/email/workspace`, { headers: { cookie } })).json()) as { csrf_token: string }
  return fetch(`${on.url}/email/batch-send`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: on.url },
    body: new URLSearchParams({ subject: "Whale data", body: "Hello", _csrf: csrf_token }).toString()
  })
}

describe("batch-send cooldown", () => {
  it("refuses a second batch within the cooldown with 429 and the wait, in this process and in another", async () => {
    const first = await batchSend(app)
    expect(first.status).toBe(200)
    const again = await batchSend(app)
    expect(again.status).toBe(429)
    const body = (await again.json()) as { code: string; detail: string }
    expect(body.code).toBe("batch_cooldown")
    const wait = Number(again.headers.get("retry-after"))
    expect(wait).toBeGreaterThan(500)
    expect(wait).toBeLessThanOrEqual(600)
    if (other) {
      const elsewhere = await batchSend(other)
      expect(elsewhere.status).toBe(429)
    }
  })
})
