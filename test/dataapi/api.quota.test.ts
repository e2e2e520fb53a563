/**
 * The daily quota across two server instances of one deployment (shared PostgreSQL and Redis), at the real limit
 * of 25,000: exactly 25,000 requests of a day pass and the next ones get 429 with Retry-After and reset_at, whatever
 * instance they reach; the owner is mailed once at 80 % and once at 100 %; usage is persisted per account and key;
 * a re-delivered usage event changes nothing; a key revoked on one instance is refused by the other within the key
 * cache time. Needs real PostgreSQL and Redis.
 */
import { Agent, request } from "node:http"
import { randomBytes } from "node:crypto"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { STREAMS } from "../../schema/streams"
import { quotaKey } from "../../server/gateways/dataapi/Quota"
import { Bus } from "../../server/platform/infra/Bus"
import { Kv } from "../../server/platform/infra/Kv"
import { bearer } from "../support/auth"
import { dropRedisPrefix, freshDatabase, realDatabaseUrl, realRedisUrl, skipWithout, startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { QUIET_CHAIN, whaleWithKey } from "../support/whales"

const skip = skipWithout("DATABASE_URL") || skipWithout("REDIS_URL")
const LIMIT = 25_000

let a: TestApp
let b: TestApp
let dropDb: () => Promise<void>
const prefix = `test:${randomBytes(4).toString("hex")}:`

beforeAll(async () => {
  if (skip) return
  const db = await freshDatabase(realDatabaseUrl!)
  dropDb = db.drop
  const env = { ...QUIET_CHAIN, API_KEY_CACHE_MS: "1000", DB_POOL_SIZE: "8" }
  a = await startApp({ env, databaseUrl: db.url, redisPrefix: prefix })
  b = await startApp({ env, databaseUrl: db.url, redisPrefix: prefix })
}, 120_000)
afterAll(async () => {
  await a?.close()
  await b?.close()
  if (!skip) {
    await dropDb?.()
    await dropRedisPrefix(realRedisUrl!, prefix)
  }
})

interface Answer { status: number; headers: Record<string, string | string[] | undefined>; body: string }
const agents = new Map<string, Agent>()
/** A plain keep-alive GET (many sockets per instance, no pipelining). */
const get = (app: TestApp, path: string, headers: Record<string, string>) =>
  new Promise<Answer>((resolve, reject) => {
    const agent = agents.get(app.url) ?? new Agent({ keepAlive: true, maxSockets: 32 })
    agents.set(app.url, agent)
    const req = request(app.url + path, { agent, headers }, (res) => {
      let body = ""
      res.setEncoding("utf8")
      res.on("data", (c) => (body += c))
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }))
    })
    req.on("error", reject)
    req.end()
  })

const today = () => new Date().toISOString().slice(0, 10)
const seed = (app: TestApp, userId: number, count: number) =>
  app.runtime.runPromise(Effect.flatMap(Kv, (kv) => kv.set(quotaKey(userId, today()), String(count), 172_800)))

