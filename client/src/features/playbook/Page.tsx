/**
 * The event playbook (whale tier; the server gates the page): the live event with its real-time flow, upcoming
 * events with the pre-positioning gauge, past events, one event's metrics, flow (5-minute or hourly), signals,
 * recovery and a comparison, reaction patterns by category, confluence — and, for administrators, creating events
 * and moving them SCHEDULED → LIVE → COMPLETED.
 */
import { createSignal, For, onCleanup, onMount, Show, type Component } from "solid-js"
import { CATEGORIES, type EventCategory, type Figures, type SpanMetrics } from "../../../../schema/http/playbook"
import { Card } from "../../components/Card"
import { WalletLink } from "../../components/WalletLink"
import { ago, countdown, signedUsd, usd } from "../../lib/format"
import { useDeps, useStore } from "../../store"
import { FlowChart } from "./FlowChart"
import { createPlaybookStore } from "./store"
import "./playbook.css"

const when = (iso: string) => new Date(iso).toISOString().slice(0, 16).replace("T", " ") + " UTC"
const ratio = (r: number | null) => (r === null ? "–" : `${r.toFixed(2)}×`)
const z = (v: number | null) => (v === null ? "–" : v.toFixed(2))
const ROWS: ReadonlyArray<[keyof Figures, string]> = [
  ["dex_buy_usd", "DEX buys"], ["dex_sell_usd", "DEX sells"], ["exchange_withdraw_usd", "Exchange withdrawals"],
  ["exchange_deposit_usd", "Exchange deposits"], ["net_flow_usd", "Net flow"], ["whales_active", "Whales active"], ["records", "Records"]
]
const fmt = (k: keyof Figures, v: number) => (k === "whales_active" || k === "records" ? String(v) : k === "net_flow_usd" ? signedUsd(v) : usd(v))

const SpanTable: Component<{ span: SpanMetrics; title: string }> = (props) => (
  <table class="table pb-metrics">
    <caption class="muted small">{props.title} · {when(props.span.from)} → {when(props.span.to)}</caption>
    <thead><tr><th /><th class="num">Value</th><th class="num">vs 7-day</th><th class="num">z</th></tr></thead>
    <tbody>
      {/* A window without a single whale record has no figures to show: say so instead of a column of $0. */}
      <Show when={props.span.figures.records > 0} fallback={<tr><td colSpan={4} class="empty">No data in range: no whale record in this window.</td></tr>}>
        <For each={ROWS}>
          {([k, label]) => (
            <tr><td>{label}</td><td class="num">{fmt(k, props.span.figures[k])}</td><td class="num">{ratio(props.span.ratio[k])}</td><td class="num">{z(props.span.z[k])}</td></tr>
          )}
        </For>
      </Show>
    </tbody>
  </table>
)

