/** Whale trades as a table (wide screens) or stacked rows (phones), newest first. */
import { For, Show, type Component } from "solid-js"
import type { WhaleTrade } from "../../../schema/http/analytics"
import { ago, amount, categoryLabel, isInflow, price, tokenName, usd } from "../lib/format"
import { Link } from "../router"
import { WalletLink } from "./WalletLink"
import { useStore } from "../store"

/** What a row shows: a feed trade (with its seq) or a stored one from the API. */
export type ListedTrade = Pick<WhaleTrade, "tx_hash" | "ts" | "wallet" | "wallet_label" | "token" | "symbol" | "category" | "amount" | "usd" | "price_usd" | "venue"> & {
  readonly source: string
  readonly seq?: number
}

export const TradeList: Component<{ trades: ReadonlyArray<ListedTrade>; empty?: string; hideToken?: boolean }> = (props) => {
  const [state] = useStore()
  return (
    <div class="trades" role="table" aria-label="Whale trades">
      <div class="trade trade-head" role="row">
        <span role="columnheader">Time</span>
        <span role="columnheader">Side</span>
        <Show when={!props.hideToken}>
          <span role="columnheader">Token</span>
        </Show>
        <span role="columnheader" class="num">Amount</span>
        <span role="columnheader" class="num">Value</span>
        <span role="columnheader" class="num">Price</span>
        <span role="columnheader">Whale</span>
        <span role="columnheader">Venue</span>
      </div>
      <For each={props.trades} fallback={<p class="empty">{props.empty ?? "No trades yet."}</p>}>
        {(t) => (
          <div class="trade" role="row" data-seq={t.seq} data-tx={t.tx_hash}>
            <span class="c-time muted" role="cell" title={t.ts}>{ago(t.ts, state.now)}</span>
            <span role="cell" class="c-side">
              <span class={`side ${isInflow(t.category) ? "side-in" : "side-out"}`}>{categoryLabel[t.category] ?? t.category}</span>
            </span>
            <Show when={!props.hideToken}>
              <span role="cell" class="c-token token">
                <Link href={`/tokens/${t.token}`}>{tokenName(t.token, t.symbol)}</Link>
              </span>
            </Show>
            <span role="cell" class="c-amount num">{amount(t.amount)}</span>
            <span role="cell" class={`c-value num strong ${isInflow(t.category) ? "pos" : "neg"}`}>{usd(t.usd)}</span>
            <span role="cell" class="c-price num muted">{price(t.price_usd)}</span>
            <span role="cell" class="c-whale whale"><WalletLink address={t.wallet} label={t.wallet_label} /></span>
            <span role="cell" class="c-venue muted venue">{t.venue ?? "—"}</span>
          </div>
        )}
      </For>
    </div>
  )
}
