/** Live / connecting / reconnecting, from the WebSocket client's state. */
import { Match, Switch, type Component } from "solid-js"
import { useStore } from "../store"

export const ConnectionBadge: Component = () => {
  const [state] = useStore()
  return (
    <span class={`conn conn-${state.connection.status}`} role="status" aria-live="polite" data-status={state.connection.status}>
      <span class="conn-dot" aria-hidden="true" />
      <Switch>
        <Match when={state.connection.status === "live"}>Live</Match>
        <Match when={state.connection.status === "connecting"}>Connecting…</Match>
        <Match when={state.connection.status === "reconnecting"}>
          Reconnecting{state.connection.attempt > 1 ? ` (${state.connection.attempt})` : ""}…
        </Match>
      </Switch>
    </span>
  )
}
