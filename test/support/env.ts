/**
 * The environment of a test file's app or services, shared by `startApp` (harness.ts) and `startServices`
 * (serviceTest.ts): the embedded defaults, or real PostgreSQL and Redis when DATABASE_URL / REDIS_URL are set — a
 * fresh database and a fresh Redis key prefix per file, dropped/deleted on close. Imports nothing of the app, so a
 * service test does not load it.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Clock } from "effect"
import Pg from "pg"
import { createClient } from "redis"

export const realDatabaseUrl = process.env.DATABASE_URL
export const realRedisUrl = process.env.REDIS_URL

/**
 * Whether a suite that needs a real service must be skipped. Outside CI a missing service skips it (reported with
 * the reason); in CI it is an error — except in the deliberate embedded run (`npm run test:embedded`).
 */
export const skipWithout = (service: "DATABASE_URL" | "REDIS_URL"): boolean => {
  if (process.env[service]) return false
  if (process.env.CI && !process.env.WHALE_TEST_EMBEDDED) throw new Error(`CI is set but ${service} is not: this suite must run against the real service`)
  return true
}

/** Creates a throw-away database on the real server; returns its URL and a drop function. */
export const freshDatabase = async (base: string) => {
  const name = `test_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`
  const admin = new Pg.Client({ connectionString: base })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(base)
  url.pathname = `/${name}`
  const drop = async () => {
    const c = new Pg.Client({ connectionString: base })
    await c.connect()
    await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await c.end()
  }
  return { url: url.toString(), drop }
}

/** Deletes every key under a prefix (test clean-up). */
export const dropRedisPrefix = async (url: string, prefix: string) => {
  const client = createClient({ url })
  await client.connect()
  for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
    if (keys.length > 0) await client.del(keys)
  }
  await client.close()
}

export interface StartOptions {
  /** Extra environment for this app (wins over the harness defaults). */
  readonly env?: Readonly<Record<string, string>>
  /** Share this database (URL) instead of creating one: several instances of one deployment. */
  readonly databaseUrl?: string
  /** Share this Redis prefix (several instances of one deployment). */
  readonly redisPrefix?: string
  /** The app's clock (Effect's `Clock`): a controlled clock for period ends, trials, schedules. */
  readonly clock?: Clock.Clock
}

/** Harness defaults: fast actor timings, quiet logs, ephemeral port, throw-away data dir. */
export const testEnv = (dataDir: string): Record<string, string> => ({
  NODE_ENV: "test",
  PORT: "0",
  METRICS_PORT: "0",
  HOST: "127.0.0.1",
  DATA_DIR: dataDir,
  EMBEDDED_DB_DIR: "memory://",
  LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "warn",
  SHUTDOWN_GRACE_MS: "3000",
  ACTOR_RESTART_BASE_MS: "20",
  ACTOR_CLAIM_IDLE_MS: "300",
  ACTOR_BLOCK_MS: "100",
  ACTOR_STATS_INTERVAL_MS: "200",
  DB_POOL_SIZE: "5",
  // Every 2xx JSON answer is checked against its route's response schema: a mismatch fails the test (500
  // response_contract naming the route and the field).
  RESPONSE_CHECK: "strict",
  // The demo chain's generated history (120 days by default) only where a test asks for it: it is ~100k records.
  DEMO_HISTORY_DAYS: "0"
})

/**
 * The environment of one test file's app or services, and what to undo afterwards: a throw-away data directory, a
 * fresh database on DATABASE_URL (created here, dropped by the clean-ups) unless `databaseUrl` shares one, a fresh
 * Redis key prefix on REDIS_URL unless `redisPrefix` shares one; the harness defaults, then `options.env` on top.
 */
export const prepareEnv = async (options: Pick<StartOptions, "env" | "databaseUrl" | "redisPrefix"> = {}) => {
  const dataDir = mkdtempSync(join(tmpdir(), "whale-test-"))
  const cleanups: Array<() => Promise<void>> = [async () => rmSync(dataDir, { recursive: true, force: true })]
  const env = testEnv(dataDir)
  const runCleanups = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined)
  }
  try {
    let databaseUrl = options.databaseUrl
    if (!databaseUrl && realDatabaseUrl) {
      const db = await freshDatabase(realDatabaseUrl)
      databaseUrl = db.url
      cleanups.push(db.drop)
    }
    if (databaseUrl) env.DATABASE_URL = databaseUrl
    if (realRedisUrl) {
      const prefix = options.redisPrefix ?? `test:${randomBytes(4).toString("hex")}:`
      env.REDIS_URL = realRedisUrl
      env.REDIS_PREFIX = prefix
      if (!options.redisPrefix) cleanups.push(() => dropRedisPrefix(realRedisUrl, prefix))
    }
  } catch (e) {
    await runCleanups()
    throw e
  }
  Object.assign(env, options.env)
  return { env, runCleanups }
}

