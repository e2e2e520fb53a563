/** Wire contracts of the console's own read endpoints (server/gateways/console), shared with client/. */
import { z } from "zod"
import { DataSource, TokenFlow, WhaleTrade } from "./analytics"

export const TokenParams = z.object({ token: z.string().trim().min(1).max(64) })

/** `GET /api/console/tokens/{token}`: a token's recent whale trades (newest first) and its flows per timeframe. */
export const TokenDetail = z.object({
  token: z.string(),
  symbol: z.string(),
  flows: z.object({ "1H": TokenFlow.nullable(), "24H": TokenFlow.nullable(), "7D": TokenFlow.nullable() }),
  trades: z.array(WhaleTrade),
  /** Anonymous callers see trades this much late, wallets masked (as on the WebSocket feed). */
  delay_ms: z.number().int(),
  meta: z.object({ source: DataSource, demo: z.boolean(), generated_at: z.string() })
})
export type TokenDetail = z.infer<typeof TokenDetail>

/**
 * Client-side paths of the console (client/src/routes.ts): the server answers each with the console's shell, so a
 * reload or a shared link works. Keep clear of the server-rendered pages of the spec (§4.5).
 */
export const CONSOLE_PATHS = [
  "/feed",
  "/sentiment",
  "/tokens",
  "/tokens/{token}",
  "/login",
  "/register",
  "/ops",
  // Public pages: the picks page for everyone; the backtest page explains its tier (alpha+) itself and shows the
  // public sample, so the server does not gate it (POST /api/backtest/run does).
  "/picks",
  "/backtest"
] as const
/**
 * Console pages the server gates itself before serving the shell (spec §4.5), each with its own route: Echo and the
 * playbook (their domains: tier and settings), and the signed-in pages (server/domains/pages: anonymous → login, then
 * back). Not in CONSOLE_PATHS.
 */
export const GATED_CONSOLE_PATHS = [
  "/echo",
  "/playbook",
  "/billing",
  "/email",
  "/alerts",
  "/watchlist"
] as const
export type ConsolePath = "/" | (typeof CONSOLE_PATHS)[number] | (typeof GATED_CONSOLE_PATHS)[number]
