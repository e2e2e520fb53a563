/**
 * `npm start` defaults (no ETH_RPC_URL): the block listener follows the demo chain; its first start ingests the
 * last hour of demo blocks, and every stored record is on `chain.tx`, flagged as demo data. With several actor
 * processes on one PostgreSQL and Redis, one listener runs (the lease holder) and another takes over when it stops.
 */
import { spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import Pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ActorRegistry } from "../../server/platform/actors/Registry"
import { ChainTxMessage, STREAMS } from "../../schema/streams"
import { Bus } from "../../server/platform/infra/Bus"
import { REPO_ROOT } from "../support/fixtures"
import { freshDatabase, realDatabaseUrl, skipWithout, startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"

let app: TestApp
beforeAll(async () => {
  app = await startApp()
}, 120_000)
afterAll(async () => {
  await app?.close()
})

const count = async (sql: string) => Number((await app.query<{ n: string }>(sql))[0]!.n)

describe("demo chain with the default settings", () => {
  it("stores the demo whale transactions flagged as demo and publishes each on chain.tx", async () => {
    await waitFor(async () => (await count("SELECT count(*)::text AS n FROM whale_tx")) >= 50, 90_000, 250)
    expect(await count("SELECT count(*)::text AS n FROM whale_tx WHERE source <> 'demo'")).toBe(0)
    const [cp] = await app.query<{ block_number: number }>("SELECT block_number FROM chain_checkpoint WHERE name = 'block-listener'")
    expect(cp!.block_number).toBeGreaterThan(20_000_000)

    // Everything stored up to the checkpoint is published (the block being stored may not be yet).
    const stored = await app.query<{ tx_hash: string; log_index: number; wallet: string; token: string }>(
      "SELECT tx_hash, log_index, wallet, token FROM whale_tx WHERE block_number <= $1", [cp!.block_number])
    await waitFor(async () => {
      const tail = await app.runtime.runPromise(Effect.flatMap(Bus, (b) => b.tail(STREAMS.chainTx, 100_000)))
      return tail.length >= stored.length
    }, 30_000, 100)
    const tail = await app.runtime.runPromise(Effect.flatMap(Bus, (b) => b.tail(STREAMS.chainTx, 100_000)))
    const messages = tail.map((e) => ChainTxMessage.parse(e.payload))
    expect(messages.every((m) => m.source === "demo")).toBe(true)
    const ids = new Set(messages.map((m) => m.messageId))
    expect(ids.size).toBe(messages.length)
    for (const r of stored) expect(ids.has(`${r.tx_hash}:${r.log_index}:${r.wallet}:${r.token}`)).toBe(true)
    // Demo swaps are priced from the demo's own WETH/USDC pool trades.
    expect(messages.filter((m) => m.usd !== null).length).toBeGreaterThan(messages.length / 2)
    expect(messages.some((m) => m.wallet_label !== null)).toBe(true)

    const status = await app.runtime.runPromise(Effect.flatMap(ActorRegistry, (r) => r.get("block-listener")))
    expect(status).toMatchObject({ state: "running", restarts: 0 })
  }, 120_000)
})

const noRedis = skipWithout("REDIS_URL")
const noDatabase = skipWithout("DATABASE_URL")
describe.skipIf(noRedis || noDatabase)(`block listener in two processes${noRedis || noDatabase ? " (skipped: needs DATABASE_URL and REDIS_URL)" : ""}`, () => {
  const status = (a: TestApp) => a.runtime.runPromise(Effect.flatMap(ActorRegistry, (r) => r.get("block-listener")))
  const checkpoint = async (a: TestApp) =>
    (await a.query<{ block_number: number }>("SELECT block_number FROM chain_checkpoint WHERE name = 'block-listener'"))[0]?.block_number ?? 0

  it("runs one listener at a time (the lease holder); another process takes over from the checkpoint when it dies", async () => {
    const db = await freshDatabase(realDatabaseUrl!)
    const prefix = `test:chain-lease-${Date.now().toString(36)}:`
    const env = { DEMO_BLOCK_MS: "500", DEMO_HISTORY_BLOCKS: "10" }
    // The first process: `npm start` with the actors role only, on the shared database and Redis prefix.
    const other = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], {
      cwd: REPO_ROOT, stdio: "ignore",
      env: { ...process.env, ...env, WHALE_ROLES: "actors", DATABASE_URL: db.url, REDIS_URL: process.env.REDIS_URL, REDIS_PREFIX: prefix, DATA_DIR: mkdtempSync(join(tmpdir(), "whale-lease-")), LOG_LEVEL: "warn" }
    })
    let app: TestApp | undefined
    try {
      const pg = new Pg.Client({ connectionString: db.url })
      await pg.connect()
      const progress = async () => {
        try {
          return Number((await pg.query("SELECT block_number FROM chain_checkpoint WHERE name = 'block-listener'")).rows[0]?.block_number ?? 0)
        } catch {
          return 0 // not migrated yet
        }
      }
      await waitFor(async () => (await progress()) > 0, 120_000, 250)
      await pg.end()
      app = await startApp({ databaseUrl: db.url, redisPrefix: prefix, env })
      await waitFor(async () => (await status(app!))?.state === "standby", 30_000, 100)
      const before = await checkpoint(app)
      // The other process is still the one ingesting: the checkpoint moves while this one stands by.
      await waitFor(async () => (await checkpoint(app!)) > before, 30_000, 200)
      expect((await status(app))?.state).toBe("standby")

      other.kill("SIGKILL") // no clean release: the lease runs out
      await waitFor(async () => (await status(app!))?.state === "running", 90_000, 200)
      const takenOver = await checkpoint(app)
      await waitFor(async () => (await checkpoint(app!)) > takenOver + 2, 60_000, 200)
      // Every block once, none skipped: chain_blocks is contiguous from the first block to the checkpoint.
      const [span] = await app.query<{ blocks: number; first: number; last: number }>(
        "SELECT count(*)::int AS blocks, min(number)::int AS first, max(number)::int AS last FROM chain_blocks")
      expect(span!.blocks).toBe(span!.last - span!.first + 1)
      expect(await app.query("SELECT 1 FROM chain_blocks WHERE published_at IS NULL AND number < $1", [takenOver])).toEqual([])
    } finally {
      other.kill("SIGKILL")
      await app?.close()
      await db.drop()
    }
  }, 300_000)
})
