/**
 * /backtest: replay graded whale picks point-in-time with the costs a follower pays (alpha tier and above run it:
 * entry filter, exit rule, sizing, date range, costs → metrics, the equity curve against ETH, the trade list). Every
 * visitor sees the public 90-day sample (`GET /api/backtest/sample`); below alpha the page says what the tier adds.
 */
import { createSignal, For, onMount, Show, type Component, type JSX } from "solid-js"
import { tierAtLeast } from "../../../../schema/tiers"
import type { BacktestResponse } from "../../../../schema/http/backtest"
import { Card } from "../../components/Card"
import { price, signedUsd, usd } from "../../lib/format"
import { Link } from "../../router"
import { useStore } from "../../store"
import { ret } from "../picks/Charts"
import { EquityChart } from "./EquityChart"
import { createBacktestStore, type BacktestForm, type BacktestStore } from "./store"
import "./backtest.css"

/** Trades per page of the trades table. */
const TRADES_PAGE = 25
const pctOf = (x: number | null) => (x === null ? "—" : `${Math.round(x * 100)} %`)
const when = (iso: string) => `${iso.slice(0, 16).replace("T", " ")}`

const Field: Component<{ label: string; hint?: string; children: JSX.Element }> = (props) => (
  <label class="bt-field"><span>{props.label}</span>{props.children}<Show when={props.hint}><small class="muted">{props.hint}</small></Show></label>
)

const NumberInput: Component<{ store: BacktestStore; key: keyof BacktestForm; min: number; max: number; step?: number; label: string }> = (props) => (
  <input type="number" aria-label={props.label} min={props.min} max={props.max} step={props.step ?? 1} required
    value={props.store.state.form[props.key] as number}
    onInput={(e) => props.store.set(props.key, (e.currentTarget.value === "" ? 0 : Number(e.currentTarget.value)) as never)} />
)

const RunForm: Component<{ store: BacktestStore }> = (props) => {
  const f = () => props.store.state.form
  const set = props.store.set
  return (
    <form class="bt-form" onSubmit={(e) => { e.preventDefault(); void props.store.run() }}>
      <fieldset>
        <legend>Range (UTC days)</legend>
        <Field label="From"><input type="date" aria-label="From" required value={f().from} onInput={(e) => set("from", e.currentTarget.value)} /></Field>
        <Field label="To"><input type="date" aria-label="To" required value={f().to} onInput={(e) => set("to", e.currentTarget.value)} /></Field>
      </fieldset>
      <fieldset>
        <legend>Entry filter</legend>
        <Field label="Min. flagging whales"><NumberInput store={props.store} key="minFlaggers" min={1} max={50} label="Minimum flagging whales" /></Field>
        <Field label="Min. conviction"><NumberInput store={props.store} key="minConviction" min={0} max={100} label="Minimum conviction" /></Field>
        <Field label="Tokens" hint="symbols, comma-separated; empty: all">
          <input aria-label="Tokens" placeholder="PEPE, LINK" value={f().tokens} onInput={(e) => set("tokens", e.currentTarget.value)} />
        </Field>
      </fieldset>
      <fieldset>
        <legend>Exit</legend>
        <Field label="Rule">
          <select aria-label="Exit rule" value={f().exit} onChange={(e) => set("exit", e.currentTarget.value as BacktestForm["exit"])}>
            <option value="hold">Hold N days</option>
            <option value="first_exit">Sell with the first whale exit</option>
          </select>
        </Field>
        <Field label={f().exit === "hold" ? "Days held" : "At most (days)"}><NumberInput store={props.store} key="days" min={1} max={7} label="Days" /></Field>
      </fieldset>
      <fieldset>
        <legend>Sizing</legend>
        <Field label="Per trade">
          <select aria-label="Sizing" value={f().sizing} onChange={(e) => set("sizing", e.currentTarget.value as BacktestForm["sizing"])}>
            <option value="fixed">Fixed USD</option>
            <option value="percent">% of equity</option>
          </select>
        </Field>
        <Show when={f().sizing === "fixed"} fallback={<Field label="% of equity"><NumberInput store={props.store} key="pct" min={0.1} max={100} step={0.1} label="Percent of equity" /></Field>}>
          <Field label="USD"><NumberInput store={props.store} key="usd" min={1} max={10_000_000} label="USD per trade" /></Field>
        </Show>
        <Field label="Starting capital"><NumberInput store={props.store} key="capital" min={100} max={1_000_000_000} label="Starting capital" /></Field>
      </fieldset>
      <fieldset>
        <legend>Costs, each side</legend>
        <Field label="Fee (bps)"><NumberInput store={props.store} key="feeBps" min={0} max={500} label="Fee in basis points" /></Field>
        <Field label="Slippage (bps)"><NumberInput store={props.store} key="slippageBps" min={0} max={1000} label="Slippage in basis points" /></Field>
        <Field label="Gas (USD)"><NumberInput store={props.store} key="gasUsd" min={0} max={1000} step={0.01} label="Gas in USD" /></Field>
      </fieldset>
      <div class="bt-actions">
        <button class="btn" type="submit" disabled={props.store.state.running}>{props.store.state.running ? "Running…" : "Run backtest"}</button>
        <span class="muted small">Point-in-time: filters use what was known at the flag; exits use prices seen after it. The same request gives the same answer.</span>
      </div>
      <Show when={props.store.state.error}>{(m) => <p class="notice notice-warn" role="alert">{m()}</p>}</Show>
    </form>
  )
}

