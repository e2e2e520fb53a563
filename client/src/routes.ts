/**
 * The console's pages. Every path here is in CONSOLE_PATHS (schema/http/console.ts), so the server answers it with
 * the shell and a reload works. Pages for alerts, watchlist, Echo and the live playbook join this table as their
 * APIs land (each with its slice in store/ and, where live, its topic: `user:<id>`, `playbook:live`).
 */
import type { Component } from "solid-js"
import type { ConsolePath } from "../../schema/http/console"
import { FeedPage } from "./pages/Feed"
import { Login } from "./pages/Login"
import { Ops } from "./pages/Ops"
import { Overview } from "./pages/Overview"
import { Register } from "./pages/Register"
import { Sentiment } from "./pages/Sentiment"
import { TokenDetailPage } from "./pages/TokenDetail"
import { Tokens } from "./pages/Tokens"

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
  { path: "/login", title: "Sign in", component: Login },
  { path: "/register", title: "Create account", component: Register },
  { path: "/ops", title: "Operations", component: Ops }
]

export const NAV: ReadonlyArray<{ readonly href: ConsolePath; readonly label: string; readonly admin?: boolean }> = [
  { href: "/", label: "Overview" },
  { href: "/feed", label: "Live feed" },
  { href: "/sentiment", label: "Sentiment" },
  { href: "/tokens", label: "Top tokens" },
  { href: "/ops", label: "Ops", admin: true }
]
