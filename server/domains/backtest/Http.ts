/**
 * Backtest routes (spec §4.7; contracts in schema/http/backtest.ts): `POST /api/backtest/run` for alpha tier and
 * higher (422 on a bad request, 413 when the range holds more graded picks than BACKTEST_MAX_PICKS),
 * `GET /api/backtest/sample` public.
 */
import { Effect } from "effect"
import { BacktestEndpoints as E } from "../../../schema/http/backtest"
import { route } from "../../platform/http/Route"
import { Guard } from "../../platform/http/Guards"
import { AuthGuards } from "../accounts/Guards"
import { Backtest } from "./Backtest"

export const BacktestRoutes = Effect.gen(function* () {
  const backtest = yield* Backtest
  const guards = yield* AuthGuards
  return [
    route(E.run, { guard: guards.tier("alpha"), handler: ({ body }) => backtest.run(body) }),
    route(E.sample, { guard: Guard.anon, handler: () => backtest.sample })
  ]
})
