/** Analytics: flows, the sentiment index and its daily closes, top tokens, positioning — as cached read models. */
import { Effect, Layer } from "effect"
import { defineModule } from "../../platform/Module"
import { Analytics } from "./Analytics"
import { AnalyticsConfig } from "./Config"
import { AnalyticsRoutes } from "./Http"
import { ReadModels } from "./ReadModels"
import { Retractions } from "./Retractions"
import { WalletFlows } from "./WalletFlows"

export const AnalyticsModule = defineModule({
  name: "analytics",
  config: AnalyticsConfig.Default,
  layer: Layer.mergeAll(AnalyticsConfig.Default, Analytics.Default, ReadModels.Default, WalletFlows.Default, Retractions.Default.pipe(Layer.provide(ReadModels.Default))),
  routes: AnalyticsRoutes,
  // Every process: its own caches honour a reorg's retractions.
  processes: [{ name: "analytics-retractions", run: Effect.flatMap(Retractions, (r) => r.follow) }]
})
