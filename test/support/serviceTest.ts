/**
 * A service test: the services a test names, on the platform below them, without the app. No HTTP or WebSocket
 * server, no actor, no module but what the test provides — so a test of one domain's services starts in a fraction
 * of `startApp`'s time and says, in its one layer, everything the code under test uses.
 *
 *   const t = await startServices(Playbook.Default, { env: { PLAYBOOK_RUNNING_CACHE_SECONDS: "60" } })
 *   await t.runtime.runPromise(Effect.flatMap(Playbook, (p) => p.detail(id)))
 *   await t.close()
 *
 * The platform (`TestPlatform`) is what every domain service may ask for: AppConfig, the database (a fresh one per
 * call on DATABASE_URL, the embedded PGlite otherwise, migrations applied — the same `prepareEnv` as `startApp`),
 * the bus and Kv (Redis Streams under a fresh key prefix on REDIS_URL, in-process otherwise) and Metrics. The
 * layer's other needs must be provided by the test (its dependencies' `Default`, or `stub(Tag, {…})`): a service
 * that asks for something the test did not provide does not compile (`RIn extends TestPlatform`). Journeys —
 * requests, sockets, actors, browsers, several processes — keep `startApp`.
 */
import { SqlClient } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { type Clock, ConfigProvider, Effect, Layer, Logger, LogLevel, ManagedRuntime } from "effect"
import { AppConfig } from "../../server/platform/Config"
import type { Bus } from "../../server/platform/infra/Bus"
import { BusAndKvLive } from "../../server/platform/infra/BusAndKv"
import type { Kv } from "../../server/platform/infra/Kv"
import { type DbInfo, SqlLive } from "../../server/platform/infra/Sql"
import { Metrics } from "../../server/platform/ops/Metrics"
import { prepareEnv, type StartOptions } from "./env"

/** What a service test gets without asking: the platform's configuration, database, bus, Kv and metrics. */
export type TestPlatform = AppConfig | SqlClient.SqlClient | PgClient.PgClient | DbInfo | Bus | Kv | Metrics

export interface TestServices<R> {
  readonly env: Readonly<Record<string, string>>
  /** Run SQL against the test's database (embedded or real). */
  readonly query: <T extends object = Record<string, unknown>>(text: string, params?: ReadonlyArray<unknown>) => Promise<Array<T>>
  /** The services of the layer and the platform: `runtime.runPromise(Effect.flatMap(Service, (s) => …))`. */
  readonly runtime: ManagedRuntime.ManagedRuntime<R | TestPlatform, unknown>
  readonly close: () => Promise<void>
}

const LEVELS: Record<string, LogLevel.LogLevel> = { debug: LogLevel.Debug, info: LogLevel.Info, warn: LogLevel.Warning, error: LogLevel.Error, none: LogLevel.None }

/** The platform as the app builds it (same layers, same settings), and nothing above it. */
export const testPlatform = (env: Readonly<Record<string, string>>, clock?: Clock.Clock) => {
  const base = Layer.mergeAll(
    Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))),
    Logger.minimumLogLevel(LEVELS[(env.LOG_LEVEL ?? "warn").toLowerCase()] ?? LogLevel.Warning),
    clock ? Layer.setClock(clock) : Layer.empty
  )
  return Layer.mergeAll(SqlLive({ embedded: "exclusive" }), BusAndKvLive, Metrics.Default).pipe(
    Layer.provideMerge(AppConfig.Default),
    Layer.provide(base)
  )
}

/** SQL against a runtime's database, as tests read it (`query` of a TestApp or TestServices). */
export const queryOf = (runtime: ManagedRuntime.ManagedRuntime<SqlClient.SqlClient, unknown>) =>
  <T extends object,>(text: string, params: ReadonlyArray<unknown> = []): Promise<Array<T>> =>
    runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<T>(text, params as Array<never>)).pipe(Effect.map((rows) => [...rows])))

/** Runs a runtime's start; if it fails, the runtime and the test's database and keys are cleaned up before it throws. */
export const startOrClean = async <A, R>(runtime: ManagedRuntime.ManagedRuntime<R, unknown>, start: Effect.Effect<A, unknown, R>, runCleanups: () => Promise<void>): Promise<A> => {
  try {
    return await runtime.runPromise(start)
  } catch (e) {
    await runtime.dispose().catch(() => undefined)
    await runCleanups()
    throw e
  }
}

/**
 * Builds `layer` on a fresh platform and returns its runtime (the layer is built before this resolves, so a
 * service's start-up failure fails here). `env` overrides the harness defaults (`testEnv`); `databaseUrl` and
 * `redisPrefix` share another's database and keys (the database a command left behind) — all as with `startApp`.
 */
export const startServices = async <ROut, E, RIn extends TestPlatform>(
  layer: Layer.Layer<ROut, E, RIn>,
  options: Pick<StartOptions, "env" | "clock" | "databaseUrl" | "redisPrefix"> = {}
): Promise<TestServices<ROut>> => {
  const { env, runCleanups } = await prepareEnv(options)
  const platform = testPlatform(env, options.clock)
  const runtime = ManagedRuntime.make(layer.pipe(Layer.provideMerge(platform)) as Layer.Layer<ROut | TestPlatform, unknown>)
  await startOrClean(runtime, Effect.void, runCleanups)
  return {
    env,
    query: queryOf(runtime),
    runtime,
    close: async () => {
      await runtime.dispose()
      await runCleanups()
    }
  }
}
