/** Analytics: flows, the sentiment index and its daily closes, top tokens, positioning — as cached read models. */
import { Layer } from "effect"
import { IndexCloserActor } from "../../../actors/index-closer/Behaviour"
import { defineModule } from "../../platform/Module"
import { Analytics } from "./Analytics"
import { AnalyticsRoutes } from "./Http"
import { ReadModels } from "./ReadModels"
import { Retractions } from "./Retractions"

export const AnalyticsModule = defineModule({
  name: "analytics",
  layer: Layer.mergeAll(Analytics.Default, ReadModels.Default, Retractions.Default.pipe(Layer.provide(ReadModels.Default))),
  routes: AnalyticsRoutes,
  actors: [IndexCloserActor]
})
