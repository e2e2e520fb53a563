/**
 * The supervision tree: every long-lived layer of the program, in dependency order. Layers are built top to
 * bottom and released bottom to top, so shutdown stops HTTP first (draining requests), then the actors, then the
 * bus, Redis and the database (and the embedded PostgreSQL process).
 *
 *   AppConfig            environment, secrets
 *   Logging              level and format
 *   Metrics              Prometheus registry
 *   Sql                  PostgreSQL pool (or embedded PGlite child) + migrations
 *   Bus, Kv              Redis Streams + keys (or in-process)
 *   ActorRegistry        actor health
 *   domain services      pricing, marketing, health, …
 *   actors   (role)      supervised stream and loop actors
 *   http     (role)      uWebSockets.js: routes, WebSocket hub
 */
import { Context, Effect, Layer, Logger, LogLevel } from "effect"
import { ActorRegistry } from "../actors/runtime/Registry"
import type { ActorDef } from "../actors/runtime/Actor"
import { startActors } from "../actors/runtime/Runner"
import { AuthJanitorActor } from "../actors/auth-janitor/Behaviour"
import { MailOutboxActor } from "../actors/mail-outbox/Behaviour"
import { BlockListenerActor } from "../actors/block-listener/Behaviour"
import { ConsoleSnapshotsActor } from "../actors/console-snapshots/Behaviour"
import { IndexCloserActor } from "../actors/index-closer/Behaviour"
import { QuotaCounterActor } from "../actors/quota-counter/Behaviour"
import { Analytics } from "./analytics/Analytics"
import { AnalyticsRoutes } from "./analytics/Http"
import { ReadModels } from "./analytics/ReadModels"
import { ApiKeys } from "./apikeys/ApiKeys"
import { ApiKeyGuard } from "./apikeys/Guard"
import { ApiKeyRoutes } from "./apikeys/Http"
import { DataApi } from "./dataapi/DataApi"
import { DataApiRoutes } from "./dataapi/Http"
import { Quota } from "./dataapi/Quota"
import { UsageEvents } from "./dataapi/UsageEvents"
import { UsageLedger } from "./dataapi/UsageLedger"
import { McpRoutes } from "./mcp/Http"
import { Mcp } from "./mcp/Mcp"
import { PublicApiRoutes } from "./publicapi/Http"
import { PublicApi } from "./publicapi/PublicApi"
import { Accounts } from "./auth/Accounts"
import { Entitlements } from "./auth/Entitlements"
import { AuthGuards } from "./auth/Guards"
import { AuthRoutes } from "./auth/Http"
import { AccountLinks } from "./auth/Links"
import { Sessions } from "./auth/Sessions"
import { ChainCatalogSeeded } from "./chain/Catalog"
import { ChainRepo } from "./chain/Repo"
import { ChainSourceLive } from "./chain/SourceLive"
import { AppConfig } from "./Config"
import type { AnyRoute } from "./http/Route"
import { staticRoutes } from "./http/Static"
import { makeHttpServer } from "./http/Uws"
import { Jwt } from "./infra/Jwt"
import { MailOutbox } from "./infra/MailOutbox"
import { Mailer } from "./infra/Mailer"
import { SqlLive } from "./infra/Sql"
import { BusAndKvLive } from "./infra/Streams"
import { Marketing } from "./marketing/Marketing"
import { MarketingRoutes } from "./marketing/Http"
import { OpsCollectors } from "./ops/Collectors"
import { Health } from "./ops/Health"
import { OpsRoutes } from "./ops/Http"
import { startOpsReporter } from "./ops/Reports"
import { RestartRoutes, startRestartListener } from "./ops/Restart"
import { Metrics } from "./ops/Metrics"
import { Pricing } from "./pricing/Pricing"
import { PricingRoutes } from "./pricing/Http"
import { makeWsHub, type WsHub } from "./ws/Hub"
import { ConsoleRoutes } from "./console/Http"
import { CONSOLE_PATHS } from "../schema/http/console"

/** What a running app tells its starter (tests read the port). */
export class AppInfo extends Context.Tag("app/AppInfo")<AppInfo, { readonly port: number | null; readonly roles: ReadonlyArray<string> }>() {}

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

const Infrastructure = Layer.mergeAll(SqlLive(), BusAndKvLive, Metrics.Default, ActorRegistry.Default)

const Services = Layer.mergeAll(
  Pricing.Default, Marketing.Default, Health.Default, OpsCollectors,
  // accounts: tokens, outgoing mail, entitlements, guards, accounts and their mailed links
  Jwt.Default, MailOutbox.Default, Mailer.Default, Entitlements.Default, Sessions.Default, AuthGuards.Default, Accounts.Default,
  AccountLinks.Default,
  // chain: the source (rpc, replay or demo), its tables, reference data seeded at start
  ChainSourceLive, ChainRepo.Default, ChainCatalogSeeded,
  // analytics read models, the public API, API keys, the keyed data API with its quota, MCP
  Analytics.Default, ReadModels.Default, PublicApi.Default,
  ApiKeys.Default, ApiKeyGuard.Default, Quota.Default, UsageEvents.Default, UsageLedger.Default, DataApi.Default,
  Mcp.Default
)

/** Every actor of the system, started under supervision in the `actors` role. */
type ActorServices = Layer.Layer.Success<typeof Services> | Layer.Layer.Success<typeof Infrastructure> | AppConfig
const ACTORS: ReadonlyArray<ActorDef<ActorServices>> = [MailOutboxActor, AuthJanitorActor, BlockListenerActor, QuotaCounterActor, IndexCloserActor, ConsoleSnapshotsActor]

/** Every route of the system, in the `http` role. */
const routes = (hub: WsHub) => Effect.gen(function* () {
  const table: Array<AnyRoute> = []
  const domains = yield* Effect.all([AuthRoutes, PricingRoutes, MarketingRoutes, OpsRoutes(() => table), RestartRoutes(hub), ConsoleRoutes,
    PublicApiRoutes, ApiKeyRoutes, DataApiRoutes, McpRoutes, AnalyticsRoutes])
  table.push(...domains.flat(), ...staticRoutes(CONSOLE_PATHS))
  return table
})

const Processes = Layer.scoped(
  AppInfo,
  Effect.gen(function* () {
    const config = yield* AppConfig
    if (config.roles.has("actors")) yield* startActors(ACTORS).pipe(Effect.zipRight(startRestartListener))
    // The hub before the server: its finalizer (close every WebSocket) runs after HTTP has stopped listening.
    const hub = config.roles.has("http") ? yield* makeWsHub : null
    yield* startOpsReporter({ wsConnections: hub ? hub.connections : null })
    const port = hub ? (yield* makeHttpServer({ routes: yield* routes(hub), configure: [hub.configure] })).port : null
    yield* Effect.logInfo(`started roles: ${[...config.roles].join(", ")}`)
    return { port, roles: [...config.roles] }
  })
)

export const AppLive = Processes.pipe(
  Layer.provide(Services),
  Layer.provideMerge(Infrastructure),
  Layer.provide(Logging),
  Layer.provideMerge(AppConfig.Default)
)
