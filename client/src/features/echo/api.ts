/**
 * Echo's calls, by the shared contracts of its endpoints (schema/http/echo.ts); failures are `HttpError` with the
 * server's message (a 409 names what was available) and code.
 */
import { EchoEndpoints as E } from "../../../../schema/http/echo"
import type { BodyOf } from "../../../../schema/http/endpoint"
import { call } from "../../api/http"

export const echoApi = {
  settings: () => call(E.settings),
  portfolio: () => call(E.portfolio),
  feed: (page = 1, limit = 25) => call(E.feed, { query: { page, limit } }),
  trades: (page = 1, limit = 25) => call(E.trades, { query: { page, limit } }),
  trade: (body: BodyOf<typeof E.trade>) => call(E.trade, { body }),
  copy: (body: BodyOf<typeof E.copy>) => call(E.copy, { body }),
  reset: () => call(E.reset),
  analytics: () => call(E.analytics),
  leaderboard: () => call(E.leaderboard),
  hotTokens: () => call(E.hotTokens),
  tokens: () => call(E.tokens),
  lookup: (address: string) => call(E.lookup, { query: { address } }),
  chart: (address: string, tf: string) => call(E.chart, { params: { address }, query: { tf } }),
  lagCurve: (wallet: string) => call(E.lagCurve, { params: { address: wallet } }),
  rules: () => call(E.rules),
  setRule: (rule: BodyOf<typeof E.setRule>) => call(E.setRule, { body: rule }),
  deleteRule: (wallet: string) => call(E.deleteRule, { params: { address: wallet } }),
  shadow: () => call(E.shadow)
}

export type EchoApi = typeof echoApi
