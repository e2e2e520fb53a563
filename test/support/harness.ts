/**
 * Starts the whole app in-process on an ephemeral port, against
 *  (a) the embedded defaults (in-memory PGlite child, in-process bus), or
 *  (b) real PostgreSQL and Redis when DATABASE_URL / REDIS_URL are set (CI sets them):
 *      a fresh database per app and a fresh Redis key prefix, dropped/deleted on close.
 */
import { Layer, ConfigProvider, ManagedRuntime } from "effect"
import { AppInfo, AppLive } from "../../server/App"
import { prepareEnv, type StartOptions } from "./env"
import { queryOf, startOrClean } from "./serviceTest"

export { dropRedisPrefix, freshDatabase, prepareEnv, realDatabaseUrl, realRedisUrl, skipWithout, testEnv, type StartOptions } from "./env"

/** Everything the running app exposes to tests: its info and its infrastructure services. */
export type AppServices = Layer.Layer.Success<typeof AppLive>

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

export const startApp = async (options: StartOptions = {}): Promise<TestApp> => {
  const { env, runCleanups } = await prepareEnv(options)

  const provider = ConfigProvider.fromMap(new Map(Object.entries(env)))
  const base = Layer.setConfigProvider(provider)
  const runtime = ManagedRuntime.make(AppLive.pipe(Layer.provide(options.clock ? Layer.merge(base, Layer.setClock(options.clock)) : base)))
  const info = await startOrClean(runtime, AppInfo, runCleanups)
  const port = info.port!
  const metricsPort = info.metricsPort!
  const query = queryOf(runtime)
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
