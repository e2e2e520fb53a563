/** Picks: whale-flagged tokens graded on the 7-day close, whale exits, the hash-chained ledger (the picks-grader actor runs them). */
import { PicksConfig } from "./Config"
import { defineModule } from "../../platform/Module"
import { PicksErrors } from "./Errors"
import { PicksRoutes } from "./Http"
import { Picks } from "./Picks"
import { WalletPicks } from "./WalletPicks"
import { Layer } from "effect"

export const PicksModule = defineModule({
  name: "picks",
  config: PicksConfig.Default,
  layer: Layer.merge(Picks.Default, WalletPicks.Default),
  routes: PicksRoutes,
  errors: PicksErrors
})
