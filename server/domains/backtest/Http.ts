/**
 * Backtest routes (spec §4.7): `POST /api/backtest/run` for alpha tier and higher (422 on a bad request, 413 when the
 * range holds more graded picks than BACKTEST_MAX_PICKS), `GET /api/backtest/sample` public.
 */
import { Effect } from "effect"
import { BacktestRequest, BacktestResponse, BacktestSample } from "../../../schema/http/backtest"
import { route } from "../../platform/http/Route"
import { Guard } from "../../platform/http/Guards"
import { AuthGuards } from "../accounts/Guards"
import { Backtest } from "./Backtest"

export const BacktestRoutes = Effect.gen(function* () {
  const backtest = yield* Backtest
  const guards = yield* AuthGuards
  return [
    route({
      method: "POST", path: "/api/backtest/run", summary: "Runs a backtest of graded picks with costs, point-in-time (alpha tier or higher)",
      tags: ["backtest"], guard: guards.tier("alpha"), body: BacktestRequest, bodyKind: "json", response: BacktestResponse,
      handler: ({ body }) => backtest.run(body)
    }),
    route({
      method: "GET", path: "/api/backtest/sample", summary: "Public summary of graded outcomes of the last 90 days (7-day-close rule, individual fires excluded)",
      tags: ["backtest"], guard: Guard.anon, response: BacktestSample,
      handler: () => backtest.sample
    })
  ]
})
