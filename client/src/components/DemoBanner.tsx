/** Says plainly when the numbers come from the built-in demo chain. */
import { Show, type Component } from "solid-js"
import { useStore } from "../store"

export const DemoBanner: Component = () => {
  const [state] = useStore()
  const demo = () => state.market.meta?.demo === true || state.feed.trades.some((t) => t.source === "demo")
  return (
    <Show when={demo()}>
      <details class="demo-banner" role="note">
        <summary><strong>Demo data.</strong> Not real market activity.</summary>
        Trades and figures come from the built-in demo chain: real token addresses, generated activity of synthetic
        wallets. Observational data, not financial advice.
      </details>
    </Show>
  )
}
