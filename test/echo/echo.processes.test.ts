/**
 * Two processes of one deployment (real PostgreSQL and Redis): one user's concurrent trades arriving on both never
 * overdraw or double-apply (the portfolio row lock), and a settings change made on one process takes effect on the
 * other within seconds.
 */
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUser, login } from "../support/auth"
import { freshDatabase, realDatabaseUrl, skipWithout, startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { QUIET_CHAIN } from "../support/whales"
import { gasUsd, DEFAULT_FILL_PARAMS } from "../../server/domains/echo/Fills"
import { api, insertRecords, txHash, UNI, WETH, WHALE } from "./support"

const skip = skipWithout("DATABASE_URL")

describe.skipIf(skip)("echo across two processes", () => {
  let a: TestApp
  let b: TestApp
  let drop: (() => Promise<void>) | undefined
  let tokenA: string
  let tokenB: string
  let adminA: string

  beforeAll(async () => {
    const db = await freshDatabase(realDatabaseUrl!)
    drop = db.drop
    const redisPrefix = `test:${randomBytes(4).toString("hex")}:`
    const env = { ...QUIET_CHAIN, ECHO_SETTINGS_POLL_MS: "300", SESSION_SECRET: "echo-two-process-secret-0123456789abcdef012345" }
    a = await startApp({ databaseUrl: db.url, redisPrefix, env })
    b = await startApp({ databaseUrl: db.url, redisPrefix, env })
    await insertRecords(a, [
      { tx: txHash(1), log: 0, wallet: WHALE, token: WETH, symbol: "WETH", category: "dex_buy", price: 2000, usd: 2000, block: 10 },
      { tx: txHash(2), log: 0, wallet: WHALE, token: UNI, symbol: "UNI", category: "dex_buy", price: 5, usd: 500, block: 10 }
    ])
    await createUser(a, { email: "two@example.com", tier: "whale" })
    await createUser(a, { email: "boss@example.com", admin: true })
    tokenA = (await login(a, "two@example.com")).token
    tokenB = (await login(b, "two@example.com")).token
    adminA = (await login(a, "boss@example.com")).token
  })
  afterAll(async () => {
    await a?.close()
    await b?.close()
    await drop?.()
  })

  it("concurrent buys and sells on both processes keep cash >= 0 and holdings = sum of trades", async () => {
    const ca = api(a, tokenA)
    const cb = api(b, tokenB)
    const buys = await Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? ca : cb)("POST", "/api/echo/trade", { side: "BUY", token: UNI, usd: 4_000 })))
    expect(buys.every((r) => r.status === 200 || r.status === 409)).toBe(true)
    expect(buys.filter((r) => r.status === 200)).toHaveLength(24)
    const sells = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? ca : cb)("POST", "/api/echo/trade", { side: "SELL", token: UNI, usd: 3_000 })))
    expect(sells.every((r) => r.status === 200 || r.status === 409)).toBe(true)
    const pf = (await ca("GET", "/api/echo/portfolio")).body
    const all = (await cb("GET", "/api/echo/trades?limit=100")).body
    expect(all.total).toBe(24 + sells.filter((r) => r.status === 200).length)
    const net = all.trades.reduce((s: number, t: any) => s + (t.side === "BUY" ? t.quantity : -t.quantity), 0)
    expect(pf.holdings.find((h: any) => h.token === UNI)?.quantity ?? 0).toBeCloseTo(Math.max(0, net), 6)
    expect(pf.cash).toBeGreaterThanOrEqual(0)
    const spent = all.trades.reduce((s: number, t: any) => s + (t.side === "BUY" ? -(t.usd + t.gas_usd) : t.usd - t.gas_usd), 0)
    expect(pf.cash).toBeCloseTo(100_000 + spent, 4)
    expect(gasUsd(2000, DEFAULT_FILL_PARAMS)).toBeGreaterThan(0)
  })

  it("a setting changed on one process takes effect on the other within seconds", async () => {
    const cb = api(b, tokenB)
    expect((await cb("GET", "/api/echo/portfolio")).status).toBe(200)
    const set = await api(a, adminA)("PUT", "/api/echo/admin/settings", { echo_live: false })
    expect(set.status).toBe(200)
    await waitFor(async () => (await cb("GET", "/api/echo/portfolio")).status === 503, 5_000, 50)
    await api(a, adminA)("PUT", "/api/echo/admin/settings", { echo_live: true })
    await waitFor(async () => (await cb("GET", "/api/echo/portfolio")).status === 200, 5_000, 50)
  })
})
