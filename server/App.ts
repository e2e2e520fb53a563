/**
 * The supervision tree: the platform, then every module in order, then the actors. Layers are built top to bottom
 * and released bottom to top, so shutdown stops HTTP first (draining requests), then the actors, then the bus,
 * Redis and the database (and the embedded PostgreSQL process).
 *
 *   AppConfig, Logging     environment, secrets, log level and format
 *   Infrastructure         Sql (pool or embedded PGlite child, migrations), Bus + Kv (Redis or in-process),
 *                          Metrics, ActorRegistry, Jwt, Mailer + MailOutbox, Health
 *   MODULES                each domain's and gateway's services, routes, processes, topics, errors, token kinds
 *   ActorServices          what actors keep across their lives (actors/index.ts)
 *   Processes (by role)    actors: ACTORS (actors/index.ts) as WHALE_ACTORS selects them, the restart listener
 *                          http:   the WebSocket hub (relay loops per topic stream), then uWebSockets.js
 *                          all:    the modules' processes of the role, the ops reporter (this process's actors,
 *                                  bus and database on `ops.actors`)
 *
 * Adding a domain: its folder under server/domains/, its migration, and one line in MODULES. Adding an actor: its
 * folder under actors/ and one line in ACTORS.
 */
import { Context, Effect, Layer, Logger, LogLevel } from "effect"
import { ACTORS, ActorServices } from "../actors/index"
import { consolePaths } from "../schema/http/console"
import { AccountsModule } from "./domains/accounts/Module"
import { AnalyticsModule } from "./domains/analytics/Module"
import { ApiKeysModule } from "./domains/apikeys/Module"
import { AlertsModule } from "./domains/alerts/Module"
import { BillingModule } from "./domains/billing/Module"
import { ChainModule } from "./domains/chain/Module"
import { EchoModule } from "./domains/echo/Module"
import { IdentityModule } from "./domains/identity/Module"
import { PlaybookModule } from "./domains/playbook/Module"
import { PricingModule } from "./domains/pricing/Module"
import { PicksModule } from "./domains/picks/Module"
import { BacktestModule } from "./domains/backtest/Module"
import { EmailModule } from "./domains/email/Module"
import { WatchlistModule } from "./domains/watchlist/Module"
import { WalletsModule } from "./domains/wallets/Module"
import { PagesModule } from "./domains/pages/Module"
import { ConsoleModule } from "./gateways/console/Module"
import { DataApiModule } from "./gateways/dataapi/Module"
import { McpModule } from "./gateways/mcp/Module"
import { PublicApiModule } from "./gateways/publicapi/Module"
import type { ActorDef } from "./platform/actors/Actor"
import { ActorRegistry } from "./platform/actors/Registry"
import { ActorPriorityGate } from "./platform/actors/Priority"
import { startActors } from "./platform/actors/Runner"
import { AppConfig, runsActor } from "./platform/Config"
import { mergeErrorMaps } from "./platform/http/Errors"
import { consoleNotFound, staticRoutes } from "./platform/http/Static"
import { makeHttpServer } from "./platform/http/Uws"
import { serveMetrics } from "./platform/ops/MetricsServer"
import { TracingLive } from "./platform/ops/Tracing"
import { Jwt, TokenErrors } from "./platform/infra/Jwt"
import { MailOutbox } from "./platform/infra/MailOutbox"
import { Mailer } from "./platform/infra/Mailer"
import { SqlLive } from "./platform/infra/Sql"
import { BusAndKvLive } from "./platform/infra/BusAndKv"
import type { Module } from "./platform/Module"
import { OpsCollectors } from "./platform/ops/Collectors"
import { Health } from "./platform/ops/Health"
import { OpsRoutes } from "./platform/ops/Http"
import { Metrics } from "./platform/ops/Metrics"
import { startOpsReporter } from "./platform/ops/Reports"
import { RestartRoutes, startRestartListener } from "./platform/ops/Restart"
import { makeWsHub } from "./platform/ws/Hub"

/** Every module of the program, in dependency order (a module may use the services of those above it). */
export const MODULES = [
  AccountsModule,
  ChainModule,
  IdentityModule,
  AnalyticsModule,
  ApiKeysModule,
  PricingModule,
  BillingModule,
  PicksModule,
  BacktestModule,
  PlaybookModule,
  PublicApiModule,
  DataApiModule,
  McpModule,
  ConsoleModule,
  AlertsModule,
  WalletsModule,
  EchoModule,
  EmailModule,
  WatchlistModule,
  PagesModule
] as const

/** What a running app tells its starter (tests read the port). */
export class AppInfo extends Context.Tag("app/AppInfo")<AppInfo, {
  readonly port: number | null
  /** The loopback listener of GET /metrics (null: METRICS_PORT=off). */
  readonly metricsPort: number | null
  readonly roles: ReadonlyArray<string>
}>() {}

const LEVELS: Record<string, LogLevel.LogLevel> = {
  trace: LogLevel.Trace, debug: LogLevel.Debug, info: LogLevel.Info, warn: LogLevel.Warning, warning: LogLevel.Warning,
  error: LogLevel.Error, fatal: LogLevel.Fatal, none: LogLevel.None
}

const Logging = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Layer.merge(
      Logger.minimumLogLevel(LEVELS[config.logLevel.toLowerCase()] ?? LogLevel.Info),
      config.production ? Logger.json : Logger.logFmt
    )
  )
)

const Infrastructure = Layer.mergeAll(SqlLive({ embedded: "exclusive" }), BusAndKvLive, Metrics.Default, ActorRegistry.Default)
const PlatformServices = Layer.mergeAll(Jwt.Default, Mailer.Default, MailOutbox.Default, Health.Default, OpsCollectors, ActorPriorityGate.Default)

