/** One token: whale flows per timeframe, a price/flow chart of its whale trades, and those trades, live. */
import { createEffect, createMemo, createSignal, For, on, Show, type Component } from "solid-js"
import type { TokenFlow } from "../../../../schema/http/analytics"
import { Card } from "../../components/Card"
import { PriceFlowChart } from "../../components/PriceFlowChart"
import { TradeList, type ListedTrade } from "../../components/TradeList"
import { shortAddress, signedUsd, tokenName, usd } from "../../lib/format"
import { useStore } from "../../store"

/** One record per wallet × token per transaction (the decoder nets a wallet's movements of a token). */
const PAGE = 20
const key = (t: ListedTrade) => `${t.tx_hash}:${t.wallet}:${t.token}`

const FlowCard: Component<{ label: string; flow: TokenFlow | null }> = (props) => (
  <div class="flow-card">
    <h3>{props.label}</h3>
    <Show when={props.flow} fallback={<p class="muted">No whale activity</p>}>
      {(f) => (
        <dl>
          <div><dt>Buys</dt><dd class="pos">{usd(f().dex_buy_usd)}</dd></div>
          <div><dt>Sells</dt><dd class="neg">{usd(f().dex_sell_usd)}</dd></div>
          <div><dt>Exch. in / out</dt><dd>{usd(f().exchange_deposit_usd)} / {usd(f().exchange_withdraw_usd)}</dd></div>
          <div><dt>Net flow</dt><dd class={`strong ${f().net_flow_usd >= 0 ? "pos" : "neg"}`}>{signedUsd(f().net_flow_usd)}</dd></div>
        </dl>
      )}
    </Show>
  </div>
)

export const TokenDetailPage: Component<{ params: Record<string, string> }> = (props) => {
  const [state, actions] = useStore()
  createEffect(() => void actions.loadToken(props.params.token!))
  const detail = () => state.token.detail
  // The trades a page at a time (the newest first; live ones join the first page).
  const [page, setPage] = createSignal(0)
  createEffect(on(() => props.params.token, () => setPage(0)))
  const trades = createMemo((): Array<ListedTrade> => {
    const d = detail()
    if (!d) return []
    const seen = new Set(d.trades.map(key))
    const live = state.feed.trades.filter((t) => t.token === d.token && !seen.has(key(t)))
    return [...live, ...d.trades].sort((a, b) => Date.parse(b.ts) - Date.parse(a.ts))
  })
  const pages = () => Math.max(1, Math.ceil(trades().length / PAGE))
  return (
    <Show when={detail()} fallback={<p class="empty">{state.token.error ?? "Loading token…"}</p>}>
      {(d) => (
        <div class="grid">
          <header class="token-head span-2">
            <h1>{tokenName(d().token, d().symbol)}</h1>
            <code class="muted" title={d().token}>{shortAddress(d().token)}</code>
            <Show when={d().delay_ms > 0}>
              <span class="pill pill-delayed">Trades delayed {Math.round(d().delay_ms / 1000)}s · sign in for live</span>
            </Show>
          </header>
          <div class="flow-cards span-2">
            <For each={["1H", "24H", "7D"] as const}>{(tf) => <FlowCard label={tf} flow={d().flows[tf]} />}</For>
          </div>
          <p class="small muted span-2 token-excluded">Left out of these flows, as never a flow: transfers between an exchange's own wallets (hot ↔ cold,
            deposit sweeps) — <For each={["1H", "24H", "7D"] as const}>{(tf, i) => {
              const k = () => d().excluded[tf].exchange_housekeeping
              return <>{i() > 0 ? " · " : ""}{tf} {k().count} ({usd(k().usd)})</>
            }}</For>.</p>
          <Card title="Whale trade price & net flow" class="span-2">
            <Show when={trades().length > 0} fallback={<p class="empty">No whale trades of this token yet.</p>}>
              <PriceFlowChart trades={trades()} symbol={tokenName(d().token, d().symbol)} />
            </Show>
          </Card>
          <Card title={`Recent whale trades · ${tokenName(d().token, d().symbol)}`} class="span-2"
            aside={<Show when={trades().length > 0}><span class="muted small">{page() * PAGE + 1}–{Math.min(trades().length, (page() + 1) * PAGE)} of {trades().length}</span></Show>}>
            <TradeList trades={trades().slice(page() * PAGE, (page() + 1) * PAGE)} hideToken />
            <Show when={pages() > 1}>
              <div class="row pager">
                <button class="btn btn-small btn-quiet" disabled={page() === 0} onClick={() => setPage(page() - 1)}>Newer</button>
                <span class="small muted">page {page() + 1} of {pages()}</span>
                <button class="btn btn-small btn-quiet" disabled={page() >= pages() - 1} onClick={() => setPage(page() + 1)}>Older</button>
              </div>
            </Show>
          </Card>
        </div>
      )}
    </Show>
  )
}

/** The page as the console's route table loads it (CONSOLE_PAGES in schema/http/console.ts). */
export default TokenDetailPage
