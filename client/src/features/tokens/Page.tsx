/** Top tokens by 24h whale volume: buy against sell, net flow, trades and whales; stablecoins excluded. */
import { Show, type Component } from "solid-js"
import { Card } from "../../components/Card"
import { FlowBars } from "../../components/FlowBars"
import { useStore } from "../../store"

export const Tokens: Component = () => {
  const [state] = useStore()
  return (
    <Card title="Top tokens · 24h whale volume" aside={<span class="legend"><span class="key key-sell" />sell <span class="key key-buy" />buy</span>}>
      <Show when={state.market.top} fallback={<p class="empty">{state.market.error ?? "Loading top tokens…"}</p>}>
        {(top) => <FlowBars tokens={top().tokens} />}
      </Show>
      <p class="muted small">Stablecoins excluded. Net flow is whale buying minus selling on DEXes. Select a token for its chart and trades.</p>
    </Card>
  )
}

/** The page as the console's route table loads it (CONSOLE_PAGES in schema/http/console.ts). */
export default Tokens
