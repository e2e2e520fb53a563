/** The WebSocket connection's state as the header shows it (live / reconnecting), and what its welcome says. */
import type { WelcomeFrame } from "../../../schema/ws"
import type { ConnectionStatus } from "../api/ws"
import type { Actions, Deps, SetState, State } from "./types"

export const createConnection = (deps: Pick<Deps, "http">, actions: Partial<Actions>, state: State, setState: SetState) => {
  let reconnect: () => void = () => undefined
  const onStatus = (status: ConnectionStatus, attempt: number) => {
    if (status === state.connection.status && attempt === state.connection.attempt) return
    const dropped = status === "reconnecting" && state.connection.status === "live"
    setState("connection", (c) => ({ status, attempt, since: status === c.status ? c.since : Date.now(), drops: c.drops + (dropped ? 1 : 0) }))
  }
  const onWelcome = (frame: WelcomeFrame) => {
    // The session cookie expired while the page was open: renew it and come back signed in.
    if (frame.auth === "expired" && state.session.user) {
      deps.http.auth.refresh().then(() => reconnect(), () => setState("session", { user: null, authNote: "Your session ended; sign in again." }))
    }
  }
  return { onStatus, onWelcome, bind: (f: () => void) => (reconnect = f) }
}
