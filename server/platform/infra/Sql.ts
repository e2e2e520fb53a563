/**
 * PostgreSQL: `DATABASE_URL` when set, otherwise the embedded PGlite child process (server/platform/infra/Embedded.ts),
 * reached the same way — over the wire protocol with @effect/sql-pg on our own `pg` pool (whose figures feed
 * /metrics). Type parsing: int8 and numeric come back as JS numbers (select exact token amounts as `::text`).
 */
import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Layer, Redacted } from "effect"
import Pg from "pg"
import { AppConfig } from "../Config"
import { embeddedPostgres, EmbeddedStartFailed } from "./Embedded"
import { DatabaseLocked, locate } from "./embedded/Lock"
import { migrate } from "./Migrator"

/**
 * `effect` in one database transaction. A database error (`SqlError`) is a defect here: no caller can act on it —
 * the request answers 500 with its request id, an actor's message is retried — while the effect's own errors stay
 * typed. The one statement of that rule (`dieOnSqlError` outside a transaction).
 */
export const inTransaction = <A, E, R>(sql: SqlClient.SqlClient, effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError>, R> =>
  dieOnSqlError(sql.withTransaction(effect))

/** A database error (`SqlError`) as a defect, the effect's other errors kept (see `inTransaction`). */
export const dieOnSqlError = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError>, R> =>
  effect.pipe(Effect.catchIf((e): e is Extract<E, SqlError> => e instanceof SqlError, Effect.die)) as Effect.Effect<A, Exclude<E, SqlError>, R>

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
  /**
   * With the embedded database: `shared` (the default, for commands) connects to the server already running on the
   * data directory when there is one and otherwise runs its own; `exclusive` (the service) refuses to start when
   * another server holds the directory.
   */
  readonly embedded?: "shared" | "exclusive"
}

const poolLayer = (connection: Pg.PoolConfig, kind: DbInfoShape["kind"]) =>
  Effect.gen(function* () {
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const p = new Pg.Pool({
          ...connection, types, application_name: "whale", idleTimeoutMillis: 30_000,
          // A database that does not answer (stopped, paused, unreachable) fails a request in bounded time (503), not a hang.
          connectionTimeoutMillis: 5_000
        })
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

/** Connections a command (admin, wallets, …) opens to a running embedded server, and room kept for them there. */
const SHARED_POOL = 2
const COMMAND_CONNECTIONS = 4 * SHARED_POOL

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
        // One writer per data directory (embedded/Lock.ts): a command connects to the server already running on it;
        // a second server refuses to start.
        const running = dir.startsWith("memory://") ? null : yield* Effect.promise(() => locate(dir))
        if (running !== null && options.embedded === "exclusive") {
          return yield* Effect.die(new EmbeddedStartFailed(new DatabaseLocked(dir, { ...running, startedAt: "" }).message))
        }
        if (running !== null) {
          yield* Effect.logInfo(`connected to the running embedded PostgreSQL (pid ${running.pid}) on ${running.host}:${running.port}, data in ${dir}`)
          connection = { host: running.host, port: running.port, user: "postgres", database: "postgres", max: Math.min(max, SHARED_POOL) }
        } else {
          // Room for the commands that will connect beside this process's pool.
          const { port } = yield* embeddedPostgres(dir, max + 2 + COMMAND_CONNECTIONS).pipe(Effect.orDie)
          yield* Effect.logInfo(`embedded PostgreSQL (PGlite) on 127.0.0.1:${port}, data in ${dir}`)
          connection = { host: "127.0.0.1", port, user: "postgres", database: "postgres", max }
        }
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
