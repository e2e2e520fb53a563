/**
 * Echo's calls, each parsed with the shared zod schema of its endpoint (schema/http/echo.ts); failures are
 * `HttpError` with the server's message (a 409 names what was available) and code.
 */
import * as W from "../../../../schema/http/echo"
import { call } from "../../api/http"

export const echoApi = {
  settings: () => call(W.EchoSettings, "GET", "/api/echo/settings"),
  portfolio: () => call(W.Portfolio, "GET", "/api/echo/portfolio"),
  feed: (page = 1, limit = 25) => call(W.FeedPage, "GET", `/api/echo/feed?page=${page}&limit=${limit}`),
  trades: (page = 1, limit = 25) => call(W.TradesPage, "GET", `/api/echo/trades?page=${page}&limit=${limit}`),
  trade: (body: { side: "BUY" | "SELL"; token: string; usd?: number; quantity?: number; command_id: string }) => call(W.TradeResponse, "POST", "/api/echo/trade", body),
  copy: (body: { tx_hash: string; log_index?: number; wallet?: string; usd?: number; command_id: string }) => call(W.TradeResponse, "POST", "/api/echo/copy", body),
  reset: () => call(W.ResetResponse, "POST", "/api/echo/reset", {}),
  analytics: () => call(W.Analytics, "GET", "/api/echo/analytics"),
  leaderboard: () => call(W.Leaderboard, "GET", "/api/echo/leaderboard"),
  hotTokens: () => call(W.HotTokens, "GET", "/api/echo/hot-tokens"),
  lookup: (address: string) => call(W.TokenLookup, "GET", `/api/echo/token-lookup?address=${encodeURIComponent(address)}`),
  chart: (address: string, tf: string) => call(W.ChartData, "GET", `/api/echo/token/${address}/chart-data?tf=${tf}`),
  lagCurve: (wallet: string) => call(W.LagCurve, "GET", `/api/echo/wallet/${wallet}/lag-curve`),
  rules: () => call(W.AutoCopyList, "GET", "/api/echo/autocopy"),
  setRule: (rule: { wallet: string; mode: "fixed" | "fraction"; amount: number; cap_usd: number; copy_sells: boolean; enabled: boolean }) => call(W.AutoCopyList, "POST", "/api/echo/autocopy", rule),
  deleteRule: (wallet: string) => call(W.AutoCopyList, "DELETE", `/api/echo/autocopy/${wallet}`),
  shadow: () => call(W.Shadow, "GET", "/api/echo/shadow")
}

export type EchoApi = typeof echoApi
