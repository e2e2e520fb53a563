/**
 * PostgreSQL: `DATABASE_URL` when set, otherwise the embedded PGlite child process (server/infra/Embedded.ts),
 * reached the same way — over the wire protocol with @effect/sql-pg on our own `pg` pool (whose figures feed
 * /metrics). Type parsing: int8 and numeric come back as JS numbers (select exact token amounts as `::text`).
 */
import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Redacted } from "effect"
import Pg from "pg"
import { AppConfig } from "../Config"
import { embeddedPostgres } from "./Embedded"
import { migrate } from "./Migrator"

const types: Pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === 20 || oid === 1700) return (v: string) => (v === null ? null : Number(v))
    return Pg.types.getTypeParser(oid, format as "text")
  }) as Pg.CustomTypesConfig["getTypeParser"]
}

export interface DbInfoShape {
  readonly kind: "postgres" | "embedded"
  readonly pool: () => { readonly total: number; readonly idle: number; readonly waiting: number; readonly max: number }
}

export class DbInfo extends Context.Tag("app/DbInfo")<DbInfo, DbInfoShape>() {}

export interface SqlOptions {
  /** Apply pending migrations once connected (default: MIGRATE_ON_START). */
  readonly migrate?: boolean
}

const poolLayer = (connection: Pg.PoolConfig, kind: DbInfoShape["kind"]) =>
  Effect.gen(function* () {
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const p = new Pg.Pool({ ...connection, types, application_name: "whale", idleTimeoutMillis: 30_000 })
        // An idle client's error (server restart) must not crash the process; the pool replaces it.
        p.on("error", () => undefined)
        return p
      }),
      (p) => Effect.promise(() => p.end())
    )
    const info: DbInfoShape = {
      kind,
      pool: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max: connection.max ?? 10 })
    }
    return { pool, info }
  })

const make = (options: SqlOptions) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const config = yield* AppConfig
      const max = config.dbPoolSize
      let connection: Pg.PoolConfig
      let kind: DbInfoShape["kind"]
      if (config.databaseUrl) {
        connection = { connectionString: Redacted.value(config.databaseUrl), max }
        kind = "postgres"
      } else {
        const dir = config.embeddedDbDir
        const { port } = yield* embeddedPostgres(dir, max + 2).pipe(Effect.orDie)
        yield* Effect.logInfo(`embedded PostgreSQL (PGlite) on 127.0.0.1:${port}, data in ${dir}`)
        connection = { host: "127.0.0.1", port, user: "postgres", database: "postgres", max }
        kind = "embedded"
      }
      const { pool, info } = yield* poolLayer(connection, kind)
      const client = PgClient.layerFromPool({ acquire: Effect.succeed(pool) })
      const migrated = (options.migrate ?? config.migrateOnStart)
        ? Layer.effectDiscard(migrate.pipe(Effect.orDie)).pipe(Layer.provideMerge(client))
        : client
      return Layer.merge(migrated, Layer.succeed(DbInfo, info))
    })
  )

export const SqlLive = (options: SqlOptions = {}): Layer.Layer<SqlClient.SqlClient | PgClient.PgClient | DbInfo, never, AppConfig> =>
  make(options).pipe(Layer.orDie)
