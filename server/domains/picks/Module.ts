/** Picks: whale-flagged tokens graded on the 7-day close, whale exits, the hash-chained ledger (the picks-grader actor runs them). */
import { PicksConfig } from "./Config"
import { defineModule } from "../../platform/Module"
import { PicksErrors } from "./Errors"
import { PicksRoutes } from "./Http"
import { Picks } from "./Picks"

export const PicksModule = defineModule({
  name: "picks",
  config: PicksConfig.Default,
  layer: Picks.Default,
  routes: PicksRoutes,
  errors: PicksErrors
})
