/** The panels of the /echo page; each reads the Echo store given in its props (never destructured). */
import { createSignal, For, onMount, Show, type Component } from "solid-js"
import { Card } from "../../components/Card"
import { WalletLink } from "../../components/WalletLink"
import { query } from "../../router"
import { Chart, chartColors } from "../../components/Chart"
import { CandlestickSeries, HistogramSeries, type UTCTimestamp } from "lightweight-charts"
import { ago, amount, chartFormat, money, price, signedPct, usd as compactUsd } from "../../lib/format"
import { echoApi } from "./api"
import type { EchoStore } from "./store"

type P = { readonly store: EchoStore }
/** Exact dollars for the simulator's money (the shared formatter abbreviates, e.g. $100K). */
const usd = money
const signedUsd = (n: number | null | undefined) => (n === null || n === undefined ? "—" : `${n > 0 ? "+" : n < 0 ? "−" : ""}${usd(Math.abs(n))}`)
const cls = (n: number | null | undefined) => (n === null || n === undefined || n === 0 ? "" : n > 0 ? "pos" : "neg")

export const Summary: Component<P & { readonly live: string }> = (props) => {
  const p = () => props.store.state.portfolio
  return (
    <div class="stats echo-stats" aria-label="Portfolio summary">
      <div class="stat"><span class="muted small">Total value</span><strong data-testid="echo-total">{usd(p()?.total_value)}</strong></div>
      <div class="stat"><span class="muted small">Cash</span><strong>{usd(p()?.cash)}</strong></div>
      <div class="stat"><span class="muted small">Unrealized P&amp;L</span><strong class={cls(p()?.unrealized_pnl)}>{signedUsd(p()?.unrealized_pnl)}</strong></div>
      <div class="stat"><span class="muted small">Realized P&amp;L</span><strong class={cls(p()?.realized_pnl)}>{signedUsd(p()?.realized_pnl)}</strong></div>
      <div class="stat"><span class="muted small">Return</span><strong class={cls(p()?.return_pct)}>{p() ? signedPct(p()!.return_pct) : "—"}</strong></div>
      <div class="stat"><span class="muted small">Valuation</span><strong class={props.live === "live" ? "pos" : "muted"}>{props.live === "live" ? "Updating live" : props.live === "connecting" ? "Connecting…" : "Reconnecting…"}</strong></div>
    </div>
  )
}

export const Holdings: Component<P> = (props) => (
  <Card title="Holdings" aside={<button class="btn-link" onClick={() => confirm("Reset to the starting balance? Holdings and history are wiped.") && props.store.actions.reset()}>Reset</button>}>
    <Show when={(props.store.state.portfolio?.holdings.length ?? 0) > 0} fallback={<p class="empty">No positions yet: copy a whale trade or buy a token.</p>}>
      <table class="echo-table">
        <thead><tr><th>Token</th><th>Qty</th><th>Avg entry</th><th>Price</th><th>Value</th><th>P&amp;L</th></tr></thead>
        <tbody>
          <For each={props.store.state.portfolio?.holdings}>{(h) => (
            <tr onClick={() => props.store.actions.loadChart(h.token)} class="clickable">
              <td><strong>{h.symbol}</strong></td><td>{amount(String(h.quantity))}</td><td>{price(h.avg_entry)}</td><td>{price(h.price)}</td>
              <td>{usd(h.value_usd)}</td><td class={cls(h.unrealized_pnl)}>{signedUsd(h.unrealized_pnl)}{h.unrealized_pct !== null ? ` (${signedPct(h.unrealized_pct)})` : ""}</td>
            </tr>
          )}</For>
        </tbody>
      </table>
    </Show>
  </Card>
)

/** A token as the ticket takes it: a contract address as is, a symbol through the tracked-token list. */
const ADDRESS = /^0x[0-9a-fA-F]{40}$/

