/**
 * The account page (/account): who you are (name, e-mail, plan, account type), your password, where you are
 * signed in (sign a session out), your data API keys (a new key is shown once, with a copy button and a curl
 * example; list by prefix, revoke) with today's usage against the daily quota, and links to your alert channels
 * and billing.
 */
import { createResource, createSignal, For, Show, type Component } from "solid-js"
import type { CreateKeyResponse } from "../../../../schema/http/apikeys"
import { Card } from "../../components/Card"
import { HttpError } from "../../api/http"
import { ago } from "../../lib/format"
import { useStore } from "../../store"
import { accountApi as api } from "./api"

const messageOf = (e: unknown) => (e instanceof HttpError ? e.message : "Something went wrong; try again.")
const TIER_NAMES: Record<string, string> = { free: "Free", pro: "Pro", alpha: "Alpha", whale: "Whale", staff: "Staff" }
/** A short description of a browser from its user agent ("Chrome on Linux"). */
const deviceOf = (ua: string | null) => {
  if (!ua) return "Unknown device"
  const browser = /Edg\//.test(ua) ? "Edge" : /Firefox\//.test(ua) ? "Firefox" : /Chrome\//.test(ua) ? "Chrome" : /Safari\//.test(ua) ? "Safari" : /curl\//.test(ua) ? "curl" : null
  const os = /Android/.test(ua) ? "Android" : /iPhone|iPad/.test(ua) ? "iOS" : /Windows/.test(ua) ? "Windows" : /Mac OS X/.test(ua) ? "macOS" : /Linux/.test(ua) ? "Linux" : null
  return browser && os ? `${browser} on ${os}` : browser ?? os ?? ua.slice(0, 60)
}

