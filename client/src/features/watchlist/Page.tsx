/** The watchlist page: the caller's tokens with price, change since added and 24 h whale flow, updated live. */
import { createSignal, For, onCleanup, onMount, Show, type Component } from "solid-js"
import { Card } from "../../components/Card"
import { price, signedPct as pct, signedUsd } from "../../lib/format"
import { useDeps, useStore } from "../../store"
import { createWatchlistStore } from "./store"

const cls = (x: number | null) => (x === null || x === 0 ? "" : x > 0 ? "pos" : "neg")

export const WatchlistPage: Component = () => {
  const [session] = useStore()
  const wl = createWatchlistStore(useDeps())
  const [token, setToken] = createSignal("")
  onMount(() => void wl.load())
  onMount(() => {
    const user = session.session.user
    if (user) onCleanup(wl.follow(user.id))
  })
  const submit = async (e: Event) => {
    e.preventDefault()
    if (token().trim() && (await wl.add(token().trim()))) setToken("")
  }
  return (
    <div class="watchlist">
      <Card
        title="Watchlist"
        aside={<Show when={wl.state.list}>{(l) => <span class="muted">{l().items.length} / {l().cap} tokens · live</span>}</Show>}
      >
        <form class="inline-form" onSubmit={submit}>
          <input aria-label="Token symbol or address" placeholder="Symbol or 0x address" value={token()} onInput={(e) => setToken(e.currentTarget.value)} maxLength={64} />
          <button type="submit" disabled={wl.state.busy}>Add</button>
        </form>
        <Show when={wl.state.error}>{(m) => <p class="notice notice-warn" role="alert">{m()}</p>}</Show>
        <Show when={wl.state.loaded} fallback={<p class="empty">Loading…</p>}>
          <Show when={(wl.state.list?.items.length ?? 0) > 0} fallback={<p class="empty">No tokens yet. Add one above, or tap "watch" in a picks e-mail.</p>}>
            <div class="table-wrap">
              <table class="table">
                <thead><tr><th>Token</th><th class="num">Price</th><th class="num">Since added</th><th class="num">Whale net 24h</th><th class="num">Trades</th><th>Pick</th><th /></tr></thead>
                <tbody>
                  <For each={wl.state.list?.items}>
                    {(item) => (
                      <tr class={Date.now() - (wl.state.flash[item.id] ?? 0) < 3_000 ? "flash" : ""}>
                        <td><a href={`/tokens/${item.token}`}>{item.symbol}</a></td>
                        <td class="num">{price(item.price_usd)}</td>
                        <td class={`num ${cls(item.change_pct)}`}>{pct(item.change_pct)}</td>
                        <td class={`num ${cls(item.flow_24h.net_usd)}`}>{signedUsd(item.flow_24h.net_usd)}</td>
                        <td class="num">{item.flow_24h.trades}</td>
                        <td>
                          <Show when={item.open_pick} fallback="—">
                            {(p) => <a href="/picks" title={`Flagged ${p().flagged_at.slice(0, 16).replace("T", " ")} UTC by ${p().whales} whales, conviction ${Math.round(p().conviction)}`}>
                              Open pick <span class={cls(p().change_since_flag_pct)}>{pct(p().change_since_flag_pct)}</span>
                            </a>}
                          </Show>
                        </td>
                        <td><button class="link" aria-label={`Remove ${item.symbol}`} onClick={() => void wl.remove(item.id)}>Remove</button></td>
                      </tr>
                    )}
                  </For>
                </tbody>
              </table>
            </div>
          </Show>
          <Show when={(wl.state.list?.pending.length ?? 0) > 0}>
            <p class="muted">Waiting for your e-mail verification: {wl.state.list?.pending.map((p) => p.symbol).join(", ")}</p>
          </Show>
        </Show>
      </Card>
    </div>
  )
}

/** The page as the console's route table loads it (CONSOLE_PAGES in schema/http/console.ts). */
export default WatchlistPage
