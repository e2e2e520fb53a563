/**
 * The wallet page's panels: who it is (class and label with their sources, reasons, evidence, corrections), its
 * size, its flows per window and per token, the picks it flagged. A label comes only from `identity.label` (held as
 * fact); a doubtful one is never shown as the wallet's name, only in the reasons the server gives.
 */
import { For, Show, type Component } from "solid-js"
import type { WalletFlowWindow, WalletPage } from "../../../../schema/http/wallets"
import { Card } from "../../components/Card"
import { shortAddress, signedPct, signedUsd, tokenName, usd } from "../../lib/format"
import { Link } from "../../router"

const SOURCE: Record<string, string> = { seed: "seed data", label_file: "label file", rule: "behaviour rule", operator: "operator" }
export const CLASS: Record<string, string> = {
  whale: "Whale", trader: "Trader", mev_bot: "MEV bot", router: "Router", exchange: "Exchange", pool: "Pool", bridge: "Bridge",
  fund: "Fund", market_maker: "Market maker", unknown: "Unknown"
}
const RULE: Record<string, string> = {
  sandwich: "sandwich", arbitrage: "atomic arbitrage", pass_through: "pass-through", exchange_sweep: "exchange sweep",
  swap_event: "swap events", dex_swap: "own swaps", settlement_solver: "settlement solver"
}
const sourceOf = (s: string | null) => (s === null ? "—" : SOURCE[s] ?? s)
const pct100 = (x: number) => `${Math.round(x * 100)} %`

export const IdentityPanel: Component<{ page: WalletPage }> = (props) => {
  const id = () => props.page.identity
  return (
    <Card title="Who it is" class="span-2 wl-identity">
      <dl class="figures wl-facts">
        <div><dt>Class</dt><dd><strong>{CLASS[id().class] ?? id().class}</strong>{id().exchange ? ` · ${id().exchange}` : ""} <span class="muted small">from {sourceOf(id().class_source)} · confidence {pct100(id().confidence)}</span></dd></div>
        <div><dt>Label</dt><dd>
          <Show when={id().label} fallback={<span class="muted">none held as fact</span>}>{(l) => <>{l()} <span class="muted small">from {sourceOf(id().label_source)}</span></>}</Show>
        </dd></div>
        <Show when={props.page.your_label}>{(l) => <div><dt>Your label</dt><dd>{l()} <span class="muted small">private: only you see it</span></dd></div>}</Show>
        <div><dt>Kind</dt><dd>{id().kind === "eoa" ? "EOA" : id().kind === "contract" ? "contract" : "not read"}{id().delegate ? ` · delegates to ${shortAddress(id().delegate!)} (EIP-7702)` : ""}</dd></div>
        <div><dt>Seen on chain</dt><dd>{id().first_block === null ? "not yet" : `blocks ${id().first_block} – ${id().last_block}`}</dd></div>
      </dl>
      <h3 class="wl-sub">Why</h3>
      <ul class="wl-reasons">
        <For each={id().reasons} fallback={<li class="muted">Nothing says more than the class above.</li>}>{(r) => <li>{r}</li>}</For>
      </ul>
      <Show when={props.page.evidence.length > 0}>
        <h3 class="wl-sub">Evidence</h3>
        <div class="table-wrap">
          <table class="table">
            <thead><tr><th>Rule</th><th>Says</th><th class="num">Confidence</th><th class="num">Seen</th><th>Last transaction</th><th>Blocks</th></tr></thead>
            <tbody><For each={props.page.evidence}>{(e) => (
              <tr>
                <td>{RULE[e.rule] ?? e.rule}</td><td>{CLASS[e.class] ?? e.class}{e.exchange ? ` (${e.exchange})` : ""}</td>
                <td class="num">{pct100(e.confidence)}</td><td class="num">{e.hits}×</td>
                <td class="mono small" title={e.txs[0] ?? ""}>{e.txs[0] ? shortAddress(e.txs[0]) : "—"}</td>
                <td class="small">{e.first_block} – {e.last_block}</td>
              </tr>
            )}</For></tbody>
          </table>
        </div>
      </Show>
      <Show when={props.page.corrections.length > 0}>
        <h3 class="wl-sub">Corrections by operators</h3>
        <ul class="wl-reasons"><For each={props.page.corrections}>{(c) => (
          <li>{c.action} {c.field}{c.value ? ` “${c.value}”` : ""}: {c.reason} <span class="muted small">{c.at.slice(0, 10)}</span></li>
        )}</For></ul>
      </Show>
    </Card>
  )
}

