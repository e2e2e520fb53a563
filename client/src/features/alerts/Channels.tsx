/** Channel settings: messenger connect (code + bot name), email, console, the signed webhook (secret shown once). */
import { createSignal, onCleanup, Show, type Component } from "solid-js"
import type { AlertsStore } from "./store"

export const ChannelsPanel: Component<{ store: AlertsStore }> = (props) => {
  const s = () => props.store.state
  const [url, setUrl] = createSignal("")
  let poll: ReturnType<typeof setInterval> | undefined
  const connect = async () => {
    await props.store.connectMessenger()
    clearInterval(poll)
    // Until the bot has bound the chat (or the code expires), look for the connection every few seconds.
    poll = setInterval(() => {
      if (s().channels?.messenger.connected || !s().code || Date.parse(s().code!.expires_at) < Date.now()) clearInterval(poll)
      else void props.store.refreshChannels()
    }, 3_000)
  }
  onCleanup(() => clearInterval(poll))
  return (
    <Show when={s().channels}>
      {(c) => (
        <div class="channel-list">
          <div class="channel">
            <div class="channel-head"><strong>Messenger</strong>
              <span class={c().messenger.connected ? "pill pill-ok" : "pill"}>{c().messenger.connected ? `connected${c().messenger.username ? ` · @${c().messenger.username}` : ""}` : "not connected"}</span>
            </div>
            <Show when={c().messenger.configured} fallback={<p class="muted small">The messenger bot is not configured on this service.</p>}>
              <Show when={s().code} fallback={<button class="btn btn-small" onClick={connect}>{c().messenger.connected ? "Connect another chat" : "Connect"}</button>}>
                {(code) => (
                  <div class="code-box">
                    <p>Send this to <strong>{code().bot_username ? `@${code().bot_username}` : "the bot"}</strong>:</p>
                    <p class="code">/connect {code().code}</p>
                    <p class="muted small">Valid 10 minutes, once. This page notices the connection by itself.</p>
                  </div>
                )}
              </Show>
              <div class="row">
                <button class="btn btn-small btn-quiet" onClick={() => props.store.updateChannels({ messenger: { enabled: !c().messenger.enabled } })}>{c().messenger.enabled ? "Pause" : "Resume"}</button>
                <Show when={c().messenger.connected}><button class="btn btn-small btn-quiet" onClick={() => props.store.test("messenger")}>Send test</button></Show>
              </div>
            </Show>
          </div>
          <div class="channel">
            <div class="channel-head"><strong>Email</strong><span class="muted small">{c().email.address}</span></div>
            <div class="row">
              <button class="btn btn-small btn-quiet" onClick={() => props.store.updateChannels({ email: { enabled: !c().email.enabled } })}>{c().email.enabled ? "Turn off" : "Turn on"}</button>
              <button class="btn btn-small btn-quiet" onClick={() => props.store.test("email")} disabled={!c().email.enabled}>Send test</button>
            </div>
          </div>
          <div class="channel">
            <div class="channel-head"><strong>Live console</strong><span class="muted small">this page, topic {c().console.topic}</span></div>
            <div class="row">
              <button class="btn btn-small btn-quiet" onClick={() => props.store.updateChannels({ console: { enabled: !c().console.enabled } })}>{c().console.enabled ? "Turn off" : "Turn on"}</button>
              <button class="btn btn-small btn-quiet" onClick={() => props.store.test("console")} disabled={!c().console.enabled}>Send test</button>
            </div>
          </div>
          <div class="channel">
            <div class="channel-head"><strong>Webhook</strong>
              <span class={c().webhook.enabled ? "pill pill-ok" : "pill"}>{c().webhook.enabled ? "on" : c().webhook.disabled_reason ?? "off"}</span>
            </div>
            <p class="muted small">Signed like Standard Webhooks: <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code> (HMAC-SHA256). Several alerts of one moment arrive together as one <code>alert.batch</code>; deduplicate on each event's <code>delivery_id</code>.</p>
            <form class="row" onSubmit={(e) => { e.preventDefault(); void props.store.updateChannels({ webhook: { url: url() || c().webhook.url } }) }}>
              <input class="grow" type="url" placeholder={c().webhook.url ?? "https://example.com/hooks/whale"} value={url()} onInput={(e) => setUrl(e.currentTarget.value)} />
              <button class="btn btn-small" type="submit">Save</button>
            </form>
            <Show when={s().secret}>
              {(secret) => (
                <div class="secret-box" role="status">
                  <p><strong>Signing secret — shown only now:</strong></p>
                  <p class="code">{secret()}</p>
                  <button class="btn btn-small btn-quiet" onClick={() => props.store.dismissSecret()}>I stored it</button>
                </div>
              )}
            </Show>
            <div class="row">
              <Show when={c().webhook.url}><button class="btn btn-small btn-quiet" onClick={() => props.store.updateChannels({ webhook: { enabled: !c().webhook.enabled } })}>{c().webhook.enabled ? "Turn off" : "Turn on"}</button></Show>
              <Show when={c().webhook.secret_set}><button class="btn btn-small btn-quiet" onClick={() => props.store.updateChannels({ webhook: { rotate_secret: true } })}>New secret</button></Show>
              <Show when={c().webhook.enabled}><button class="btn btn-small btn-quiet" onClick={() => props.store.test("webhook")}>Send test</button></Show>
            </div>
          </div>
          <p class="muted small">At most {c().budget_per_hour} notifications an hour; the rest come as one digest. Cooldowns: whale trade {c().cooldowns.whale_trade} s, exchange flow {c().cooldowns.exchange_flow} s, index {c().cooldowns.index_cross} s.</p>
        </div>
      )}
    </Show>
  )
}
