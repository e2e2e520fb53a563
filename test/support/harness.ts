/**
 * Starts the whole app in-process on an ephemeral port, against
 *  (a) the embedded defaults (in-memory PGlite child, in-process bus), or
 *  (b) real PostgreSQL and Redis when DATABASE_URL / REDIS_URL are set (CI sets them):
 *      a fresh database per app and a fresh Redis key prefix, dropped/deleted on close.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { type Clock, ConfigProvider, Effect, Layer, ManagedRuntime } from "effect"
import Pg from "pg"
import { createClient } from "redis"
import { AppInfo, AppLive } from "../../server/App"

/** Everything the running app exposes to tests: its info and its infrastructure services. */
export type AppServices = Layer.Layer.Success<typeof AppLive>

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

export interface TestApp {
  readonly url: string
  readonly port: number
  /** GET /metrics lives on its own loopback listener (`metricsUrl`/metrics), not on the public port. */
  readonly metricsUrl: string
  readonly env: Readonly<Record<string, string>>
  /** Run SQL against the app's own database (embedded or real), through the app's pool. */
  readonly query: <T extends object = Record<string, unknown>>(text: string, params?: ReadonlyArray<unknown>) => Promise<Array<T>>
  readonly runtime: ManagedRuntime.ManagedRuntime<AppServices, unknown>
  readonly close: () => Promise<void>
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

export const startApp = async (options: StartOptions = {}): Promise<TestApp> => {
  const dataDir = mkdtempSync(join(tmpdir(), "whale-test-"))
  const cleanups: Array<() => Promise<void>> = [async () => rmSync(dataDir, { recursive: true, force: true })]
  const env = testEnv(dataDir)
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
  Object.assign(env, options.env)

  const provider = ConfigProvider.fromMap(new Map(Object.entries(env)))
  const base = Layer.setConfigProvider(provider)
  const runtime = ManagedRuntime.make(AppLive.pipe(Layer.provide(options.clock ? Layer.merge(base, Layer.setClock(options.clock)) : base)))
  const runCleanups = async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined)
  }
  let port: number
  let metricsPort: number
  try {
    const info = await runtime.runPromise(AppInfo)
    port = info.port!
    metricsPort = info.metricsPort!
  } catch (e) {
    await runtime.dispose().catch(() => undefined)
    await runCleanups()
    throw e
  }
  const query = <T extends object,>(text: string, params: ReadonlyArray<unknown> = []) =>
    runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<T>(text, params as Array<never>)).pipe(Effect.map((rows) => [...rows])))
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    metricsUrl: `http://127.0.0.1:${metricsPort}`,
    env,
    query,
    runtime,
    close: async () => {
      await runtime.dispose()
      await runCleanups()
    }
  }
}
