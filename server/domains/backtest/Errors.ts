/** Expected failures of the backtest domain, each with its HTTP answer (`BacktestErrors`, registered by the module). */
import { Data } from "effect"
import { PayloadTooLarge, errorMap } from "../../platform/http/Errors"

/** The request's range holds more graded picks than one run may replay (BACKTEST_MAX_PICKS). */
export class BacktestTooLarge extends Data.TaggedError("BacktestTooLarge")<{ readonly maxPicks: number }> {}

export const BacktestErrors = errorMap<BacktestTooLarge>()({
  BacktestTooLarge: (e) => new PayloadTooLarge({
    message: `More than ${e.maxPicks} graded picks in this range: narrow the dates, tokens or filters`, code: "backtest_too_large",
    extra: { max_picks: e.maxPicks }
  })
})