const Metrics: Component<{ r: BacktestResponse }> = (props) => {
  const m = () => props.r.metrics
  const cls = (x: number | null) => (x === null ? "" : x >= 0 ? "pos" : "neg")
  return (
    <dl class="stats bt-metrics">
      <div><dt>Total return</dt><dd class={cls(m().total_return)}>{ret(m().total_return, 1)}</dd></div>
      <div><dt>ETH, same days</dt><dd class={cls(m().eth_return)}>{ret(m().eth_return, 1)}</dd></div>
      <div><dt>Excess over ETH</dt><dd class={cls(m().excess_return)}>{ret(m().excess_return, 1)}</dd></div>
      <div><dt>Max drawdown</dt><dd class="neg">{ret(-m().max_drawdown, 1)}</dd></div>
      <div><dt>Sharpe (daily, √365)</dt><dd>{m().sharpe === null ? "—" : m().sharpe!.toFixed(2)}</dd></div>
      <div><dt>Win rate</dt><dd>{pctOf(m().win_rate)}</dd></div>
      <div><dt>Profit factor</dt><dd>{m().profit_factor === null ? "—" : m().profit_factor!.toFixed(2)}</dd></div>
      <div><dt>Exposure</dt><dd>{pctOf(m().exposure)}</dd></div>
      <div><dt>Trades</dt><dd>{props.r.trades.length.toLocaleString("en-US")}</dd></div>
      <div><dt>Costs paid</dt><dd>{usd(m().total_costs)}</dd></div>
      <div><dt>Final equity</dt><dd>{usd(m().final_equity)}</dd></div>
      <div><dt>Picks in range</dt><dd>{props.r.picks_considered.toLocaleString("en-US")}</dd></div>
    </dl>
  )
}

/** The backtest's trades, a page at a time; the count beside the title is what the pages hold together. */
const TradesCard: Component<{ trades: BacktestResponse["trades"] }> = (props) => {
  const [page, setPage] = createSignal(0)
  const pages = () => Math.max(1, Math.ceil(props.trades.length / TRADES_PAGE))
  const shown = () => props.trades.slice(page() * TRADES_PAGE, (page() + 1) * TRADES_PAGE)
  return (
    <Card title="Trades" class="span-2" aside={<span class="muted small">{props.trades.length === 0 ? "none" : `${page() * TRADES_PAGE + 1}–${page() * TRADES_PAGE + shown().length} of ${props.trades.length.toLocaleString("en-US")}`}</span>}>
      <div class="table-wrap bt-trades">
        <table class="table">
          <thead><tr><th>Token</th><th>Entry (UTC)</th><th>Exit (UTC)</th><th>Why</th><th class="num">Entry</th><th class="num">Exit</th><th class="num">Size</th><th class="num">Costs</th><th class="num">P&amp;L</th><th class="num">Return</th></tr></thead>
          <tbody>
            <For each={shown()} fallback={<tr><td colSpan={10} class="empty">No pick matched the filter in this range.</td></tr>}>
              {(t) => (
              <tr>
                <td class="strong">{t.symbol}</td>
                <td>{when(t.entry_at)}</td>
                <td>{when(t.exit_at)}</td>
                <td>{t.exit_reason === "hold" ? "held" : "whale exit"}</td>
                <td class="num">{price(t.entry_price)}</td>
                <td class="num">{price(t.exit_price)}</td>
                <td class="num">{usd(t.notional)}</td>
                <td class="num muted">{usd(t.costs)}</td>
                <td class={`num ${t.pnl >= 0 ? "pos" : "neg"}`}>{signedUsd(t.pnl)}</td>
                <td class={`num ${t.return >= 0 ? "pos" : "neg"}`}>{ret(t.return, 1)}</td>
              </tr>
            )}
            </For>
          </tbody>
        </table>
      </div>
      <Show when={pages() > 1}>
        <div class="row pager">
          <button class="btn btn-small btn-quiet" disabled={page() === 0} onClick={() => setPage(page() - 1)}>Previous</button>
          <span class="small muted">page {page() + 1} of {pages()}</span>
          <button class="btn btn-small btn-quiet" disabled={page() >= pages() - 1} onClick={() => setPage(page() + 1)}>Next</button>
        </div>
      </Show>
    </Card>
  )
}