export const Ticket: Component<P> = (props) => {
  const [side, setSide] = createSignal<"BUY" | "SELL">("BUY")
  const [token, setToken] = createSignal("")
  const [amount, setAmount] = createSignal("1000")
  const [tokens, setTokens] = createSignal<ReadonlyArray<{ address: string; symbol: string }>>([])
  onMount(() => void echoApi.tokens().then((t) => setTokens(t.tokens)).catch(() => undefined))
  const resolve = (text: string) => {
    if (ADDRESS.test(text)) return text
    const wanted = text.toUpperCase()
    return tokens().find((t) => t.symbol.toUpperCase() === wanted)?.address ?? null
  }
  const submit = (e: SubmitEvent) => {
    e.preventDefault()
    const text = token().trim()
    const address = resolve(text)
    if (address === null) return props.store.actions.say("error", `No tracked token "${text}": pick one from the list or paste its contract address.`)
    void props.store.actions.trade(side(), address, Number(amount()))
  }
  return (
    <Card title="Trade ticket">
      <form class="echo-form" onSubmit={submit}>
        <select aria-label="Side" value={side()} onChange={(e) => setSide(e.currentTarget.value as "BUY" | "SELL")}><option>BUY</option><option>SELL</option></select>
        <input aria-label="Token" placeholder="symbol or 0x address" list="echo-token-list" autocomplete="off" value={token()} onInput={(e) => setToken(e.currentTarget.value)} required />
        <datalist id="echo-token-list"><For each={tokens()}>{(t) => <option value={t.symbol}>{t.address}</option>}</For></datalist>
        <input aria-label="USD" type="number" min="1" step="any" value={amount()} onInput={(e) => setAmount(e.currentTarget.value)} required />
        <button type="submit" disabled={props.store.state.busy}>{side() === "BUY" ? "Buy" : "Sell"}</button>
      </form>
      <p class="muted small">Fills at the latest whale price, plus slippage (by size) and gas.</p>
    </Card>
  )
}

export const Feed: Component<P> = (props) => {
  const [size, setSize] = createSignal("1000")
  /** Why a row cannot be copied (a SELL of a token the user does not hold), or null. */
  const cannotCopy = (t: { side: string; token: string; symbol: string }) =>
    t.side === "SELL" && !(props.store.state.portfolio?.holdings ?? []).some((h) => h.token === t.token && h.quantity > 0)
      ? `Nothing to sell: you hold no ${t.symbol}` : null
  return (
    <Card title="Whale feed" aside={<label class="small">copy size $ <input class="echo-size" type="number" min="1" value={size()} onInput={(e) => setSize(e.currentTarget.value)} /></label>}>
      <Show when={props.store.state.feed?.items.length} fallback={<p class="empty">No whale DEX trades recorded yet.</p>}>
        <ul class="echo-feed">
          <For each={props.store.state.feed?.items}>{(t) => (
            <li>
              <span class={t.side === "BUY" ? "side side-in" : "side side-out"}>{t.side}</span>
              <button class="btn-link" onClick={() => props.store.actions.loadChart(t.token)}>{t.symbol}</button>
              <span>{compactUsd(t.usd)}</span>
              <WalletLink class="muted small" address={t.wallet} label={t.wallet_label} />
              <span class="muted small">{ago(t.ts, Date.now())}</span>
              <span class="echo-lag small">
                <Show when={props.store.state.lag[t.wallet]} fallback={<button class="btn-link" onClick={() => props.store.actions.lagCurve(t.wallet)} title="What copying this wallet returned, by how late the copy filled">copy return?</button>}>
                  {(l) => <span title={`Return of copying this wallet's trades of the last ${l().window_days} days, filled 0, 1, 2… blocks after the whale`}>
                    <For each={l().points}>{(pt, i) => <span class={cls(pt.return_pct)}>{i() === 0 ? "" : " · "}{pt.delay_blocks === 0 ? "at once" : `${pt.delay_blocks} block${pt.delay_blocks === 1 ? "" : "s"} late`} {signedPct(pt.return_pct)}</span>}</For>
                  </span>}
                </Show>
              </span>
              <button class="echo-copy" disabled={t.copy_hint === null || props.store.state.busy || cannotCopy(t) !== null} onClick={() => props.store.actions.copy(t.tx_hash, t.log_index, t.wallet, Number(size()))}
                title={cannotCopy(t) ?? (t.copy_hint ? `About ${t.copy_hint.est_slippage_bps.toFixed(0)} bps slippage and ${money(t.copy_hint.est_gas_usd)} gas, filled ${t.copy_hint.delay_blocks} block(s) later` : "No price for this token yet")}>Copy</button>
              <Show when={cannotCopy(t)}>{(why) => <span class="muted small echo-why">{why()}</span>}</Show>
            </li>
          )}</For>
        </ul>
      </Show>
    </Card>
  )
}

