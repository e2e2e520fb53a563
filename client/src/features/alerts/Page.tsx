/**
 * `/alerts`: create and edit alerts with their filters and channels, snooze one or mute all, connect the
 * messenger (code and bot name), set up the signed webhook, watch alerts arrive live (`user:<id>`), and read the
 * delivery history with each channel's latency. Custom wallets for the whale tier.
 */
import { createEffect, createSignal, For, on, onCleanup, Show, type Component } from "solid-js"
import type { AlertResponse } from "../../../../schema/http/alerts"
import { onUserEvent } from "../../api/userEvents"
import { Card } from "../../components/Card"
import { WalletLink } from "../../components/WalletLink"
import { ago } from "../../lib/format"
import { Link } from "../../router"
import { useDeps, useStore } from "../../store"
import { ChannelsPanel } from "./Channels"
import { Editor, TYPE_LABELS } from "./Editor"
import { createAlertsStore } from "./store"
import "./alerts.css"

const describe = (a: AlertResponse) =>
  Object.entries(a.params).filter(([, v]) => v !== null).map(([k, v]) => `${k.replace(/_/g, " ")} ${typeof v === "number" && k.endsWith("usd") ? `$${v.toLocaleString("en-US")}` : String(v)}`).join(" · ")

const latency = (ms: number | null) => (ms === null ? "" : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`)

export const AlertsPage: Component = () => {
  const [app] = useStore()
  const deps = useDeps()
  const store = createAlertsStore()
  const s = store.state
  const [editing, setEditing] = createSignal<AlertResponse | null>(null)
  const [editorKey, setEditorKey] = createSignal(0)

  createEffect(on(() => app.session.user?.id, (id) => {
    if (id === undefined) return
    void store.load()
    const stop = onUserEvent(deps.ws, id, "alert", store.onLive)
    onCleanup(stop)
  }))

  const addWallet = async (e: SubmitEvent) => {
    e.preventDefault()
    const form = e.currentTarget as HTMLFormElement
    const data = new FormData(form)
    if (await store.addWallet(String(data.get("address") ?? "").trim(), String(data.get("label") ?? "").trim() || null)) form.reset()
  }

  return (
    <Show when={app.session.checked} fallback={<p class="empty">Loading…</p>}>
      <Show when={app.session.user} fallback={<Card title="Alerts"><p>Alerts are for signed-in users. <Link href="/login?next=/alerts">Sign in</Link> or <Link href="/register">create an account</Link>.</p></Card>}>
        <div class="alerts-page">
          <Show when={s.notice}>{(n) => <p class={n().error ? "notice notice-warn" : "notice"} role="status">{n().text}</p>}</Show>
          <div class="grid alerts-grid">
            <Card title={editing() ? `Edit alert #${editing()!.id}` : "New alert"}>
              <Show when={s.list} fallback={<p class="empty">Loading…</p>}>
                {/* Re-created whenever another alert is picked for editing (or the form is reset). */}
                <For each={[editorKey()]}>
                  {() => <Editor store={store} editing={editing()} onDone={() => { setEditing(null); setEditorKey((k) => k + 1) }} />}
                </For>
              </Show>
            </Card>
            <Card title="Channels"><ChannelsPanel store={store} /></Card>
          </div>

          <Card title="Your alerts" aside={
            <Show when={s.list}>{(l) => (
              <span class="row">
                <span class="muted small">{l().alerts.length}/{l().limits.max_alerts} · {l().limits.tier}</span>
                <Show when={l().muted_until} fallback={<>
                  <button class="btn btn-small btn-quiet" onClick={() => store.mute(1)}>Mute 1 h</button>
                  <button class="btn btn-small btn-quiet" onClick={() => store.mute(8)}>Mute 8 h</button>
                </>}>
                  {(m) => <><span class="pill pill-warn">muted until {new Date(m()).toLocaleTimeString()}</span><button class="btn btn-small" onClick={() => store.mute(0)}>Unmute</button></>}
                </Show>
              </span>
            )}</Show>
          }>
            <Show when={(s.list?.alerts.length ?? 0) > 0} fallback={<p class="empty">No alerts yet: create one above.</p>}>
              <div class="table-wrap">
                <table class="table alerts-table">
                  <thead><tr><th>Alert</th><th>Filters</th><th>Channels</th><th>State</th><th /></tr></thead>
                  <tbody>
                    <For each={s.list?.alerts}>
                      {(a) => (
                        <tr class={a.enabled ? "" : "off"}>
                          <td><strong>{a.name ?? TYPE_LABELS[a.type]}</strong><div class="muted small">#{a.id} {a.name ? TYPE_LABELS[a.type] : ""}</div></td>
                          <td class="small">{describe(a) || "defaults"}</td>
                          <td class="small">{a.channels.join(", ")}</td>
                          <td class="small">
                            {a.snoozed_until ? `snoozed until ${new Date(a.snoozed_until).toLocaleTimeString()}` : a.enabled ? "on" : "off"}
                            <Show when={a.last_fired_at}>{(t) => <div class="muted">fired {ago(t(), app.now)}</div>}</Show>
                          </td>
                          <td class="actions">
                            <button class="btn btn-small btn-quiet" onClick={() => store.toggle(a)}>{a.enabled ? "Pause" : "Resume"}</button>
                            <Show when={a.snoozed_until} fallback={<button class="btn btn-small btn-quiet" onClick={() => store.snooze(a, 24)}>Snooze 24 h</button>}>
                              <button class="btn btn-small btn-quiet" onClick={() => store.snooze(a, 0)}>Unsnooze</button>
                            </Show>
                            <button class="btn btn-small btn-quiet" onClick={() => { setEditing(a); setEditorKey((k) => k + 1) }}>Edit</button>
                            <button class="btn btn-small btn-quiet" onClick={() => store.testType(a.type)}>Sample</button>
                            <button class="btn btn-small btn-danger" onClick={() => store.remove(a.id)}>Delete</button>
                          </td>
                        </tr>
                      )}
                    </For>
                  </tbody>
                </table>
              </div>
            </Show>
          </Card>

          <div class="grid alerts-grid">
            <Card title="Live" aside={<span class="muted small">as they arrive</span>}>
              <Show when={s.live.length > 0} fallback={<p class="empty">Waiting for alerts…</p>}>
                <ul class="live-list">
                  <For each={s.live}>
                    {(x) => (
                      <li>
                        <strong>{x.test ? "🧪 " : ""}{x.title}</strong>
                        <div class="small">{x.summary}</div>
                        <div class="muted small">{ago(x.event_at, app.now)}<Show when={x.url?.startsWith("http")}> · <a href={x.url!} target="_blank" rel="noopener">explorer</a></Show></div>
                      </li>
                    )}
                  </For>
                </ul>
              </Show>
            </Card>
            <Card title="Custom wallets" aside={<Show when={s.wallets}>{(w) => <span class="muted small">{w().wallets.length}/{w().cap}</span>}</Show>}>
              <Show when={(s.wallets?.cap ?? 0) > 0} fallback={<p class="muted">Monitoring your own wallets is part of the whale tier.</p>}>
                <form class="row" onSubmit={addWallet}>
                  <input class="grow" name="address" placeholder="0x… address" required />
                  <input name="label" placeholder="label" maxLength={64} />
                  <button class="btn btn-small" type="submit">Add</button>
                </form>
                <ul class="wallet-list">
                  <For each={s.wallets?.wallets}>
                    {(w) => <li><code><WalletLink address={w.address} label={w.address} /></code> {w.label ?? ""} <button class="btn btn-small btn-quiet" onClick={() => store.removeWallet(w.id)}>Remove</button></li>}
                  </For>
                </ul>
              </Show>
            </Card>
          </div>

          <Card title="History" aside={<span class="row">
            <button class="btn btn-small btn-quiet" disabled={s.historyPage === 0} onClick={() => store.loadHistory(s.historyPage - 1)}>Newer</button>
            <button class="btn btn-small btn-quiet" disabled={!s.historyMore} onClick={() => store.loadHistory(s.historyPage + 1)}>Older</button>
          </span>}>
            <Show when={s.history.length > 0} fallback={<p class="empty">Nothing delivered yet.</p>}>
              <div class="table-wrap">
                <table class="table history-table">
                  <thead><tr><th>When</th><th>Alert</th><th>Channels · latency</th></tr></thead>
                  <tbody>
                    <For each={s.history}>
                      {(h) => (
                        <tr>
                          <td class="small nowrap">{ago(h.created_at, app.now)}</td>
                          <td><strong>{h.title}</strong><div class="muted small">{h.summary}</div></td>
                          <td class="small">
                            <For each={h.channels}>
                              {(c) => <div class={c.status === "sent" ? "" : c.status === "failed" ? "neg" : "muted"} title={c.error ?? ""}>{c.channel}: {c.status}{c.latency_ms !== null ? ` · ${latency(c.latency_ms)}` : ""}{c.attempts > 1 ? ` · ${c.attempts} tries` : ""}</div>}
                            </For>
                          </td>
                        </tr>
                      )}
                    </For>
                  </tbody>
                </table>
              </div>
            </Show>
          </Card>
        </div>
      </Show>
    </Show>
  )
}

/** The page as the console's route table loads it (CONSOLE_PAGES in schema/http/console.ts). */
export default AlertsPage
