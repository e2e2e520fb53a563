/** Picks: whale-flagged tokens graded on the 7-day close, whale exits, the hash-chained ledger; the picks-grader actor. */
import { PicksConfig } from "./Config"
import { PicksGraderActor } from "../../../actors/picks-grader/Behaviour"
import { defineModule } from "../../platform/Module"
import { PicksErrors } from "./Errors"
import { PicksRoutes } from "./Http"
import { Picks } from "./Picks"

export const PicksModule = defineModule({
  name: "picks",
  config: PicksConfig.Default,
  layer: Picks.Default,
  routes: PicksRoutes,
  actors: [PicksGraderActor],
  errors: PicksErrors
})
