/**
 * /echo, the copy-trading simulator (whale tier; the server gates the page itself, see server/domains/echo/Page.ts):
 * feed with one-click copy and each wallet's edge-versus-lag curve, the portfolio with its live value, the trade
 * ticket, history, analytics with the copy-versus-whale comparison, the leaderboard, auto-copy and the token chart.
 */
import { createEffect, on, onCleanup, onMount, Show, type Component } from "solid-js"
import { useDeps, useStore } from "../../store"
import "./echo.css"
import { AnalyticsPanel, AutoCopy, Board, Feed, History, Holdings, Summary, Ticket, TokenChart } from "./Panels"
import { createEchoStore } from "./store"

export const EchoPage: Component<{ params: Record<string, string> }> = () => {
  const [shell] = useStore()
  const store = createEchoStore(useDeps())
  onMount(() => void store.start())
  createEffect(on(() => shell.session.user?.id, (id) => { if (id !== undefined) store.follow(id) }))
  onCleanup(store.dispose)
  return (
    <div class="echo">
      <header class="echo-head">
        <h1>Echo <span class="muted small">paper-trading the whales · simulated money, fills at {shell.market.meta?.demo ? "the demo chain's generated prices" : "the whales' recorded prices"}, with slippage and gas</span></h1>
      </header>
      <Show when={store.state.notice}>
        {(n) => <p class={`echo-notice ${n().kind === "error" ? "neg" : "pos"}`} role="status">{n().text}</p>}
      </Show>
      <Summary store={store} live={shell.connection.status} />
      <div class="grid">
        <Holdings store={store} />
        <Ticket store={store} />
        <Feed store={store} />
        <TokenChart store={store} />
        <History store={store} />
        <AnalyticsPanel store={store} />
        <AutoCopy store={store} />
        <Board store={store} />
      </div>
    </div>
  )
}

/** The page as the console's route table loads it (CONSOLE_PAGES in schema/http/console.ts). */
export default EchoPage
