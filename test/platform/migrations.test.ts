/** Migrations apply once, in order, even when several processes start at the same moment. */
import { PgClient } from "@effect/sql-pg"
import { Effect, Layer, Logger, LogLevel, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import { loadMigrations, migrate } from "../../server/platform/infra/Migrator"
import { freshDatabase, realDatabaseUrl, skipWithout } from "../support/env"
import { startServices } from "../support/serviceTest"

describe("migrations", () => {
  it("are numbered without gaps or duplicates", () => {
    const ids = loadMigrations().map((m) => m.id)
    expect(ids.length).toBeGreaterThan(0)
    expect(new Set(ids).size).toBe(ids.length)
    expect([...ids].sort((a, b) => a - b)).toEqual(ids)
  })

  it("applied at start are recorded once and a second run applies nothing", async () => {
    // The platform alone: its database layer migrates when it starts, as the app's does.
    const app = await startServices(Layer.empty)
    try {
      const rows = await app.query<{ id: number }>("SELECT id FROM schema_migrations ORDER BY id")
      expect(rows.map((r) => r.id)).toEqual(loadMigrations().map((m) => m.id))
      const again = await app.runtime.runPromise(migrate)
      expect(again).toEqual([])
    } finally {
      await app.close()
    }
  })

  it.skipIf(skipWithout("DATABASE_URL"))(`apply exactly once when four connections migrate at once${realDatabaseUrl ? "" : " (skipped: DATABASE_URL not set)"}`, async () => {
    const db = await freshDatabase(realDatabaseUrl!)
    try {
      const one = migrate.pipe(
        Effect.provide(PgClient.layer({ url: Redacted.make(db.url), maxConnections: 2 })),
        Effect.provide(Logger.minimumLogLevel(LogLevel.Error))
      )
      const results = await Effect.runPromise(Effect.all([one, one, one, one], { concurrency: "unbounded" }).pipe(Effect.provide(Layer.empty)))
      const all = results.flat()
      expect(all).toHaveLength(loadMigrations().length)
      expect(results.filter((r) => r.length > 0)).toHaveLength(1)
    } finally {
      await db.drop()
    }
  })
})
