/**
 * `/wallets/{address}`: one wallet — who it is and why, its size, flows, trades (paged), the picks it flagged, its
 * exchange deposits and withdrawals — with "copy in Echo" and "alert on this wallet". A skeleton while loading; an
 * address we know nothing of (or another user's custom wallet) is "not found", a malformed one "not an address".
 */
import { createEffect, createMemo, For, Show, type Component } from "solid-js"
import { WhaleCategory } from "../../../../schema/records"
import { Card } from "../../components/Card"
import { TradeList } from "../../components/TradeList"
import { categoryLabel, shortAddress } from "../../lib/format"
import { Link } from "../../router"
import { HistoryPanel } from "./History"
import { CLASS, FlowsPanel, IdentityPanel, PicksPanel, SizePanel, TokensPanel } from "./Panels"
import { createWalletStore } from "./store"
import "./wallets.css"

const Skeleton: Component = () => (
  <div class="grid wl-skeleton" aria-busy="true" aria-label="Loading the wallet">
    <div class="span-2 sk sk-title" />
    <div class="span-2 sk sk-block" />
    <div class="sk sk-card" /><div class="sk sk-card" />
    <div class="span-2 sk sk-block" />
  </div>
)

export const WalletPageView: Component<{ params: Record<string, string> }> = (props) => {
  const store = createWalletStore()
  const s = store.state
  createEffect(() => void store.load(props.params.address ?? ""))
  // Pages come by id (storage order; the demo history stores older blocks after newer ones): shown by time.
  const trades = createMemo(() => [...s.trades].sort((a, b) => Date.parse(b.ts) - Date.parse(a.ts) || b.id - a.id))
  const name = () => s.page?.identity.label ?? s.page?.your_label ?? s.page?.tracked?.label ?? shortAddress(s.address)
  return (
    <Show when={s.page} fallback={
      <Show when={s.missing} fallback={<Show when={s.error} fallback={<Skeleton />}>{(m) => <p class="notice notice-warn" role="alert">{m()}</p>}</Show>}>
        {(code) => (
          <Card title={code() === 422 ? "Not a wallet address" : "Wallet not found"} class="narrow">
            <p>{code() === 422
              ? <>“{s.address}” is not an Ethereum address (0x and 40 hex digits).</>
              : <>We know nothing of <code class="wl-address">{s.address}</code>: it is not a tracked wallet and the identity engine has not met it.</>}</p>
            <p><Link href="/wallets">Search the tracked wallets</Link></p>
          </Card>
        )}
      </Show>
    }>
      {(p) => (
        <div class="grid wl-page">
          <header class="span-2 wl-head">
            <div class="wl-title">
              <h1>{name()}</h1>
              <span class={`pill wl-class wl-class-${p().identity.class}`}>{CLASS[p().identity.class] ?? p().identity.class}</span>
              <Show when={p().size.cohort}>{(c) => <span class="pill">{c()}</span>}</Show>
              <Show when={p().meta.demo}><span class="pill pill-delayed">demo data</span></Show>
            </div>
            <code class="muted wl-address" title={p().address}>{p().address}</code>
            <div class="wl-actions">
              <Link class="btn" href={`/echo?wallet=${p().address}`}>Copy in Echo</Link>
              <Link class="btn btn-quiet" href={`/alerts?type=wallet_activity&wallet=${p().address}`}>Alert on this wallet</Link>
            </div>
            <Show when={p().delay_ms > 0}><p class="small muted">Records shown {Math.round(p().delay_ms / 1000)} s late · sign in for live</p></Show>
          </header>
          <IdentityPanel page={p()} />
          <SizePanel page={p()} />
          <FlowsPanel page={p()} />
          <HistoryPanel page={p()} />
          <TokensPanel page={p()} />
          <Card title="Trades" class="span-2" aside={
            <select class="select" aria-label="Trade kind" value={s.category ?? ""} onChange={(e) => store.filter((e.currentTarget.value || null) as WhaleCategory | null)}>
              <option value="">all</option>
              <For each={WhaleCategory.options}>{(c) => <option value={c}>{categoryLabel[c] ?? c}</option>}</For>
            </select>
          }>
            <TradeList trades={trades()} empty={s.tradesLoading ? "Loading trades…" : "No whale trades of this wallet recorded."} />
            <Show when={s.nextBeforeId !== null}>
              <p><button class="btn btn-quiet" disabled={s.tradesLoading} onClick={() => void store.more()}>{s.tradesLoading ? "Loading…" : "Older trades"}</button></p>
            </Show>
          </Card>
          <PicksPanel page={p()} />
          <Card title="Exchange deposits and withdrawals" class="span-2">
            <TradeList trades={p().exchange} empty="No exchange deposits or withdrawals recorded." />
          </Card>
          <p class="muted small span-2">Observational on-chain data, not financial advice. Classes and labels say where they come from; a label
            the source itself doubted is never shown as the wallet's name.</p>
        </div>
      )}
    </Show>
  )
}

/** The page as the console's route table loads it (CONSOLE_PAGES in schema/http/console.ts). */
export default WalletPageView
