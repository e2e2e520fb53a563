/**
 * The keyed data API: whale tier, 25,000 requests per account per UTC day, counted in Redis; the counts are persisted
 * by the apikeys domain's UsageLedger, which the quota-counter actor feeds from `api.usage`.
 */
import { Effect, Layer } from "effect"
import { defineModule } from "../../platform/Module"
import { DataApiConfig } from "./Config"
import { DataApi } from "./DataApi"
import { DataApiRoutes } from "./Http"
import { Quota } from "./Quota"
import { UsageEvents } from "./UsageEvents"
import { WalletApiRoutes } from "./WalletsHttp"

export const DataApiModule = defineModule({
  name: "dataapi",
  config: DataApiConfig.Default,
  layer: Layer.mergeAll(DataApiConfig.Default, Quota.Default, UsageEvents.Default, DataApi.Default),
  routes: Effect.map(Effect.all([DataApiRoutes, WalletApiRoutes]), (r) => r.flat()),
  processes: [
    { name: "quota-watchdog", roles: ["http"], run: Effect.flatMap(Quota, (quota) => quota.watchdog) },
    { name: "usage-flusher", roles: ["http"], run: Effect.flatMap(UsageEvents, (usage) => usage.flusher) }
  ]
})
