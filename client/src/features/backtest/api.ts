/** The backtest page's calls (spec §4.7), by their shared contracts (schema/http/backtest.ts). */
import { BacktestEndpoints as E } from "../../../../schema/http/backtest"
import type { BodyOf } from "../../../../schema/http/endpoint"
import { PicksEndpoints } from "../../../../schema/http/picks"
import { call } from "../../api/http"

export type BacktestInput = BodyOf<typeof E.run>

export const backtestApi = {
  /** Alpha tier or higher (401/403 otherwise); 422 names the field, 413 says the range holds too many picks. */
  run: (body: BacktestInput) => call(E.run, { body }),
  sample: () => call(E.sample),
  /** The picks' headline figures: the first and last flag bound the range worth testing. */
  picksSummary: () => call(PicksEndpoints.summary)
}
