/**
 * The shared set-up of the fault tests that run real programs: a fresh database migrated by the CLI (as a deployment
 * would, before any process starts), a client on it and one on Redis; and their tear-down, which drops the database
 * and the test's Redis prefix. Real PostgreSQL and Redis only (DATABASE_URL, REDIS_URL).
 */
import { execFile } from "node:child_process"
import { promisify } from "node:util"
import Pg from "pg"
import { createClient } from "redis"
import { dropRedisPrefix, freshDatabase, realDatabaseUrl, realRedisUrl } from "../../support/env"

export interface FaultWorld {
  readonly db: { readonly url: string; readonly drop: () => Promise<void> }
  readonly pg: Pg.Client
  readonly redis: ReturnType<typeof createClient>
}

/** A fresh database; `envOf` gives the programs' environment for its URL (the migration runs with it). */
export const openFaultWorld = async (envOf: (databaseUrl: string) => NodeJS.ProcessEnv): Promise<FaultWorld> => {
  const db = await freshDatabase(realDatabaseUrl!)
  await promisify(execFile)(process.execPath, ["--import", "tsx", "server/cli/migrate.ts"], { env: { ...process.env, ...envOf(db.url) }, timeout: 60_000 })
  const pg = new Pg.Client({ connectionString: db.url })
  await pg.connect()
  const redis = createClient({ url: realRedisUrl })
  await redis.connect()
  return { db, pg, redis }
}

/** Closes the clients, drops the database and the Redis keys under `prefix` (whatever part was opened). */
export const closeFaultWorld = async (world: Partial<FaultWorld> | undefined, prefix: string) => {
  await world?.pg?.end()
  await world?.redis?.close()
  await world?.db?.drop()
  if (realRedisUrl) await dropRedisPrefix(realRedisUrl, prefix)
}