export const History: Component<P> = (props) => {
  const t = () => props.store.state.trades
  return (
    <Card title="History" aside={<span class="small muted">{t()?.total ?? 0} trades</span>}>
      <Show when={t()?.trades.length} fallback={<p class="empty">No trades yet.</p>}>
        <table class="echo-table">
          <thead><tr><th>When</th><th>Trade</th><th>Fill</th><th>Whale</th><th>Costs</th><th>P&amp;L</th></tr></thead>
          <tbody>
            <For each={t()?.trades}>{(x) => (
              <tr>
                <td class="muted small">{ago(x.created_at, Date.now())}</td>
                <td><span class={x.side === "BUY" ? "pos" : "neg"}>{x.side}</span> {x.symbol} <span class="muted small">{x.origin}</span></td>
                <td>{price(x.price)} <span class="muted small">{usd(x.usd)}</span></td>
                <td>{x.whale_price === null ? "—" : price(x.whale_price)}</td>
                <td class="small">{x.slippage_bps.toFixed(0)} bps · {money(x.gas_usd)}{x.delay_blocks ? ` · ${x.delay_blocks} block${x.delay_blocks === 1 ? "" : "s"} late` : ""}</td>
                <td class={cls(x.realized_pnl)}>{x.realized_pnl === null ? "" : signedUsd(x.realized_pnl)}</td>
              </tr>
            )}</For>
          </tbody>
        </table>
        <div class="echo-pager">
          <button disabled={(t()?.page ?? 1) <= 1} onClick={() => props.store.actions.loadTrades((t()?.page ?? 1) - 1)}>Newer</button>
          <span class="small muted">page {t()?.page} of {Math.max(1, t()?.pages ?? 1)}</span>
          <button disabled={(t()?.page ?? 1) >= (t()?.pages ?? 1)} onClick={() => props.store.actions.loadTrades((t()?.page ?? 1) + 1)}>Older</button>
        </div>
      </Show>
    </Card>
  )
}

export const AnalyticsPanel: Component<P> = (props) => {
  const a = () => props.store.state.analytics
  return (
    <Card title="Analytics · you versus the whales">
      <Show when={a()} fallback={<p class="empty">Loading…</p>}>
        {(x) => (
          <dl class="echo-dl">
            <dt>Win rate</dt><dd>{x().win_rate === null ? "—" : `${(x().win_rate! * 100).toFixed(0)}% of ${x().closed_trades}`}</dd>
            <dt>Profit factor</dt><dd>{x().profit_factor?.toFixed(2) ?? "—"}</dd>
            <dt>Best / worst</dt><dd>{x().best_trade ? `${x().best_trade!.symbol} ${signedUsd(x().best_trade!.pnl)}` : "—"} / {x().worst_trade ? `${x().worst_trade!.symbol} ${signedUsd(x().worst_trade!.pnl)}` : "—"}</dd>
            <dt>Avg holding</dt><dd>{x().avg_holding_hours === null ? "—" : `${x().avg_holding_hours!.toFixed(1)} h`}</dd>
            <dt>Copied trades</dt><dd>{x().copy_vs_whale.copied_trades}</dd>
            <dt>Your P&amp;L on copies</dt><dd class={cls(x().copy_vs_whale.follower_pnl_usd)}>{signedUsd(x().copy_vs_whale.follower_pnl_usd)}</dd>
            <dt>At the whale's prices</dt><dd class={cls(x().copy_vs_whale.at_whale_prices_pnl_usd)}>{signedUsd(x().copy_vs_whale.at_whale_prices_pnl_usd)}</dd>
            <dt>Cost of following</dt><dd class="neg">{usd(x().copy_vs_whale.cost_of_following_usd)} <span class="muted small">(delay+slippage {usd(x().copy_vs_whale.price_cost_usd)}, gas {usd(x().copy_vs_whale.gas_cost_usd)})</span></dd>
            <dt>Auto-copy skips</dt><dd>{x().shadow.skipped} <span class={cls(x().shadow.would_be_pnl_usd)}>{x().shadow.skipped ? `would have made ${signedUsd(x().shadow.would_be_pnl_usd)}` : ""}</span></dd>
          </dl>
        )}
      </Show>
    </Card>
  )
}

export const Board: Component<P> = (props) => (
  <Card title="Leaderboard" aside={<span class="small muted">{props.store.state.board?.you.rank ? `you: #${props.store.state.board.you.rank}` : props.store.state.board?.you.reason ?? ""}</span>}>
    <Show when={props.store.state.board?.rows.length} fallback={<p class="empty">No portfolio has qualified yet ({props.store.state.board?.rules.min_days ?? 3} days and {props.store.state.board?.rules.min_closed_trades ?? 5} closed trades).</p>}>
      <table class="echo-table">
        <thead><tr><th>#</th><th>Trader</th><th>Return</th><th title={props.store.state.board?.rules.risk_adjusted}>Risk-adj.</th><th>Trades</th><th>Resets</th></tr></thead>
        <tbody><For each={props.store.state.board?.rows}>{(r) => (
          <tr><td>{r.rank}</td><td>{r.display_name}</td><td class={cls(r.return_pct)}>{signedPct(r.return_pct)}</td><td>{r.risk_adjusted?.toFixed(2) ?? "—"}</td><td>{r.trades}</td><td>{r.resets}</td></tr>
        )}</For></tbody>
      </table>
    </Show>
  </Card>
)

