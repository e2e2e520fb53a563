/**
 * The console's pages. Every path here is in CONSOLE_PATHS (schema/http/console.ts), so the server answers it with
 * the shell and a reload works. Pages for alerts, watchlist, Echo and the live playbook join this table as their
 * APIs land (each with its slice in store/ and, where live, its topic: `user:<id>`, `playbook:live`).
 */
import type { Component } from "solid-js"
import type { ConsolePath } from "../../schema/http/console"
import { BacktestPage } from "./features/backtest/Page"
import { BillingPage } from "./features/billing/Page"
import { EchoPage } from "./features/echo/Page"
import { FeedPage } from "./features/feed/Page"
import { Login } from "./features/account/Login"
import { Ops } from "./features/ops/Page"
import { Overview } from "./features/overview/Page"
import { PicksPage } from "./features/picks/Page"
import { PlaybookPage } from "./features/playbook/Page"
import { Register } from "./features/account/Register"
import { Sentiment } from "./features/sentiment/Page"
import { TokenDetailPage } from "./features/token/Page"
import { Tokens } from "./features/tokens/Page"
import { AlertsPage } from "./features/alerts/Page"
import { WatchlistPage } from "./features/watchlist/Page"
import { EmailPage } from "./features/email/Page"

export interface Page {
  readonly path: ConsolePath
  readonly title: string
  readonly component: Component<{ params: Record<string, string> }>
}

export const ROUTES: ReadonlyArray<Page> = [
  { path: "/", title: "Overview", component: Overview },
  { path: "/feed", title: "Live whale trades", component: FeedPage },
  { path: "/sentiment", title: "Whale Sentiment Index", component: Sentiment },
  { path: "/tokens", title: "Top tokens", component: Tokens },
  { path: "/tokens/{token}", title: "Token", component: TokenDetailPage },
  { path: "/playbook", title: "Event playbook", component: PlaybookPage },
  { path: "/picks", title: "Whale picks", component: PicksPage },
  { path: "/backtest", title: "Backtest", component: BacktestPage },
  { path: "/login", title: "Sign in", component: Login },
  { path: "/register", title: "Create account", component: Register },
  { path: "/ops", title: "Operations", component: Ops },
  { path: "/alerts", title: "Alerts", component: AlertsPage },
  { path: "/billing", title: "Billing", component: BillingPage },
  { path: "/echo", title: "Echo simulator", component: EchoPage },
  { path: "/watchlist", title: "Watchlist", component: WatchlistPage },
  { path: "/email", title: "E-mail", component: EmailPage }
]

export const NAV: ReadonlyArray<{ readonly href: ConsolePath; readonly label: string; readonly admin?: boolean }> = [
  { href: "/", label: "Overview" },
  { href: "/feed", label: "Live feed" },
  { href: "/sentiment", label: "Sentiment" },
  { href: "/tokens", label: "Top tokens" },
  { href: "/picks", label: "Picks" },
  { href: "/backtest", label: "Backtest" },
  { href: "/alerts", label: "Alerts" },
  { href: "/billing", label: "Billing" },
  { href: "/echo", label: "Echo" },
  { href: "/playbook", label: "Playbook" },
  { href: "/watchlist", label: "Watchlist" },
  { href: "/email", label: "E-mail", admin: true },
  { href: "/ops", label: "Ops", admin: true }
]
