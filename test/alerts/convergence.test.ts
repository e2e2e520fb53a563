/**
 * Convergence keeps its window and its fires in the database: buys seen before a restart still count after it, and
 * an alert that fired stays quiet for its window across the restart too (with real PostgreSQL both lives share one
 * database; embedded, one PGlite directory).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { createUser, login } from "../support/auth"
import { freshDatabase, realDatabaseUrl, startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { call, internalHeaders, newToken, newWallet, record, settled } from "./support"

describe("convergence across a restart", () => {
  const cleanups: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined)
  })

  it("counts the buys stored before the restart and stays quiet for the window after firing", async () => {
    let databaseUrl: string | undefined
    const env: Record<string, string> = { INTERNAL_SECRET: "test-internal-secret-value", DEMO_HISTORY_BLOCKS: "0", DEMO_BLOCK_MS: "600000" }
    if (realDatabaseUrl) {
      const db = await freshDatabase(realDatabaseUrl)
      databaseUrl = db.url
      cleanups.push(db.drop)
    } else {
      const dir = mkdtempSync(join(tmpdir(), "whale-conv-"))
      env.EMBEDDED_DB_DIR = join(dir, "pglite")
      cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
    }
    const start = async () => {
      const app = await startApp({ env, ...(databaseUrl ? { databaseUrl } : {}) })
      cleanups.push(() => app.close())
      return app
    }
    const feed = (app: TestApp, body: unknown) => call(app, "POST", "/api/alerts/process-tx", { body, headers: internalHeaders(app) })
    const t = newToken()
    const [a, b, c, d] = [newWallet(), newWallet(), newWallet(), newWallet()]

    const first = await start()
    await createUser(first, { email: "conv@example.com", tier: "whale" })
    const firstToken = (await login(first, "conv@example.com")).token
    const alert = await call(first, "POST", "/api/alerts", { token: firstToken, body: { type: "convergence", params: { token: t.symbol, min_whales: 3, window_minutes: 30 }, channels: ["console"] } })
    expect(alert.status, JSON.stringify(alert.body)).toBe(200)
    expect((await feed(first, record({ ...t, wallet: a, usd: 60_000 }))).status).toBe(200)
    expect((await feed(first, record({ ...t, wallet: b, usd: 70_000 }))).status).toBe(200)
    await waitFor(() => settled(first), 15_000, 50)
    const before = await call(first, "GET", "/api/alerts/history", { token: firstToken })
    expect(before.body.items).toHaveLength(0)
    await first.close()

    const second = await start()
    const token = (await login(second, "conv@example.com")).token
    const history = async () => ((await call(second, "GET", "/api/alerts/history", { token })).body.items as Array<any>).filter((i) => i.alert_id === alert.body.id)
    await feed(second, record({ ...t, wallet: c, usd: 80_000 }))
    await waitFor(async () => (await history()).length === 1, 15_000)
    const [fired] = await history()
    expect(fired.type).toBe("convergence")
    expect(fired.title).toMatch(/^Convergence: 3 whales/)
    expect([...fired.data.wallets].sort()).toEqual([a, b, c].sort())

    // A fourth buyer inside the window: the alert stays quiet (one alert per convergence).
    await feed(second, record({ ...t, wallet: d, usd: 90_000 }))
    await waitFor(() => settled(second), 15_000, 50)
    expect(await history()).toHaveLength(1)
  }, 240_000)
})