export const PlaybookPage: Component = () => {
  const [shell] = useStore()
  const pb = createPlaybookStore(useDeps())
  const s = pb.state
  const isAdmin = () => shell.session.user?.admin === true
  onMount(() => {
    void pb.loadAll()
    const stop = pb.follow()
    const timer = setInterval(() => void pb.loadAll(), 60_000)
    onCleanup(() => {
      stop()
      clearInterval(timer)
    })
  })
  const [form, setForm] = createSignal({ title: "", category: "other" as EventCategory, timestamp: "", severity: 3, tokens: "" })

  return (
    <div class="grid pb">
      <Show when={s.error}><p class="pill pill-warn span-2" role="alert">{s.error}</p></Show>
      <Show when={s.notice}><p class="muted span-2" role="status">{s.notice}</p></Show>

      <Card title="Live event" class="span-2" aside={<span class={s.live ? "pill pill-live" : "muted"}>{s.live ? "LIVE" : "none live"}</span>}>
        <Show when={s.live} fallback={<p class="empty">No event is live. Upcoming events and their positioning are below.</p>}>
          {(live) => (
            <>
              <p><strong>{live().event.title}</strong> <span class="muted">· {when(live().event.timestamp)} · severity {live().event.severity}</span></p>
              <Show when={live().live} fallback={<p class="muted">Waiting for the first whale records of the window…</p>}>
                {(snap) => (
                  <>
                    <div class="pb-totals">
                      <span>Buys <strong>{usd(snap().totals.dex_buy_usd)}</strong></span>
                      <span>Sells <strong>{usd(snap().totals.dex_sell_usd)}</strong></span>
                      <span>Net <strong class={snap().totals.net_flow_usd >= 0 ? "pos" : "neg"}>{signedUsd(snap().totals.net_flow_usd)}</strong></span>
                      <span>Whales <strong>{snap().totals.whales_active}</strong></span>
                      <span class="muted">updated {ago(snap().as_of, shell.now)}</span>
                    </div>
                    <FlowChart buckets={snap().buckets} label="Live net flow per 5 minutes" height={200} />
                    <p class="muted small">First movers after the timestamp:</p>
                    <ol class="pb-fastest">
                      <For each={snap().fastest} fallback={<li class="muted">none yet</li>}>
                        {(t) => <li>{t.symbol} {t.category.replace("_", " ")} {usd(t.usd)} · <WalletLink address={t.wallet} label={t.wallet_label} /> · +{Math.round(t.seconds_from_event)} s</li>}
                      </For>
                    </ol>
                  </>
                )}
              </Show>
              <Show when={isAdmin()}>
                <button class="btn btn-small" disabled={s.busy} onClick={() => void pb.complete(live().event.id)}>Complete event</button>
              </Show>
            </>
          )}
        </Show>
      </Card>

      <Card title="Upcoming · pre-positioning" aside={<span class="muted small">whale activity vs 7-day baseline</span>}>
        <For each={s.positioning?.events ?? []} fallback={<p class="empty">{s.positioning ? "No scheduled event in the next 60 days." : "Loading…"}</p>}>
          {(p) => (
            <div class="pb-upcoming">
              <div>
                <strong>{p.event.title}</strong>
                <div class="muted small">{when(p.event.timestamp)} · {countdown(p.hours_until)} · {p.direction}</div>
              </div>
              <div class="meter" aria-label={`Positioning gauge ${p.gauge} of 100`}>
                <span style={{ width: `${p.gauge}%` }} class={p.direction === "distributing" ? "meter-neg" : "meter-pos"} />
              </div>
              <span class="num strong">{p.gauge}</span>
              <Show when={isAdmin() && !s.live}>
                <button class="btn btn-small btn-ghost" disabled={s.busy} onClick={() => void pb.goLive(p.event.id)}>Go live</button>
              </Show>
            </div>
          )}
        </For>
      </Card>

      <Card title="Past events">
        <div class="pb-past" role="list">
          <For each={s.past?.events ?? []} fallback={<p class="empty">Loading…</p>}>
            {(e) => (
              <button role="listitem" class={`pb-past-item${s.selected.id === e.id ? " active" : ""}`} onClick={() => void pb.select(e.id)}>
                <span class="muted small">{e.timestamp.slice(0, 10)}</span> <span>{e.title}</span>
                <Show when={e.final_metrics}>{(m) => <span class="num small"> {signedUsd(m().whole.figures.net_flow_usd)}</span>}</Show>
              </button>
            )}
          </For>
        </div>
      </Card>

      <Card title={s.selected.detail ? s.selected.detail.title : "Event"} class="span-2"
        aside={<Show when={s.selected.detail}>{(d) => <span class="muted small">{d().category.toUpperCase()} · {when(d().timestamp)} · {d().status}{d().source_url ? " · " : ""}<Show when={d().source_url}>{(u) => <a href={u()} target="_blank" rel="noreferrer">source</a>}</Show></span>}</Show>}>
        <Show when={s.selected.detail} fallback={<p class="empty">Pick a past event.</p>}>
          {(d) => (
            <Show when={d().metrics} fallback={<p class="empty">The window has not opened yet.</p>}>
              {(m) => (
                <>
                  <div class="pb-spans">
                    <SpanTable span={m().pre} title={`Before (${m().window.pre_hours} h)`} />
                    <SpanTable span={m().post} title={`After (${m().window.post_hours} h)`} />
                  </div>
                  <p class="muted small">
                    Baseline: {m().baseline_slots} slot(s) of the 7 days before · z against {m().matched_windows.used} matched week(s) ({m().matched_windows.excluded} excluded) ·
                    recovery: {s.selected.recovery?.recovery_hour === null || !s.selected.recovery ? "not within the window" : s.selected.recovery.recovery_hour === 0 ? "no reversal" : `hour ${s.selected.recovery.recovery_hour}`}
                  </p>
                  <div class="pb-toolbar">
                    <span class="muted small">Flow</span>
                    <For each={[5, 60]}>{(b) => <button class={`btn btn-small${s.selected.bucket === b ? "" : " btn-ghost"}`} onClick={() => void pb.setBucket(b)}>{b === 5 ? "5 min" : "hourly"}</button>}</For>
                  </div>
                  <Show when={s.selected.flow}>{(f) => <FlowChart buckets={f().buckets} label="Net flow over the window" cumulative />}</Show>
                  <Show when={s.selected.signals}>
                    {(sig) => (
                      <div class="pb-signals">
                        <div>
                          <p class="muted small">Biggest trades, 6 h before</p>
                          <ol><For each={sig().biggest_trades.slice(0, 5)} fallback={<li class="muted">none</li>}>{(t) => <li>{t.symbol} {t.category.replace("_", " ")} {usd(t.usd)}</li>}</For></ol>
                        </div>
                        <div>
                          <p class="muted small">Most active wallets, 6 h before</p>
                          <ol><For each={sig().active_wallets.slice(0, 5)} fallback={<li class="muted">none</li>}>{(w) => <li><WalletLink address={w.wallet} label={w.label} /> · {w.records} · {signedUsd(w.net_flow_usd)}</li>}</For></ol>
                        </div>
                      </div>
                    )}
                  </Show>
                  <label class="muted small">Compare with{" "}
                    <select onChange={(e) => void pb.compare(e.currentTarget.value === "" ? null : Number(e.currentTarget.value))}>
                      <option value="">—</option>
                      <For each={(s.past?.events ?? []).filter((e) => e.id !== d().id)}>{(e) => <option value={e.id}>{e.timestamp.slice(0, 10)} {e.title}</option>}</For>
                    </select>
                  </label>
                  <Show when={s.selected.compare?.differences}>
                    {(diff) => <p class="small">Other event minus this one: net flow {signedUsd(-diff().whole.net_flow_usd)}, before {signedUsd(-diff().pre_net_flow_usd)}, after {signedUsd(-diff().post_net_flow_usd)}.</p>}
                  </Show>
                </>
              )}
            </Show>
          )}
        </Show>
      </Card>

      <Card title="Reaction patterns by category" class="span-2" aside={<span class="muted small" title={s.patterns?.method}>how these are computed</span>}>
        <table class="table">
          <thead><tr><th>Category</th><th class="num">n</th><th class="num">Mean before</th><th class="num">Mean after</th><th class="num">95 % interval</th><th class="num">Hit rate</th><th class="num">Recovery (h)</th><th>Verdict</th></tr></thead>
          <tbody>
            <For each={s.patterns?.categories ?? []} fallback={<tr><td colSpan={8} class="empty">{s.patterns ? "No past events yet." : "Loading…"}</td></tr>}>
              {(p) => (
                <tr>
                  <td>{p.category.toUpperCase()}</td><td class="num">{p.n}</td>
                  {/* Events whose windows hold no whale flow at all say so, instead of "$0 / $0 … no measurable effect". */}
                  <Show when={p.n > 0 && (p.pre.mean_net_flow_usd !== 0 || p.post.mean_net_flow_usd !== 0)} fallback={<td colSpan={6} class="muted">no data in range</td>}>
                    <td class="num">{signedUsd(p.pre.mean_net_flow_usd)}</td><td class="num">{signedUsd(p.post.mean_net_flow_usd)}</td>
                    <td class="num">{p.ci95 ? `${signedUsd(p.ci95[0])} … ${signedUsd(p.ci95[1])}` : "–"}</td>
                    <td class="num">{p.hit_rate === null ? "–" : `${Math.round(p.hit_rate * 100)} %`}</td>
                    <td class="num">{p.median_recovery_hours ?? "–"}</td><td>{p.verdict}</td>
                  </Show>
                </tr>
              )}
            </For>
          </tbody>
        </table>
      </Card>

      <Card title="Confluence · high-severity clusters within 14 days">
        <For each={[...(s.confluence?.upcoming ?? []), ...(s.confluence?.past ?? []).slice(0, 4)]} fallback={<p class="empty">No cluster.</p>}>
          {(c) => <p class="small"><strong>{c.from.slice(0, 10)} → {c.to.slice(0, 10)}</strong> · {c.events.map((e) => e.title).join(" · ")}</p>}
        </For>
      </Card>

      <Show when={isAdmin()}>
        <Card title="New event (admin)">
          <form class="pb-form" onSubmit={(e) => {
            e.preventDefault()
            const f = form()
            void pb.create({
              title: f.title, category: f.category, timestamp: f.timestamp.length === 16 ? `${f.timestamp}:00Z` : f.timestamp, severity: f.severity,
              tokens: f.tokens.split(",").map((t) => t.trim()).filter(Boolean)
            })
          }}>
            <input placeholder="Title" required value={form().title} onInput={(e) => setForm({ ...form(), title: e.currentTarget.value })} />
            <select value={form().category} onChange={(e) => setForm({ ...form(), category: e.currentTarget.value as EventCategory })}>
              <For each={CATEGORIES}>{(c) => <option value={c}>{c}</option>}</For>
            </select>
            <input type="datetime-local" required aria-label="Time (UTC)" value={form().timestamp} onInput={(e) => setForm({ ...form(), timestamp: e.currentTarget.value })} />
            <input type="number" min="1" max="5" aria-label="Severity" value={form().severity} onInput={(e) => setForm({ ...form(), severity: Number(e.currentTarget.value) })} />
            <input placeholder="Tokens (ETH, WBTC)" value={form().tokens} onInput={(e) => setForm({ ...form(), tokens: e.currentTarget.value })} />
            <button class="btn btn-small" disabled={s.busy}>Create</button>
          </form>
        </Card>
      </Show>
      <p class="muted small span-2">Observational on-chain data about tracked whale wallets, not financial advice.</p>
    </div>
  )
}

/** The page as the console's route table loads it (CONSOLE_PAGES in schema/http/console.ts). */
export default PlaybookPage