export const AutoCopy: Component<P> = (props) => {
  // "Copy in Echo" on a wallet page opens /echo?wallet=0x…: the form starts with that wallet.
  const [wallet, setWallet] = createSignal(query("wallet") ?? "")
  const [mode, setMode] = createSignal<"fixed" | "fraction">("fixed")
  const [amount, setAmount] = createSignal("500")
  const [cap, setCap] = createSignal("2000")
  return (
    <Card title="Auto-copy">
      <form class="echo-form" onSubmit={(e) => { e.preventDefault(); void props.store.actions.saveRule({ wallet: wallet().trim(), mode: mode(), amount: Number(amount()), cap_usd: Number(cap()), copy_sells: true, enabled: true }) }}>
        <input aria-label="Whale wallet" placeholder="whale wallet 0x…" value={wallet()} onInput={(e) => setWallet(e.currentTarget.value)} required />
        <select aria-label="Sizing" value={mode()} onChange={(e) => setMode(e.currentTarget.value as "fixed" | "fraction")}><option value="fixed">fixed $</option><option value="fraction">fraction</option></select>
        <input aria-label="Amount" type="number" step="any" min="0" value={amount()} onInput={(e) => setAmount(e.currentTarget.value)} />
        <input aria-label="Cap per trade" type="number" step="any" min="1" value={cap()} onInput={(e) => setCap(e.currentTarget.value)} title="cap per trade, USD" />
        <button type="submit" disabled={props.store.state.busy}>Follow</button>
      </form>
      <ul class="echo-rules">
        <For each={props.store.state.rules} fallback={<li class="muted small">Not following any wallet. Skips (cash short) are kept as shadow positions.</li>}>{(r) => (
          <li><WalletLink address={r.wallet} /> <span class="small">{r.mode === "fixed" ? usd(r.amount) : `${(r.amount * 100).toFixed(0)}% of the whale`} · cap {usd(r.cap_usd)}</span>
            <button class="btn-link" onClick={() => props.store.actions.deleteRule(r.wallet)}>stop</button></li>
        )}</For>
      </ul>
    </Card>
  )
}

/**
 * The chart's figures in plain words. Liquidity is left out: Echo has no pool data, only the whales' own DEX volume
 * (which the fills use as a depth estimate), so it would repeat the 24-hour volume under another name.
 */
const STATS = [
  ["price", "Price"], ["change_24h_pct", "Change, 24 h"], ["high_24h", "24 h high"], ["low_24h", "24 h low"],
  ["volume_24h", "Whale volume, 24 h"], ["market_cap", "Market cap"], ["all_time_high", "Highest recorded"]
] as const

export const TokenChart: Component<P> = (props) => {
  const c = () => props.store.state.chart
  return (
    <Card title={`Token chart${c() ? ` · ${c()!.symbol}` : ""}`} aside={
      <span class="echo-tfs"><For each={["1H", "1D", "1W", "1M", "ALL"] as const}>{(tf) => (
        <button class={props.store.state.chartTf === tf ? "active" : ""} disabled={!props.store.state.chartToken} onClick={() => props.store.actions.loadChart(props.store.state.chartToken!, tf)}>{tf}</button>
      )}</For></span>}>
      <Show when={c()} fallback={<p class="empty">Select a token.</p>}>
        <Chart label="Price" height={240} setup={(chart) => {
          const colors = chartColors()
          const candles = chart.addSeries(CandlestickSeries, { upColor: colors.pos, downColor: colors.neg, wickUpColor: colors.pos, wickDownColor: colors.neg, borderVisible: false, priceFormat: chartFormat.price })
          const volume = chart.addSeries(HistogramSeries, { priceScaleId: "", color: "rgba(56, 189, 248, 0.35)", priceFormat: chartFormat.usd, lastValueVisible: false, priceLineVisible: false })
          volume.priceScale().applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } })
          return () => {
            const data = c()?.candles ?? []
            candles.setData(data.map((d) => ({ time: d.t as UTCTimestamp, open: d.o, high: d.h, low: d.l, close: d.c })))
            volume.setData(data.map((d) => ({ time: d.t as UTCTimestamp, value: d.v })))
            chart.timeScale().fitContent()
          }
        }} />
        <dl class="echo-dl echo-stats-dl">
          <For each={STATS}>{([name, label]) => {
            const s = () => c()!.stats[name]
            return <><dt>{label}</dt><dd title={s().reason ?? ""}>{s().value === null ? <span class="muted small">not known: {s().reason}</span> : name === "change_24h_pct" ? signedPct(s().value) : name === "price" || name.includes("high") || name.includes("low") ? price(s().value) : compactUsd(s().value)}</dd></>
          }}</For>
        </dl>
      </Show>
    </Card>
  )
}
