/**
 * The operators' dashboard (administrators): every process's actors with their health, live over `ops:actors`,
 * with a restart button each; bus, stream and database figures; links to the raw endpoints.
 */
import { createMemo, For, onCleanup, onMount, Show, type Component } from "solid-js"
import { OpsEndpoints } from "../../../../schema/http/ops"
import type { OpsReport } from "../../../../schema/ws"
import { Card } from "../../components/Card"
import { ActorTable } from "../../components/ActorTable"
import { ago, duration } from "../../lib/format"
import { Link } from "../../router"
import { useStore } from "../../store"

/** A process silent for this long is shown as gone (it reports every few seconds). */
const STALE_MS = 30_000

const ProcessCard: Component<{ report: OpsReport }> = (props) => {
  const [state] = useStore()
  const stale = () => state.now - Date.parse(props.report.at) > STALE_MS
  return (
    <Card
      title={`${props.report.host} · pid ${props.report.pid}`}
      class={stale() ? "process stale" : "process"}
      aside={<span class="muted">{props.report.roles.join(", ")} · up {duration(props.report.uptime_seconds)} · reported {ago(props.report.at, state.now)}</span>}
    >
      <dl class="figures">
        <div><dt>Bus</dt><dd class={props.report.bus.ok ? "" : "neg"}>{props.report.bus.kind} {props.report.bus.ok ? "ok" : "DOWN"}</dd></div>
        <div><dt>Published / acked</dt><dd>{props.report.bus.published.toLocaleString("en-US")} / {props.report.bus.acked.toLocaleString("en-US")}</dd></div>
        <div><dt>Dead-lettered</dt><dd class={props.report.bus.dead_lettered > 0 ? "neg" : ""}>{props.report.bus.dead_lettered}</dd></div>
        <div><dt>Database</dt><dd class={props.report.db.ok ? "" : "neg"}>{props.report.db.kind} {props.report.db.ok ? `ok · ${props.report.db.ms} ms` : "DOWN"}</dd></div>
        <div><dt>Pool (busy/total/max)</dt><dd>{props.report.db.total - props.report.db.idle}/{props.report.db.total}/{props.report.db.max}{props.report.db.waiting > 0 ? ` · ${props.report.db.waiting} waiting` : ""}</dd></div>
        <Show when={props.report.ws}>{(ws) => <div><dt>WebSockets</dt><dd>{ws().connections}</dd></div>}</Show>
        <For each={props.report.streams}>
          {(s) => <div><dt>Stream {s.name}</dt><dd>{s.length.toLocaleString("en-US")} entries{s.dead_letters > 0 ? ` · ${s.dead_letters} dead` : ""}</dd></div>}
        </For>
      </dl>
      <ActorTable actors={props.report.actors} />
    </Card>
  )
}

export const Ops: Component = () => {
  const [state, actions] = useStore()
  const admin = () => state.session.user?.admin === true
  onMount(() => {
    const stop = actions.followOps()
    onCleanup(stop)
  })
  const reports = createMemo(() => Object.values(state.ops.reports).sort((a, b) => a.host.localeCompare(b.host) || a.pid - b.pid))
  return (
    <Show when={state.session.checked} fallback={<p class="empty">Loading…</p>}>
      <Show
        when={admin()}
        fallback={
          <Card title="Operations" class="narrow">
            <p class="notice notice-warn" role="alert">Administrators only.</p>
            <Show when={!state.session.user}>
              <p><Link href="/login?next=/ops">Sign in</Link> with an administrator account.</p>
            </Show>
          </Card>
        }
      >
        <div class="ops">
          <div class="ops-head">
            <h1>Operations</h1>
            <nav class="ops-links">
              <span class="muted" title="Prometheus text on each process's METRICS_PORT (127.0.0.1:9464 by default), or on this port with the METRICS_TOKEN bearer token">/metrics: METRICS_PORT</span>
              <a href="/readyz" target="_blank" rel="noopener">/readyz</a>
              <a href="/healthz" target="_blank" rel="noopener">/healthz</a>
              <a href={OpsEndpoints.openapi.path} target="_blank" rel="noopener">{OpsEndpoints.openapi.path}</a>
            </nav>
          </div>
          <Show when={state.ops.notice}>{(n) => <p class="notice" role="status">{n()}</p>}</Show>
          <Show when={state.ops.error}>{(e) => <p class="notice notice-warn" role="alert">{e()}</p>}</Show>
          <For each={reports()} fallback={<p class="empty">Waiting for the first process report…</p>}>
            {(r) => <ProcessCard report={r} />}
          </For>
        </div>
      </Show>
    </Show>
  )
}

/** The page as the console's route table loads it (CONSOLE_PAGES in schema/http/console.ts). */
export default Ops