export const AccountPage: Component = () => {
  const [state] = useStore()
  const now = () => state.now
  const [me, { refetch: reloadMe }] = createResource(api.me)
  const [sessions, { refetch: reloadSessions }] = createResource(api.sessions)
  const [keys, { refetch: reloadKeys }] = createResource(api.keys)
  const [usage, { refetch: reloadUsage }] = createResource(api.usage)
  const [notice, setNotice] = createSignal<string | null>(null)
  const [error, setError] = createSignal<string | null>(null)
  const [name, setName] = createSignal<string | null>(null)
  const [current, setCurrent] = createSignal("")
  const [next, setNext] = createSignal("")
  const [keyName, setKeyName] = createSignal("")
  const [created, setCreated] = createSignal<CreateKeyResponse | null>(null)
  const [copied, setCopied] = createSignal(false)
  const whale = () => ["whale", "staff"].includes(me()?.tier ?? "") || me()?.admin === true

  const act = async (f: () => Promise<unknown>, done: string) => {
    setError(null)
    setNotice(null)
    try {
      await f()
      setNotice(done)
    } catch (e) {
      setError(messageOf(e))
    }
  }
  const saveName = (e: Event) => {
    e.preventDefault()
    void act(async () => {
      await api.profile(name() ?? me()?.display_name ?? "")
      await reloadMe()
    }, "Name saved.")
  }
  const changePassword = (e: Event) => {
    e.preventDefault()
    void act(async () => {
      await api.password(current(), next())
      setCurrent("")
      setNext("")
      await reloadSessions()
    }, "Password changed. Every other session was signed out.")
  }
  const createKey = (e: Event) => {
    e.preventDefault()
    void act(async () => {
      setCreated(await api.createKey(keyName().trim() || "API key"))
      setCopied(false)
      setKeyName("")
      await Promise.all([reloadKeys(), reloadUsage()])
    }, "Key created. Copy it now: it is shown only once.")
  }
  const copyKey = async () => {
    const k = created()
    if (!k) return
    try {
      await navigator.clipboard.writeText(k.key)
      setCopied(true)
    } catch {
      setError("Could not copy; select the key and copy it by hand.")
    }
  }
  const origin = () => window.location.origin

  return (
    <div class="account-page">
      <Show when={notice()}>{(m) => <p class="notice" role="status">{m()}</p>}</Show>
      <Show when={error()}>{(m) => <p class="notice notice-warn" role="alert">{m()}</p>}</Show>

      <Card title="Profile">
        <Show when={me()} fallback={<p class="empty">{me.error ? messageOf(me.error) : "Loading…"}</p>}>
          {(m) => (
            <>
              <dl class="facts">
                <dt>E-mail</dt><dd>{m().email} {m().email_verified ? "" : <span class="muted">(not verified yet)</span>}</dd>
                <dt>Plan</dt><dd><strong>{TIER_NAMES[m().tier] ?? m().tier}</strong>{m().admin ? " · administrator" : ""} · <a href="/billing">billing</a> · <a href="/pricing">compare plans</a></dd>
                <dt>Account type</dt><dd>{m().account_type === "business" ? `Business${m().company ? ` (${m().company!.name})` : ""}` : "Personal"}</dd>
              </dl>
              <form class="inline-form" onSubmit={saveName}>
                <label for="display-name">Display name</label>
                <input id="display-name" maxLength={64} placeholder="Shown on the Echo leaderboard" value={name() ?? m().display_name ?? ""} onInput={(e) => setName(e.currentTarget.value)} />
                <button type="submit">Save</button>
              </form>
            </>
          )}
        </Show>
      </Card>

      <Card title="Password">
        <form class="stack-form" onSubmit={changePassword}>
          <label for="current-password">Current password</label>
          <input id="current-password" type="password" autocomplete="current-password" required value={current()} onInput={(e) => setCurrent(e.currentTarget.value)} />
          <label for="new-password">New password</label>
          <input id="new-password" type="password" autocomplete="new-password" minLength={10} required value={next()} onInput={(e) => setNext(e.currentTarget.value)} />
          <button type="submit" disabled={current() === "" || next().length < 10}>Change password</button>
          <p class="muted small">Changing it signs out every other session.</p>
        </form>
      </Card>

      <Card title="Where you are signed in" aside={<Show when={sessions()}>{(s) => <span class="muted">{s().sessions.length} active</span>}</Show>}>
        <Show when={sessions()} fallback={<p class="empty">{sessions.error ? messageOf(sessions.error) : "Loading…"}</p>}>
          {(s) => (
            <ul class="rows">
              <For each={s().sessions}>
                {(x) => (
                  <li class="row">
                    <span><strong>{deviceOf(x.user_agent)}</strong>{x.current ? <span class="pill"> this browser</span> : ""}<br />
                      <span class="muted small">{x.ip ?? "address unknown"} · signed in {ago(x.created_at, now())} · last used {ago(x.last_used_at, now())}</span></span>
                    <Show when={!x.current}>
                      <button class="link" onClick={() => void act(async () => { await api.revokeSession(x.id); await reloadSessions() }, "That session is signed out.")}>Sign out</button>
                    </Show>
                  </li>
                )}
              </For>
            </ul>
          )}
        </Show>
      </Card>

      <Card title="Data API keys" aside={<Show when={usage()}>{(u) => <span class="muted">today {u().used.toLocaleString("en-US")} / {u().limit.toLocaleString("en-US")} requests</span>}</Show>}>
        <Show when={whale()} fallback={<p class="empty">API keys come with the Whale plan. <a href="/pricing">Compare plans</a> · <a href="/docs">API documentation</a></p>}>
          <Show when={created()}>
            {(k) => (
              <div class="new-key" role="region" aria-label="Your new key">
                <p><strong>{k().name}</strong>: copy this key now. It is shown only once; we keep only a hash of it.</p>
                <div class="inline-form">
                  <input class="mono" readOnly aria-label="New API key" value={k().key} onFocus={(e) => e.currentTarget.select()} />
                  <button type="button" onClick={() => void copyKey()}>{copied() ? "Copied" : "Copy"}</button>
                </div>
                <p class="muted small">Try it:</p>
                <pre class="mono small">{`curl -H "X-API-Key: ${k().key}" ${origin()}/api/v1/whale-index`}</pre>
              </div>
            )}
          </Show>
          <form class="inline-form" onSubmit={createKey}>
            <input aria-label="Key name" maxLength={64} placeholder="Name, e.g. trading bot" value={keyName()} onInput={(e) => setKeyName(e.currentTarget.value)} />
            <button type="submit" disabled={(keys()?.keys.length ?? 0) >= (keys()?.max_active ?? 10)}>Create key</button>
          </form>
          <Show when={keys()} fallback={<p class="empty">Loading…</p>}>
            {(list) => (
              <Show when={list().keys.length > 0} fallback={<p class="empty">No keys yet.</p>}>
                <div class="table-wrap">
                  <table class="table">
                    <thead><tr><th>Name</th><th>Key</th><th>Created</th><th>Last used</th><th class="num">Requests today</th><th /></tr></thead>
                    <tbody>
                      <For each={list().keys}>
                        {(k) => (
                          <tr>
                            <td>{k.name}</td>
                            <td class="mono">{k.prefix}…</td>
                            <td>{ago(k.created_at, now())}</td>
                            <td>{k.last_used_at ? ago(k.last_used_at, now()) : "never"}</td>
                            <td class="num">{(usage()?.keys.find((u) => u.prefix === k.prefix)?.requests ?? 0).toLocaleString("en-US")}</td>
                            <td><button class="link" aria-label={`Revoke ${k.name}`} onClick={() => {
                              if (!window.confirm(`Revoke "${k.name}" (${k.prefix}…)? Programs using it stop working at once.`)) return
                              void act(async () => { await api.revokeKey(k.prefix); await Promise.all([reloadKeys(), reloadUsage()]) }, "Key revoked.")
                            }}>Revoke</button></td>
                          </tr>
                        )}
                      </For>
                    </tbody>
                  </table>
                </div>
                <p class="muted small">{list().keys.length} of {list().max_active} keys · the quota resets at 00:00 UTC · <a href="/docs">API documentation</a></p>
              </Show>
            )}
          </Show>
        </Show>
      </Card>

      <Card title="Channels">
        <p>Alerts reach you in the console, by e-mail, on a messenger bot or at your own webhook: <a href="/alerts">set up your channels and alerts</a>.</p>
      </Card>
    </div>
  )
}

/** The page as the console's route table loads it (CONSOLE_PAGES in schema/http/console.ts). */
export default AccountPage
