/** The backtest page's calls (spec §4.7), each answer parsed with its shared schema (schema/http/backtest.ts). */
import type { z } from "zod"
import { type BacktestRequest, BacktestResponse, BacktestSample } from "../../../../schema/http/backtest"
import { call } from "../../api/http"

export type BacktestInput = z.input<typeof BacktestRequest>

export const backtestApi = {
  /** Alpha tier or higher (401/403 otherwise); 422 names the field, 413 says the range holds too many picks. */
  run: (body: BacktestInput) => call(BacktestResponse, "POST", "/api/backtest/run", body),
  sample: () => call(BacktestSample, "GET", "/api/backtest/sample")
}