export const SizePanel: Component<{ page: WalletPage }> = (props) => (
  <Card title="Size and cohort">
    <dl class="figures">
      <div><dt>Cohort</dt><dd>{props.page.size.cohort ?? "not tracked"}</dd></div>
      <div><dt>Holdings</dt><dd>{props.page.size.holdings_usd === null ? <span class="muted">not measured</span> : usd(props.page.size.holdings_usd)}</dd></div>
      <Show when={props.page.size.measured_at}>{(at) => (
        <div><dt>Measured</dt><dd>{at().slice(0, 10)}{props.page.size.measured_cohort ? ` · ${props.page.size.measured_cohort} by size` : ""}</dd></div>
      )}</Show>
      <div><dt>Tracked</dt><dd>{props.page.tracked === null ? "no" : `${props.page.tracked.active ? "yes" : "no longer"} · ${props.page.tracked.source === "custom" ? "your custom wallet" : props.page.tracked.source}`}</dd></div>
      <div><dt>Last active</dt><dd>{props.page.last_active_day ?? "not in the last 30 days"}</dd></div>
    </dl>
    <Show when={props.page.size.holdings.length > 0}>
      <h3 class="wl-sub">Holdings by asset (measured on chain)</h3>
      <table class="table wl-holdings">
        <thead><tr><th>Asset</th><th class="num">Units</th><th class="num">USD</th></tr></thead>
        <tbody><For each={props.page.size.holdings}>{(h) => (
          <tr><td>{h.symbol}</td><td class="num">{h.units.toLocaleString("en", { maximumFractionDigits: 2 })}</td><td class="num">{h.usd === null ? "—" : usd(h.usd)}</td></tr>
        )}</For></tbody>
      </table>
    </Show>
  </Card>
)

const FlowFigures: Component<{ w: WalletFlowWindow }> = (props) => (
  <dl class="figures">
    <div><dt>Buys</dt><dd class="pos">{usd(props.w.dex_buy_usd)}</dd></div>
    <div><dt>Sells</dt><dd class="neg">{usd(props.w.dex_sell_usd)}</dd></div>
    <div><dt>Exch. in / out</dt><dd>{usd(props.w.exchange_deposit_usd)} / {usd(props.w.exchange_withdraw_usd)}</dd></div>
    <div><dt>Net flow</dt><dd class={`strong ${props.w.net_flow_usd >= 0 ? "pos" : "neg"}`}>{signedUsd(props.w.net_flow_usd)}</dd></div>
    <div><dt>Records</dt><dd>{props.w.trades}</dd></div>
  </dl>
)

export const FlowsPanel: Component<{ page: WalletPage }> = (props) => (
  <Card title="Whale flows">
    <div class="wl-windows">
      <div><h3 class="wl-sub">7 days</h3><FlowFigures w={props.page.flows["7d"]} /></div>
      <div><h3 class="wl-sub">30 days</h3><FlowFigures w={props.page.flows["30d"]} /></div>
    </div>
  </Card>
)

export const TokensPanel: Component<{ page: WalletPage }> = (props) => (
  <Card title="Tokens, last 30 days" class="span-2">
    <Show when={props.page.tokens_30d.length > 0} fallback={<p class="empty">No whale records in the last 30 days.</p>}>
      <div class="table-wrap">
        <table class="table">
          <thead><tr><th>Token</th><th class="num">Buys</th><th class="num">Sells</th><th class="num">Exch. in</th><th class="num">Exch. out</th><th class="num">Net</th><th class="num">Records</th></tr></thead>
          <tbody><For each={props.page.tokens_30d}>{(t) => (
            <tr>
              <td><Link href={`/tokens/${t.token}`}>{tokenName(t.token, t.symbol)}</Link></td>
              <td class="num">{usd(t.dex_buy_usd)}</td><td class="num">{usd(t.dex_sell_usd)}</td>
              <td class="num">{usd(t.exchange_deposit_usd)}</td><td class="num">{usd(t.exchange_withdraw_usd)}</td>
              <td class={`num ${t.net_flow_usd >= 0 ? "pos" : "neg"}`}>{signedUsd(t.net_flow_usd)}</td><td class="num">{t.trades}</td>
            </tr>
          )}</For></tbody>
        </table>
      </div>
    </Show>
  </Card>
)

const ret = (x: number | null) => (x === null ? "—" : signedPct(x * 100))

export const PicksPanel: Component<{ page: WalletPage }> = (props) => (
  <Card title="Picks it flagged" class="span-2">
    <Show when={props.page.picks.length > 0} fallback={<p class="empty">This wallet was not among the flagging whales of any pick.</p>}>
      <div class="table-wrap">
        <table class="table">
          <thead><tr><th>Token</th><th>Flagged</th><th>Status</th><th class="num">Whales</th><th class="num">7-day close</th><th class="num">Highest</th><th>Its exit</th></tr></thead>
          <tbody><For each={props.page.picks}>{(p) => (
            <tr>
              <td><Link href={`/tokens/${p.token}`}>{p.symbol}</Link></td><td>{p.flagged_at.slice(0, 10)}</td><td>{p.status}</td>
              <td class="num">{p.whales}</td>
              <td class={`num ${(p.close_return ?? 0) >= 0 ? "pos" : "neg"}`}>{ret(p.close_return)}</td><td class="num">{ret(p.peak_return)}</td>
              <td class="small">{p.exit === null ? "held" : `${p.exit.route === "dex_sell" ? "DEX sell" : "exchange deposit"} ${p.exit.at.slice(0, 10)} (${ret(p.exit.move)})`}</td>
            </tr>
          )}</For></tbody>
        </table>
      </div>
    </Show>
  </Card>
)
