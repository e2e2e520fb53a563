/**
 * Applies `migrations/NNNN_name.sql` in order, each in the same transaction as its bookkeeping row, under a
 * transaction-scoped advisory lock: several processes starting at once apply each migration exactly once.
 * Migrations are append-only; an applied file whose checksum changed is reported, never re-run.
 */
import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export const MIGRATIONS_DIR = fileURLToPath(new URL("../../../migrations/", import.meta.url))
const FILE = /^(\d{4})_([\w-]+)\.sql$/
const LOCK_KEY = 7_274_227_401

export interface Migration { readonly id: number; readonly name: string; readonly sql: string; readonly checksum: string }

export const loadMigrations = (dir = MIGRATIONS_DIR): ReadonlyArray<Migration> =>
  readdirSync(dir)
    .flatMap((file) => {
      const m = FILE.exec(file)
      if (!m) return []
      const sql = readFileSync(dir + file, "utf8")
      return [{ id: Number(m[1]), name: m[2]!, sql, checksum: createHash("sha256").update(sql).digest("hex").slice(0, 16) }]
    })
    .sort((a, b) => a.id - b.id)

export const migrate = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const migrations = loadMigrations()
  const applied = yield* sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`SELECT pg_advisory_xact_lock(${LOCK_KEY})`
      yield* sql`CREATE TABLE IF NOT EXISTS schema_migrations (
        id integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`
      const done = new Map((yield* sql<{ id: number; checksum: string }>`SELECT id, checksum FROM schema_migrations`).map((r) => [r.id, r.checksum]))
      const names: Array<string> = []
      for (const m of migrations) {
        const seen = done.get(m.id)
        if (seen !== undefined) {
          if (seen !== m.checksum) yield* Effect.logWarning(`migration ${m.id}_${m.name} changed after it was applied; not re-run`)
          continue
        }
        yield* sql.unsafe(m.sql)
        yield* sql`INSERT INTO schema_migrations (id, name, checksum) VALUES (${m.id}, ${m.name}, ${m.checksum})`
        names.push(`${m.id}_${m.name}`)
      }
      return names
    })
  )
  if (applied.length > 0) yield* Effect.logInfo(`applied migrations: ${applied.join(", ")}`)
  return applied
})
