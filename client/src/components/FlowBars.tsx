/** Buy and sell volume per token as opposed bars on one scale, with the signed net flow. */
import { For, type Component } from "solid-js"
import type { TopToken } from "../../../schema/http/analytics"
import { signedUsd, usd, tokenName } from "../lib/format"
import { Link } from "../router"

export const FlowBars: Component<{ tokens: ReadonlyArray<TopToken>; limit?: number }> = (props) => {
  const rows = () => props.tokens.slice(0, props.limit ?? props.tokens.length)
  const max = () => Math.max(1, ...rows().flatMap((t) => [t.buy_volume_usd, t.sell_volume_usd]))
  return (
    <div class="flows" classList={{ "flows-compact": props.limit !== undefined }} role="table" aria-label="Top tokens by whale volume">
      <div class="flow flow-head" role="row">
        <span role="columnheader">Token</span>
        <span role="columnheader" class="flow-axis"><span>◀ sell</span><span>buy ▶</span></span>
        <span role="columnheader" class="num flow-vol">Sell / buy</span>
        <span role="columnheader" class="num">Net</span>
        <span role="columnheader" class="num flow-meta">Activity</span>
      </div>
      <For each={rows()} fallback={<p class="empty">No whale volume in this window yet.</p>}>
        {(t) => (
          <div class="flow" role="row">
            <Link href={`/tokens/${t.token}`} class="flow-symbol">{tokenName(t.token, t.symbol)}</Link>
            <div class="flow-bars" role="cell" aria-label={`buy ${usd(t.buy_volume_usd)}, sell ${usd(t.sell_volume_usd)}`}>
              <div class="bar-side bar-sell"><span style={{ width: `${(t.sell_volume_usd / max()) * 100}%` }} /></div>
              <div class="bar-side bar-buy"><span style={{ width: `${(t.buy_volume_usd / max()) * 100}%` }} /></div>
            </div>
            <span role="cell" class="num muted flow-vol">{usd(t.sell_volume_usd)} / {usd(t.buy_volume_usd)}</span>
            <span role="cell" class={`num strong ${t.net_flow_usd >= 0 ? "pos" : "neg"}`}>{signedUsd(t.net_flow_usd)}</span>
            <span role="cell" class="num muted flow-meta">{t.trades} trades · {t.whales} whales</span>
          </div>
        )}
      </For>
    </div>
  )
}