const Result: Component<{ r: BacktestResponse }> = (props) => (
  <>
    <Show when={props.r.demo}><p class="notice" role="note"><strong>Demo data.</strong> The picks replayed here come from the built-in demo chain.</p></Show>
    <Metrics r={props.r} />
    <div class="grid">
      <Card title="Equity against holding ETH" class="span-2" aside={<span class="legend small"><span class="key bt-key-picks" /> picks <span class="key bt-key-eth" /> same capital in ETH</span>}>
        <Show when={props.r.equity.length > 0} fallback={<p class="empty">No day in the range.</p>}><EquityChart equity={props.r.equity} /></Show>
        <p class="muted small">
          Skipped: {props.r.skipped.cash} for want of cash (no leverage), {props.r.skipped.unpriced} without prices.
        </p>
      </Card>
      <TradesCard trades={props.r.trades} />
    </div>
  </>
)

const Sample: Component<{ store: BacktestStore }> = (props) => (
  <Card title="Last 90 days of graded picks" class="bt-sample" aside={<span class="muted small">public sample · 7-day close · single-whale picks excluded</span>}>
    <Show when={props.store.state.sample} fallback={<p class="empty">{props.store.state.sampleError ?? "Loading…"}</p>}>
      {(s) => (
        <>
          <dl class="bt-sample-figs">
            <div><dt>Picks</dt><dd>{s().picks}<small class="muted"> ({s().excluded_individual} single-whale excluded)</small></dd></div>
            <div><dt>Closed up</dt><dd>{s().positive.value === null ? <span class="muted">n/a</span> : pctOf(s().positive.value)}<small class="muted"> {s().positive.value === null ? `n = ${s().positive.n}, too few` : `95 % ${pctOf(s().positive.low)}–${pctOf(s().positive.high)} · n = ${s().positive.n}`}</small></dd></div>
            <div><dt>Median 7-day close</dt><dd>{s().median_close.value === null ? <span class="muted">n/a</span> : ret(s().median_close.value, 1)}</dd></div>
            <div><dt>Mean 7-day close</dt><dd>{ret(s().mean_close, 1)}</dd></div>
            <div><dt>Median highest reading</dt><dd>{s().median_peak.value === null ? <span class="muted">n/a</span> : ret(s().median_peak.value, 1)}</dd></div>
            <div><dt>Reached +25 %</dt><dd>{s().runners_gte_25.value === null ? <span class="muted">n/a</span> : pctOf(s().runners_gte_25.value)}</dd></div>
          </dl>
          <p class="muted small">Flagged {s().from.slice(0, 10)} → {s().to.slice(0, 10)}, before costs. {s().demo ? "Demo-chain data." : ""}</p>
        </>
      )}
    </Show>
  </Card>
)

export const BacktestPage: Component = () => {
  const [shell] = useStore()
  const store = createBacktestStore()
  onMount(() => void Promise.all([store.loadSample(), store.loadRange()]))
  const user = () => shell.session.user
  const allowed = () => user() !== null && tierAtLeast(user()!.tier, "alpha")
  return (
    <div class="bt">
      <header class="bt-head">
        <h1>Backtest whale picks</h1>
        <p class="muted">Follow every pick that passes your filter at its entry price, exit on your rule, and pay fees, slippage and gas on both sides — then compare with holding ETH over the same days.</p>
      </header>
      <Show when={shell.session.checked} fallback={<p class="empty">Loading…</p>}>
        <Show when={allowed()} fallback={
          <Card title="Backtests are an Alpha feature" class="bt-gate">
            <p>
              Running a backtest needs the <strong>Alpha</strong> tier or higher{user() ? <> (you are on <strong>{user()!.tier}</strong>)</> : null}.
              Everyone can read the graded picks themselves on the <Link href="/picks">picks page</Link> and the public summary below.
            </p>
            <p>
              <Show when={user()} fallback={<><Link href="/login?next=/backtest" class="btn">Sign in</Link> <Link href="/register" class="btn btn-ghost">Create an account</Link></>}>
                <Link href="/billing" class="btn">See plans</Link>
              </Show>
            </p>
          </Card>
        }>
          <Card title="Run a backtest"><RunForm store={store} /></Card>
          <Show when={store.state.result}>{(r) => <Result r={r()} />}</Show>
        </Show>
      </Show>
      <Sample store={store} />
      <p class="muted small">Simulated on past data, not a forecast and not financial advice.</p>
    </div>
  )
}

/** The page as the console's route table loads it (CONSOLE_PAGES in schema/http/console.ts). */
export default BacktestPage
