/**
 * "History replaying: N %": on a first start of the demo chain the generated history is stored and its picks
 * replayed for several minutes, and meanwhile picks, the backtest sample and the 30-day charts still move. Shown on
 * those pages until the server says it is done (`GET /api/console/history`, read every few seconds until then).
 */
import { createSignal, onCleanup, onMount, Show, type Component } from "solid-js"
import { ConsoleEndpoints, type HistoryReplay } from "../../../schema/http/console"
import { call } from "../api/http"
import { location } from "../router"

const EVERY_MS = 3_000
/** The pages whose figures come from the history (the rest do not change when it is done). */
const MOVING = ["/", "/sentiment", "/tokens", "/picks", "/backtest", "/playbook"]
const moving = (path: string) => MOVING.includes(path) || path.startsWith("/tokens/")

export const ReplayNote: Component = () => {
  const [replay, setReplay] = createSignal<HistoryReplay | null>(null)
  let timer: ReturnType<typeof setTimeout> | undefined
  const read = async () => {
    const r = await call(ConsoleEndpoints.history).catch(() => null)
    if (r !== null) setReplay(r)
    // Read again while it replays (or when the read failed); once done, never again in this page's life.
    if (r === null || r.replaying) timer = setTimeout(() => void read(), EVERY_MS)
  }
  onMount(() => void read())
  onCleanup(() => clearTimeout(timer))
  return (
    <Show when={replay()?.replaying && moving(location().path) ? replay() : null}>
      {(r) => (
        <p class="replay-note" role="status" aria-live="polite">
          <strong>History replaying: {r().percent} %</strong>
          <span class="muted"> · {r().step === "picks" ? "replaying the picks of" : "storing"} {r().days} days of demo history; picks, the backtest sample and the 30-day charts change until it is done.</span>
        </p>
      )}
    </Show>
  )
}
