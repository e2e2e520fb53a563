/**
 * The keyed data API: whale tier, 25,000 requests per account per UTC day, counted in Redis; the counts are persisted
 * by the apikeys domain's UsageLedger, which the quota-counter actor feeds from `api.usage`.
 */
import { Effect, Layer } from "effect"
import { defineModule } from "../../platform/Module"
import { DataApiConfig } from "./Config"
import { DataApi } from "./DataApi"
import { Exports } from "./Export"
import { TokenHistory } from "../../domains/analytics/TokenHistory"
import { DataApiRoutes } from "./Http"
import { DataApiLiveRoutes } from "./LiveRoutes"
import { Quota } from "./Quota"
import { makeKeyedStream } from "./Stream"
import { UsageEvents } from "./UsageEvents"
import { WalletApiRoutes } from "./WalletsHttp"

export const DataApiModule = defineModule({
  name: "dataapi",
  config: DataApiConfig.Default,
  layer: Layer.mergeAll(DataApiConfig.Default, Quota.Default, UsageEvents.Default, DataApi.Default, TokenHistory.Default, Exports.Default),
  sockets: [Effect.map(makeKeyedStream, (feed) => feed.configure)],
  routes: Effect.map(Effect.all([DataApiRoutes, DataApiLiveRoutes, WalletApiRoutes]), (parts) => parts.flat()),
  processes: [
    { name: "quota-watchdog", roles: ["http"], run: Effect.flatMap(Quota, (quota) => quota.watchdog) },
    { name: "usage-flusher", roles: ["http"], run: Effect.flatMap(UsageEvents, (usage) => usage.flusher) }
  ]
})
