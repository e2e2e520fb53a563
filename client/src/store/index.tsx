/**
 * The console's store (after solid-realworld's): one Solid store, one `actions` object, and slices built as
 * `createX(deps, actions, state, setState)`, where `deps` holds the HTTP agent and the WebSocket client.
 */
import { createContext, onCleanup, useContext, type ParentComponent } from "solid-js"
import { createStore } from "solid-js/store"
import { createAgent } from "../api/http"
import { createWsClient } from "../api/ws"
import { createConnection } from "./createConnection"
import { createFeed } from "../features/feed/store"
import { createMarket } from "../features/market/store"
import { createOps } from "../features/ops/store"
import { createSession } from "../features/account/store"
import { createToken } from "../features/token/store"
import type { Actions, Deps, State } from "./types"

export type Store = readonly [State, Actions]
const StoreContext = createContext<Store>()
const DepsContext = createContext<Deps>()

const wsUrl = () => `${window.location.protocol === "https:" ? "wss:" : "ws:"}//${window.location.host}/ws`

export const StoreProvider: ParentComponent = (props) => {
  const [state, setState] = createStore<State>({
    now: Date.now(),
    session: { user: null, checked: false, authNote: null },
    connection: { status: "connecting", attempt: 0, since: Date.now(), drops: 0 },
    feed: { trades: [], delayMs: 0, loaded: false, gaps: 0 },
    market: { stats: null, index: null, top: null, meta: null, error: null, updatedAt: null },
    ops: { reports: {}, error: null, restarting: {}, notice: null },
    token: { key: null, detail: null, loading: false, error: null }
  })
  const actions: Partial<Actions> = {}
  const http = createAgent()
  const connection = createConnection({ http }, actions, state, setState)
  const ws = createWsClient({ url: wsUrl(), onStatus: connection.onStatus, onWelcome: connection.onWelcome })
  connection.bind(ws.reconnect)
  const deps = { http, ws }
  createSession(deps, actions, state, setState)
  createFeed(deps, actions, state, setState)
  createMarket(deps, actions, state, setState)
  createOps(deps, actions, state, setState)
  createToken(deps, actions, state, setState)
  ws.start()

  const tick = setInterval(() => setState("now", Date.now()), 5_000)
  onCleanup(() => {
    clearInterval(tick)
    ws.stop()
  })
  const store: Store = [state, actions as Actions]
  return (
    <DepsContext.Provider value={deps}>
      <StoreContext.Provider value={store}>{props.children}</StoreContext.Provider>
    </DepsContext.Provider>
  )
}

export const useStore = (): Store => {
  const store = useContext(StoreContext)
  if (!store) throw new Error("useStore outside StoreProvider")
  return store
}

/**
 * The console's shared connections — the HTTP agent and the WebSocket client — for a feature's own store
 * (`features/<feature>/store.ts`), created when its page mounts and cleaned up with `onCleanup`.
 */
export const useDeps = (): Deps => {
  const deps = useContext(DepsContext)
  if (!deps) throw new Error("useDeps outside StoreProvider")
  return deps
}
