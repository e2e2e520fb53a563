/**
 * One process's actors: state, restarts, last error, throughput, lag, pending, dead letters, heartbeat, restart.
 * A restart asks for confirmation first (a second click within a few seconds); on phones each actor is a card
 * whose figures carry their own labels.
 */
import { createSignal, For, onCleanup, Show, type Component } from "solid-js"
import type { ActorReport } from "../../../schema/ws"
import { ago } from "../lib/format"
import { useStore } from "../store"

const fmt = (n: number | null) => (n === null ? "—" : n.toLocaleString("en-US"))
/** How long the "Confirm restart" button waits for its second click. */
const CONFIRM_MS = 6_000

/**
 * The restart button of one actor. Which actor awaits its second click is kept by the table, not by the row: every
 * ops report (every few seconds) re-renders the rows, and a row-local state would forget the first click.
 */
const RestartButton: Component<{ name: string; confirming: boolean; onAsk: () => void; onCancel: () => void }> = (props) => {
  const [state, actions] = useStore()
  return (
    <Show
      when={props.confirming}
      fallback={
        <button class="btn btn-small btn-ghost" disabled={state.ops.restarting[props.name] === true} onClick={() => props.onAsk()}>
          {state.ops.restarting[props.name] ? "Restarting…" : "Restart"}
        </button>
      }
    >
      <span class="confirm" role="group" aria-label={`Restart ${props.name}?`}>
        <button class="btn btn-small btn-danger" onClick={() => {
          props.onCancel()
          void actions.restartActor(props.name)
        }}>Confirm restart</button>
        <button class="btn btn-small btn-ghost" onClick={() => props.onCancel()}>Cancel</button>
      </span>
    </Show>
  )
}

export const ActorTable: Component<{ actors: ReadonlyArray<ActorReport> }> = (props) => {
  const [state] = useStore()
  const [confirming, setConfirming] = createSignal<string | null>(null)
  let timer: ReturnType<typeof setTimeout> | undefined
  const cancel = () => {
    clearTimeout(timer)
    setConfirming(null)
  }
  const ask = (name: string) => {
    clearTimeout(timer)
    setConfirming(name)
    timer = setTimeout(cancel, CONFIRM_MS)
  }
  onCleanup(() => clearTimeout(timer))
  return (
    <div class="actors" role="table" aria-label="Actors">
      <div class="actor actor-head" role="row">
        <span>Actor</span><span>State</span><span class="num">Restarts</span><span class="num">Handled</span><span class="num">/s</span>
        <span class="num">Lag</span><span class="num">Pending</span><span class="num">Dead</span><span>Heartbeat</span><span>Last error</span><span />
      </div>
      <For each={props.actors} fallback={<p class="empty">No actors in this process (http only).</p>}>
        {(a) => (
          <div class="actor" role="row" data-actor={a.name} data-state={a.state}>
            <span class="strong c-name" role="cell">{a.name}<small class="muted"> {a.kind}{a.stream ? ` · ${a.stream}` : ""}</small></span>
            <span role="cell" class="c-state"><span class={`state state-${a.state}`}>{a.state}</span></span>
            <span class="num" role="cell" data-label="Restarts" data-field="restarts">{a.restarts}</span>
            <span class="num" role="cell" data-label="Handled">{fmt(a.handled)}</span>
            <span class="num" role="cell" data-label="/s">{a.handled_per_sec.toFixed(1)}</span>
            <span class="num" role="cell" data-label="Lag">{fmt(a.lag)}</span>
            <span class="num" role="cell" data-label="Pending">{fmt(a.pending)}</span>
            <span class={`num ${(a.dead_letters ?? 0) > 0 ? "neg" : ""}`} role="cell" data-label="Dead">{fmt(a.dead_letters)}</span>
            <span class="muted" role="cell" data-label="Heartbeat">{a.last_heartbeat ? ago(a.last_heartbeat, state.now) : "—"}</span>
            <span class="error-text c-error" role="cell" title={a.last_error ?? ""}>
              <Show when={a.last_error} fallback={<span class="muted">—</span>}>
                {a.last_error}<small class="muted"> {a.last_error_at ? ago(a.last_error_at, state.now) : ""}</small>
              </Show>
            </span>
            <span role="cell" class="c-restart"><RestartButton name={a.name} confirming={confirming() === a.name} onAsk={() => ask(a.name)} onCancel={cancel} /></span>
          </div>
        )}
      </For>
    </div>
  )
}
