/** One process's actors: state, restarts, last error, throughput, lag, pending, dead letters, heartbeat, restart. */
import { For, Show, type Component } from "solid-js"
import type { ActorReport } from "../../../schema/ws"
import { ago } from "../lib/format"
import { useStore } from "../store"

const fmt = (n: number | null) => (n === null ? "—" : n.toLocaleString("en-US"))

export const ActorTable: Component<{ actors: ReadonlyArray<ActorReport> }> = (props) => {
  const [state, actions] = useStore()
  return (
    <div class="actors" role="table" aria-label="Actors">
      <div class="actor actor-head" role="row">
        <span>Actor</span><span>State</span><span class="num">Restarts</span><span class="num">Handled</span><span class="num">/s</span>
        <span class="num">Lag</span><span class="num">Pending</span><span class="num">Dead</span><span>Heartbeat</span><span>Last error</span><span />
      </div>
      <For each={props.actors} fallback={<p class="empty">No actors in this process (http only).</p>}>
        {(a) => (
          <div class="actor" role="row" data-actor={a.name} data-state={a.state}>
            <span class="strong" role="cell">{a.name}<small class="muted"> {a.kind}{a.stream ? ` · ${a.stream}` : ""}</small></span>
            <span role="cell"><span class={`state state-${a.state}`}>{a.state}</span></span>
            <span class="num" role="cell" data-field="restarts">{a.restarts}</span>
            <span class="num" role="cell">{fmt(a.handled)}</span>
            <span class="num" role="cell">{a.handled_per_sec.toFixed(1)}</span>
            <span class="num" role="cell">{fmt(a.lag)}</span>
            <span class="num" role="cell">{fmt(a.pending)}</span>
            <span class={`num ${(a.dead_letters ?? 0) > 0 ? "neg" : ""}`} role="cell">{fmt(a.dead_letters)}</span>
            <span class="muted" role="cell">{a.last_heartbeat ? ago(a.last_heartbeat, state.now) : "—"}</span>
            <span class="error-text" role="cell" title={a.last_error ?? ""}>
              <Show when={a.last_error} fallback={<span class="muted">—</span>}>
                {a.last_error}<small class="muted"> {a.last_error_at ? ago(a.last_error_at, state.now) : ""}</small>
              </Show>
            </span>
            <span role="cell">
              <button class="btn btn-small btn-ghost" disabled={state.ops.restarting[a.name] === true} onClick={() => void actions.restartActor(a.name)}>
                {state.ops.restarting[a.name] ? "Restarting…" : "Restart"}
              </button>
            </span>
          </div>
        )}
      </For>
    </div>
  )
}
