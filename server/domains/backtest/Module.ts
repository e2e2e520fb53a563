/** Backtest: graded picks replayed point-in-time with a follower's costs (alpha+), and the public 90-day sample. */
import { defineModule } from "../../platform/Module"
import { Backtest } from "./Backtest"
import { BacktestErrors } from "./Errors"
import { BacktestRoutes } from "./Http"

export const BacktestModule = defineModule({
  name: "backtest",
  layer: Backtest.Default,
  routes: BacktestRoutes,
  errors: BacktestErrors
})