describe.skipIf(skip)("daily quota over two instances sharing Redis", () => {
  it("lets exactly 25,000 requests of the day through, then answers 429 on both instances", async () => {
    const { key, userId } = await whaleWithKey(a, "heavy@example.com")
    const headers = { "x-api-key": key }
    const total = LIMIT + 10
    const statuses = new Map<number, number>()
    let next = 0
    let highestCounted = 0
    const worker = async () => {
      while (next < total) {
        const i = next++
        const res = await get(i % 2 === 0 ? a : b, "/api/v1/whale-index", headers)
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
        if (res.status === 200) highestCounted = Math.max(highestCounted, LIMIT - Number(res.headers["x-ratelimit-remaining"]))
      }
    }
    await Promise.all(Array.from({ length: 48 }, worker))
    expect(Object.fromEntries(statuses)).toEqual({ 200: LIMIT, 429: 10 })
    expect(highestCounted).toBe(LIMIT)
    // Counted on Redis throughout (never in process): the load is not mistaken for an outage.
    for (const app of [a, b]) expect(await (await fetch(`${app.metricsUrl}/metrics`)).text()).not.toMatch(/api_quota_fallback_total \d/)

    for (const app of [a, b]) {
      const refused = await get(app, "/api/v1/top-tokens?tf=1H", headers)
      expect(refused.status).toBe(429)
      const body = JSON.parse(refused.body)
      const midnight = Math.ceil((Date.now() + 1) / 86_400_000) * 86_400_000
      expect(body).toMatchObject({ code: "daily_limit_reached", limit: LIMIT, reset_at: new Date(midnight).toISOString().replace("Z", "+00:00") })
      expect(Math.abs(Number(refused.headers["retry-after"]) - (midnight - Date.now()) / 1000)).toBeLessThan(5)
      expect(refused.headers["x-ratelimit-remaining"]).toBe("0")
      expect(refused.headers["x-ratelimit-reset"]).toBe(String(midnight / 1000))
    }

    // The quota-counter books it: the highest count reported wins, per account and per key; one mail per threshold.
    const books = () => a.query<{ requests: number }>("SELECT requests FROM api_usage_daily WHERE user_id = $1", [userId])
    await waitFor(async () => (await books())[0]?.requests === total + 2, 120_000, 500)
    const keyBooks = await a.query<{ requests: number }>("SELECT requests FROM api_key_usage_daily WHERE key_id = (SELECT id FROM api_keys WHERE user_id = $1)", [userId])
    expect(keyBooks[0]!.requests).toBe(total + 2)
    const mails = () => a.query<{ kind: string; to_address: string }>("SELECT kind, to_address FROM email_outbox WHERE user_id = $1 AND kind LIKE 'api_quota%' ORDER BY kind", [userId])
    await waitFor(async () => (await mails()).length === 2, 60_000, 500)
    expect(await mails()).toEqual([
      { kind: "api_quota_100", to_address: "heavy@example.com" },
      { kind: "api_quota_80", to_address: "heavy@example.com" }
    ])

    // A re-delivered event (same messageId, same counts) changes nothing and mails nothing.
    const keyId = (await a.query<{ id: number }>("SELECT id FROM api_keys WHERE user_id = $1", [userId]))[0]!.id
    const event = {
      _tag: "ApiRequestCounted" as const, messageId: "replayed-1", userId, keyId: Number(keyId), day: today(), endpoint: "/api/v1/whale-index",
      count: LIMIT, keyCount: LIMIT, limit: LIMIT, at: new Date().toISOString(), degraded: false
    }
    await b.runtime.runPromise(Effect.flatMap(Bus, (bus) => bus.publishMany(STREAMS.apiUsage, [event, event])))
    await new Promise((r) => setTimeout(r, 2_000))
    expect((await books())[0]!.requests).toBe(total + 2)
    expect(await mails()).toHaveLength(2)
  }, 300_000)

  it("at the boundary, request by request: the 25,000th passes on one instance, the next is refused on the other", async () => {
    const { key, userId } = await whaleWithKey(b, "edge@example.com")
    const headers = { "x-api-key": key }
    await seed(a, userId, LIMIT - 2)
    const n24999 = await get(a, "/api/v1/stats", headers)
    expect([n24999.status, n24999.headers["x-ratelimit-remaining"]]).toEqual([200, "1"])
    const n25000 = await get(b, "/api/v1/stats", headers)
    expect([n25000.status, n25000.headers["x-ratelimit-remaining"]]).toEqual([200, "0"])
    const n25001 = await get(a, "/api/v1/stats", headers)
    expect(n25001.status).toBe(429)
    expect((await get(b, "/api/v1/usage", headers)).status).toBe(429)
  })

  it("a key revoked on one instance is refused by the other within the key cache time", async () => {
    const { key, prefix: keyPrefix, token } = await whaleWithKey(a, "revoker@example.com")
    const headers = { "x-api-key": key }
    expect((await get(b, "/api/v1/stats", headers)).status).toBe(200)
    const res = await fetch(`${a.url}/api/keys/revoke`, {
      method: "POST", headers: { "content-type": "application/json", ...bearer(token) }, body: JSON.stringify({ prefix: keyPrefix })
    })
    expect(res.status).toBe(200)
    const revokedAt = Date.now()
    expect((await get(a, "/api/v1/stats", headers)).status).toBe(401)
    await waitFor(async () => (await get(b, "/api/v1/stats", headers)).status === 401, 5_000, 100)
    expect(Date.now() - revokedAt).toBeLessThan(3_000)
  })
})
