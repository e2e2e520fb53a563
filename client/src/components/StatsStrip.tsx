/** Headline figures: tracked wallets, 24h whale buy/sell volume and count, latest block. */
import { Show, type Component } from "solid-js"
import { ago, signedUsd, usd } from "../lib/format"
import { useStore } from "../store"

export const StatsStrip: Component = () => {
  const [state] = useStore()
  return (
    <Show when={state.market.stats} fallback={<div class="stats stats-empty">{state.market.error ?? "Loading market figures…"}</div>}>
      {(s) => (
        <dl class="stats">
          <div><dt>Tracked whales</dt><dd>{s().tracked_wallets.toLocaleString("en-US")}</dd></div>
          <div><dt>24h whale buys</dt><dd class="pos">{usd(s().buy_volume_24h_usd)}</dd></div>
          <div><dt>24h whale sells</dt><dd class="neg">{usd(s().sell_volume_24h_usd)}</dd></div>
          <div><dt>24h net</dt><dd class={s().buy_volume_24h_usd >= s().sell_volume_24h_usd ? "pos" : "neg"}>{signedUsd(s().buy_volume_24h_usd - s().sell_volume_24h_usd)}</dd></div>
          <div><dt>24h transactions</dt><dd>{s().transactions_24h.toLocaleString("en-US")}</dd></div>
          <div>
            <dt>Latest block</dt>
            <dd>{s().latest_block ? `#${s().latest_block!.number.toLocaleString("en-US")}` : "—"}<Show when={s().latest_block}>
              {(b) => <small class="muted"> {ago(b().ts, state.now)}</small>}
            </Show></dd>
          </div>
        </dl>
      )}
    </Show>
  )
}
