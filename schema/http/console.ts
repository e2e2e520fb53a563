/** Wire contracts of the console's own read endpoints (server/gateways/console), shared with client/. */
import { z } from "zod"
import { DataSource, ExcludedTotals, TokenFlow, WhaleTrade } from "./analytics"
import { endpoint } from "./endpoint"

export const TokenParams = z.object({ token: z.string().trim().min(1).max(64) })

/** `GET /api/console/tokens/{token}`: a token's recent whale trades (newest first) and its flows per timeframe. */
export const TokenDetail = z.object({
  token: z.string(),
  symbol: z.string(),
  flows: z.object({ "1H": TokenFlow.nullable(), "24H": TokenFlow.nullable(), "7D": TokenFlow.nullable() }),
  /** The token's exchange housekeeping left out of each timeframe's flows. */
  excluded: z.object({ "1H": ExcludedTotals, "24H": ExcludedTotals, "7D": ExcludedTotals }),
  trades: z.array(WhaleTrade),
  /** Anonymous callers see trades this much late, wallets masked (as on the WebSocket feed). */
  delay_ms: z.number().int(),
  meta: z.object({ source: DataSource, demo: z.boolean(), generated_at: z.string() })
})
export type TokenDetail = z.infer<typeof TokenDetail>

/**
 * `GET /api/console/history`: on a first start of the demo chain, the generated history is stored and then its picks
 * replayed (minutes); until then picks, the backtest sample and the 30-day charts still move. `percent` counts both
 * steps (storing up to 90, the picks replay the rest); `replaying` is false once both are done, and on a chain with
 * no generated history.
 */
export const HistoryReplay = z.object({
  replaying: z.boolean(),
  percent: z.number().int().min(0).max(100),
  step: z.enum(["none", "storing", "picks", "done"]),
  /** The days of history generated (DEMO_HISTORY_DAYS); 0 when there is none. */
  days: z.number().int()
})
export type HistoryReplay = z.infer<typeof HistoryReplay>

export const ConsoleEndpoints = {
  history: endpoint({
    method: "GET", path: "/api/console/history", summary: "Whether the demo chain's generated history is still being stored and replayed, and how far (percent)", tags: ["console"],
    response: HistoryReplay
  }),
  token: endpoint({
    method: "GET", path: "/api/console/tokens/{token}", summary: "A token's whale flows and recent whale trades (the console's token page)", tags: ["console"],
    params: TokenParams, response: TokenDetail
  })
}

/** How the server answers a console page's path (see CONSOLE_PAGES). */
export type ConsoleServed = "shell" | "signed-in" | "domain"

export interface ConsolePage {
  readonly path: string
  /** The browser tab's title. */
  readonly title: string
  /** The page's component: the default export of `client/src/features/<view>.tsx`. */
  readonly view: string
  /** Its label in the top bar's menu, if it has one; `admin`: shown to admins only. */
  readonly nav?: string
  readonly admin?: boolean
  /**
   * `shell`: the server answers the path with the console's shell, so a reload or a shared link works; `signed-in`:
   * the pages domain does, after a sign-in check (anonymous → /login, then back); `domain`: the owning domain's own
   * route does, with its own gate (Echo and the playbook: tier and settings). Keep clear of the server-rendered pages
   * of the spec (§4.5).
   */
  readonly served: ConsoleServed
}

/**
 * The console's pages, in menu order: the one list the client (its routes and menu, client/src/routes.ts) and the
 * server (the paths it answers with the shell) read. A new page is one line here and its feature folder.
 */
export const CONSOLE_PAGES = [
  { path: "/", title: "Overview", view: "overview/Page", nav: "Overview", served: "shell" },
  { path: "/feed", title: "Live whale trades", view: "feed/Page", nav: "Live feed", served: "shell" },
  { path: "/sentiment", title: "Whale Sentiment Index", view: "sentiment/Page", nav: "Sentiment", served: "shell" },
  { path: "/tokens", title: "Top tokens", view: "tokens/Page", nav: "Top tokens", served: "shell" },
  { path: "/tokens/{token}", title: "Token", view: "token/Page", served: "shell" },
  // Public pages: the picks page for everyone; the backtest page explains its tier (alpha+) itself and shows the
  // public sample, so the server does not gate it (POST /api/backtest/run does).
  { path: "/wallets", title: "Wallets", view: "wallets/Search", nav: "Wallets", served: "shell" },
  { path: "/wallets/{address}", title: "Wallet", view: "wallets/Page", served: "shell" },
  { path: "/picks", title: "Whale picks", view: "picks/Page", nav: "Picks", served: "shell" },
  { path: "/backtest", title: "Backtest", view: "backtest/Page", nav: "Backtest", served: "shell" },
  { path: "/alerts", title: "Alerts", view: "alerts/Page", nav: "Alerts", served: "signed-in" },
  { path: "/billing", title: "Billing", view: "billing/Page", nav: "Billing", served: "signed-in" },
  { path: "/echo", title: "Echo simulator", view: "echo/Page", nav: "Echo", served: "domain" },
  { path: "/playbook", title: "Event playbook", view: "playbook/Page", nav: "Playbook", served: "domain" },
  { path: "/watchlist", title: "Watchlist", view: "watchlist/Page", nav: "Watchlist", served: "signed-in" },
  { path: "/email", title: "E-mail", view: "email/Page", nav: "E-mail", admin: true, served: "signed-in" },
  { path: "/ops", title: "Operations", view: "ops/Page", nav: "Ops", admin: true, served: "shell" },
  { path: "/admin/identity", title: "Wallet identity", view: "identity-admin/Page", nav: "Identity", admin: true, served: "shell" },
  { path: "/account", title: "Account", view: "account/Page", served: "signed-in" },
  { path: "/login", title: "Sign in", view: "account/Login", served: "shell" },
  { path: "/register", title: "Create account", view: "account/Register", served: "shell" }
] as const satisfies ReadonlyArray<ConsolePage>

export type ConsolePath = (typeof CONSOLE_PAGES)[number]["path"]

/** The console's paths the server answers in a given way. */
export const consolePaths = <S extends ConsoleServed>(served: S) =>
  CONSOLE_PAGES.filter((p): p is Extract<(typeof CONSOLE_PAGES)[number], { served: S }> => p.served === served).map((p) => p.path)
