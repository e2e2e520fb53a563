/**
 * Per-type cooldowns are shared by every fan-out process (Kv gates): with real PostgreSQL and Redis, two processes
 * on one database and one key prefix split a noisy token's records between them, and the alert still fires once
 * per cooldown, its next message saying how many matches it folded; pacing of the messenger is shared the same way
 * (covered by the Kv contract). On the embedded defaults one process runs the same path on the in-memory store.
 */
import { randomBytes } from "node:crypto"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ActorRegistry } from "../../server/platform/actors/Registry"
import { createUser, login } from "../support/auth"
import { freshDatabase, realDatabaseUrl, realRedisUrl, startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { call, internalHeaders, newToken, newWallet, record, settled } from "./support"

const shared = realDatabaseUrl !== undefined && realRedisUrl !== undefined

describe(shared ? "cooldowns across two fan-out processes" : "cooldowns in one process (embedded)", () => {
  const cleanups: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined)
  })

  const env = { INTERNAL_SECRET: "test-internal-secret-value", DEMO_HISTORY_BLOCKS: "0", DEMO_BLOCK_MS: "600000" }
  const apps: Array<TestApp> = []
  beforeAll(async () => {
    if (shared) {
      const db = await freshDatabase(realDatabaseUrl!)
      cleanups.push(db.drop)
      const redisPrefix = `cooldown-${randomBytes(4).toString("hex")}:`
      for (let i = 0; i < 2; i++) {
        const app = await startApp({ env, databaseUrl: db.url, redisPrefix })
        cleanups.push(() => app.close())
        apps.push(app)
      }
    } else {
      const app = await startApp({ env })
      cleanups.push(() => app.close())
      apps.push(app)
    }
  }, 180_000)

  it("fires a noisy alert once per cooldown and folds the rest into its next message", async () => {
    const [first] = apps as [TestApp]
    await createUser(first, { email: "noisy@example.com", tier: "whale" })
    const token = (await login(first, "noisy@example.com")).token
    const t = newToken()
    const alert = await call(first, "POST", "/api/alerts", { token, body: { type: "whale_trade", params: { token: t.symbol, side: "any", min_usd: 100_000 }, channels: ["console"] } })
    expect(alert.status, JSON.stringify(alert.body)).toBe(200)
    const history = async () => ((await call(first, "GET", "/api/alerts/history", { token })).body.items as Array<any>).filter((i) => i.alert_id === alert.body.id)
    const allSettled = async () => (await Promise.all(apps.map(settled))).every(Boolean)

    const handled = (app: TestApp) =>
      app.runtime.runPromise(Effect.flatMap(ActorRegistry, (r) => r.get("alert-fanout")).pipe(Effect.map((s) => s?.handled ?? 0)))
    const before = await Promise.all(apps.map(handled))

    // Six matches in one minute of block time (whale_trade's cooldown is 60 s), one at a time: the consumer group
    // hands each to the process that has waited longest, so with two processes both take some.
    const start = Date.now() - 10 * 60_000
    for (let i = 0; i < 6; i++) {
      const fed = await call(apps[i % apps.length]!, "POST", "/api/alerts/process-tx", {
        body: record({ ...t, wallet: newWallet(), usd: 200_000 + i, ts: new Date(start + i * 5_000).toISOString() }), headers: internalHeaders(first)
      })
      expect(fed.status, JSON.stringify(fed.body)).toBe(200)
      await waitFor(allSettled, 20_000, 20)
    }
    await waitFor(async () => (await history()).length >= 1 && (await allSettled()), 20_000, 50)
    const after = await Promise.all(apps.map(handled))
    // Each process handled a share of the six (the point of the test with two).
    for (let i = 0; i < apps.length; i++) expect(after[i]! - before[i]!, `records handled by process ${i}`).toBeGreaterThan(0)
    const quiet = await history()
    expect(quiet, JSON.stringify(quiet)).toHaveLength(1)
    expect(quiet[0].data.folded).toBeUndefined()

    // Past the cooldown: the next match is sent, and says how many were folded.
    const fed = await call(first, "POST", "/api/alerts/process-tx", {
      body: record({ ...t, wallet: newWallet(), usd: 300_000, ts: new Date(start + 61_000).toISOString() }), headers: internalHeaders(first)
    })
    expect(fed.status).toBe(200)
    await waitFor(async () => (await history()).length === 2, 20_000, 50)
    const [latest] = await history()
    expect(latest.data.folded).toBe(5)
  }, 240_000)

  it("folds a batch spanning several block times per block time, whichever order they come in", async () => {
    const [first] = apps as [TestApp]
    await createUser(first, { email: "batch@example.com", tier: "whale" })
    const token = (await login(first, "batch@example.com")).token
    const t = newToken()
    const alert = await call(first, "POST", "/api/alerts", { token, body: { type: "whale_trade", params: { token: t.symbol, side: "any", min_usd: 100_000 }, channels: ["console"] } })
    expect(alert.status, JSON.stringify(alert.body)).toBe(200)
    // Three block times a cooldown (60 s) apart, interleaved in one batch: a later time's match comes between two of an
    // earlier one's. Each time sends once; the next send says how many the time before it folded.
    const start = Date.now() - 20 * 60_000
    const at = (k: number) => new Date(start + k * 61_000).toISOString()
    const times = [0, 1, 0, 1, 0, 2]
    const records = times.map((k, i) => record({ ...t, wallet: newWallet(), usd: 200_000 + i, ts: at(k) }))
    const fed = await call(first, "POST", "/api/alerts/dispatch", { body: { records }, headers: internalHeaders(first) })
    expect(fed.status, JSON.stringify(fed.body)).toBe(200)
    const history = async () => ((await call(first, "GET", "/api/alerts/history", { token })).body.items as Array<any>).filter((i) => i.alert_id === alert.body.id)
    await waitFor(async () => (await history()).length >= 3 && (await Promise.all(apps.map(settled))).every(Boolean), 20_000, 50)
    const sent = (await history()).sort((a, b) => Date.parse(a.event_at) - Date.parse(b.event_at))
    expect(sent.map((d) => [d.event_at, d.data.folded])).toEqual([[at(0), undefined], [at(1), 2], [at(2), 1]])
  }, 120_000)
})