// ---- the modules, gathered ---------------------------------------------------------------------------------------
type AnyModule = (typeof MODULES)[number]
type LayerOf<M> = M extends Module<infer L, any> ? L : never
type RoutesR<M> = M extends Module<any, infer R> ? R : never
type ActorR<A> = A extends ActorDef<infer R> ? R : never

const modules: ReadonlyArray<Module<LayerOf<AnyModule>, RoutesR<AnyModule>>> = MODULES
/** The actors, with the services any of them uses (provided by the modules, the platform and ActorServices). */
const actors: ReadonlyArray<ActorDef<ActorR<(typeof ACTORS)[number]>>> = ACTORS
type Out<L> = L extends Layer.Layer<infer A, any, any> ? A : never
type Err<L> = L extends Layer.Layer<any, infer E, any> ? E : never
type In<L> = L extends Layer.Layer<any, any, infer R> ? R : never
type ModuleLayer = LayerOf<AnyModule>

/** Every module's services; each module's layer is fed the services of the modules above it. */
const ModuleServices = modules
  .flatMap((m) => (m.layer ? [m.layer as Layer.Layer<unknown, unknown, unknown>] : []))
  .reduce((above, layer) => Layer.provideMerge(layer, above), Layer.empty as unknown as Layer.Layer<unknown, unknown, unknown>) as unknown as Layer.Layer<
    Out<ModuleLayer>,
    Err<ModuleLayer>,
    Exclude<In<ModuleLayer>, Out<ModuleLayer>>
  >

/**
 * Every module's config slice, read right after AppConfig and before the database opens: a bad value fails the start
 * at once, naming the variable. The same layers are part of the modules' layers (built once: layers are memoized).
 */
const ModuleSettings = Layer.mergeAll(Layer.empty, ...modules.flatMap((m) => (m.config ? [m.config] : [])))

/** Two modules minting the same token kind would share its key: refused at start. */
const checkTokenKinds = Effect.suspend(() => {
  const owner = new Map<string, string>()
  for (const m of modules) {
    for (const kind of m.tokenKinds ?? []) {
      const other = owner.get(kind)
      if (other !== undefined) return Effect.dieMessage(`token kind ${kind} is declared by modules ${other} and ${m.name}`)
      owner.set(kind, m.name)
    }
  }
  return Effect.void
})

const Processes = Layer.scoped(
  AppInfo,
  Effect.gen(function* () {
    const config = yield* AppConfig
    yield* checkTokenKinds
    const errors = mergeErrorMaps([TokenErrors, ...modules.flatMap((m) => (m.errors ? [m.errors] : []))])
    if (config.roles.has("actors")) {
      const selection = config.actorSelection
      const known = actors.map((a) => a.name)
      const unknown = selection.kind === "all" ? [] : selection.names.filter((n) => !known.includes(n))
      if (unknown.length > 0) return yield* Effect.dieMessage(`WHALE_ACTORS names unknown actor(s) ${unknown.join(", ")}; known: ${known.join(", ")}`)
      yield* startActors(actors.filter((a) => runsActor(selection, a.name)))
      yield* startRestartListener
    }
    for (const m of modules) {
      for (const p of m.processes ?? []) {
        if (p.roles && !p.roles.some((r) => config.roles.has(r))) continue
        // A process may use any module's service: all are provided to this layer (ModuleServices below).
        const run = p.run as Effect.Effect<void, never, Layer.Layer.Success<typeof ModuleServices>>
        yield* Effect.forkScoped(run.pipe(Effect.annotateLogs({ process: p.name })))
      }
    }
    // The hub before the server: its finalizer (close every WebSocket) runs after HTTP has stopped listening.
    const hub = config.roles.has("http") ? yield* makeWsHub(modules.flatMap((m) => m.topics ?? [])) : null
    const sockets = hub === null ? [] : yield* Effect.all(modules.flatMap((m) => m.sockets ?? []) as ReadonlyArray<Effect.Effect<(app: import("uWebSockets.js").TemplatedApp) => void, never, Layer.Layer.Success<typeof ModuleServices>>>)
    yield* startOpsReporter({ wsConnections: hub ? hub.connections : null })
    const metricsPort = yield* serveMetrics
    let port: number | null = null
    if (hub) {
      const table: Array<import("./platform/http/Route").AnyRoute> = []
      const own = yield* Effect.all(modules.flatMap((m) => (m.routes ? [m.routes] : [])))
      table.push(...(yield* OpsRoutes(() => table)), ...(yield* RestartRoutes), ...own.flat(), ...staticRoutes(consolePaths("shell")))
      port = (yield* makeHttpServer({ routes: table, configure: [hub.configure, ...sockets], errors, browserNotFound: consoleNotFound() })).port
    }
    yield* Effect.logInfo(`started roles: ${[...config.roles].join(", ")}; modules: ${modules.map((m) => m.name).join(", ")}`)
    // The line a person starting the service looks for (PORT=0: the port it got, on this machine).
    if (port !== null) yield* Effect.logInfo(`Console ready: ${config.port === 0 ? `http://localhost:${port}` : config.publicBaseUrl}/`)
    return { port, metricsPort, roles: [...config.roles] }
  })
)

export const AppLive = Processes.pipe(
  Layer.provideMerge(ActorServices),
  Layer.provideMerge(ModuleServices),
  Layer.provideMerge(PlatformServices),
  Layer.provideMerge(Infrastructure),
  Layer.provideMerge(ModuleSettings),
  Layer.provide(Logging),
  Layer.provide(TracingLive),
  Layer.provideMerge(AppConfig.Default)
)
