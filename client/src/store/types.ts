/** The console's one store: its state shape and the actions the slices add to it. */
import type { SetStoreFunction } from "solid-js/store"
import type { MeResponse } from "../../../schema/http/auth"
import type { DataSource, Stats, TopTokens, WhaleIndex } from "../../../schema/http/analytics"
import type { TokenDetail } from "../../../schema/http/console"
import type { FeedTrade, OpsReport } from "../../../schema/ws"
import type { Agent } from "../api/http"
import type { ConnectionStatus, WsClient } from "../api/ws"

export interface Meta {
  readonly source: DataSource
  readonly demo: boolean
  readonly generated_at: string
}

export interface State {
  /** A clock for relative times, ticking every few seconds. */
  now: number
  session: { user: MeResponse | null; checked: boolean; authNote: string | null }
  connection: { status: ConnectionStatus; attempt: number; since: number; drops: number }
  feed: { trades: Array<FeedTrade & { seq: number }>; delayMs: number; loaded: boolean; gaps: number }
  market: {
    stats: Stats | null
    index: WhaleIndex | null
    top: TopTokens | null
    meta: Meta | null
    error: string | null
    updatedAt: number | null
  }
  ops: { reports: Record<string, OpsReport>; error: string | null; restarting: Record<string, boolean>; notice: string | null }
  token: { key: string | null; detail: TokenDetail | null; loading: boolean; error: string | null }
}

export interface Actions {
  login(email: string, password: string): Promise<void>
  register(email: string, password: string, displayName?: string): Promise<string>
  logout(): Promise<void>
  /** Mails a password reset link or a one-time sign-in link; resolves to the server's (uniform) answer. */
  mailLink(kind: "reset" | "magic", email: string): Promise<string>
  loadMarket(): Promise<void>
  loadToken(token: string): Promise<void>
  followOps(): () => void
  restartActor(name: string): Promise<void>
}

export interface Deps {
  readonly http: Agent
  readonly ws: WsClient
}

export type SetState = SetStoreFunction<State>
