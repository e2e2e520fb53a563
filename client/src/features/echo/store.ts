/**
 * The /echo page's store: one Solid store for the portfolio, feed, history, analytics, leaderboard, auto-copy
 * rules and the selected token's chart. The live valuation arrives on the user's topic (`user:<id>`, kind `echo`)
 * over the console's WebSocket client (`useDeps`); everything subscribed or timed is released by `dispose`.
 */
import { createStore } from "solid-js/store"
import { type Analytics, type ChartData, type FeedPage, type LagCurve, type Leaderboard, type Portfolio, type TradesPage } from "../../../../schema/http/echo"
import { onUserEvent } from "../../api/userEvents"
import type { Deps } from "../../store/types"
import { amount, money, price } from "../../lib/format"
import { echoApi } from "./api"

export interface EchoState {
  portfolio: Portfolio | null
  feed: FeedPage | null
  trades: TradesPage | null
  analytics: Analytics | null
  board: Leaderboard | null
  rules: Array<{ wallet: string; mode: "fixed" | "fraction"; amount: number; cap_usd: number; copy_sells: boolean; enabled: boolean }>
  chart: ChartData | null
  chartToken: string | null
  chartTf: "1H" | "1D" | "1W" | "1M" | "ALL"
  lag: Record<string, LagCurve>
  notice: { kind: "ok" | "error"; text: string } | null
  busy: boolean
}

const commandId = () => `ui-${crypto.randomUUID()}`

export const createEchoStore = (deps: Deps) => {
  const [state, setState] = createStore<EchoState>({
    portfolio: null, feed: null, trades: null, analytics: null, board: null, rules: [], chart: null, chartToken: null,
    chartTf: "1D", lag: {}, notice: null, busy: false
  })
  const fail = (e: unknown) => setState("notice", { kind: "error", text: e instanceof Error ? e.message : String(e) })
  const quiet = <T,>(p: Promise<T>) => p.catch(fail)

  const loadTrades = (page = state.trades?.page ?? 1) => quiet(echoApi.trades(page, 10).then((t) => setState("trades", t)))
  const loadFeed = (page = state.feed?.page ?? 1) => quiet(echoApi.feed(page, 15).then((f) => setState("feed", f)))
  const loadAnalytics = () => quiet(echoApi.analytics().then((a) => setState("analytics", a)))
  const loadBoard = () => quiet(echoApi.leaderboard().then((b) => setState("board", b)))
  const loadRules = () => quiet(echoApi.rules().then((r) => setState("rules", r.rules)))
  const loadChart = (token: string, tf = state.chartTf) => {
    setState({ chartToken: token, chartTf: tf })
    return quiet(echoApi.chart(token, tf).then((c) => setState("chart", c)))
  }

  const afterTrade = async (text: string) => {
    setState("notice", { kind: "ok", text })
    await Promise.all([loadTrades(1), loadAnalytics()])
  }

  const act = async (work: () => Promise<void>) => {
    if (state.busy) return
    setState({ busy: true, notice: null })
    try {
      await work()
    } catch (e) {
      fail(e)
    } finally {
      setState("busy", false)
    }
  }

  const actions = {
    trade: (side: "BUY" | "SELL", token: string, usd: number) => act(async () => {
      const r = await echoApi.trade({ side, token, usd, command_id: commandId() })
      setState("portfolio", r.portfolio)
      await afterTrade(`${side} ${r.trade.symbol}: ${amount(String(r.trade.quantity))} at ${price(r.trade.price)} (slippage ${r.trade.slippage_bps.toFixed(0)} bps, gas ${money(r.trade.gas_usd)})`)
    }),
    copy: (txHash: string, logIndex: number, wallet: string, usd: number) => act(async () => {
      const r = await echoApi.copy({ tx_hash: txHash, log_index: logIndex, wallet, usd, command_id: commandId() })
      setState("portfolio", r.portfolio)
      await afterTrade(`Copied ${r.trade.side} ${r.trade.symbol}: filled ${r.trade.delay_blocks} block(s) later at ${price(r.trade.price)}, the whale paid ${price(r.trade.whale_price)}`)
    }),
    reset: () => act(async () => {
      const r = await echoApi.reset()
      setState("portfolio", r.portfolio)
      await afterTrade("Portfolio reset to the starting balance")
    }),
    saveRule: (rule: EchoState["rules"][number]) => act(async () => {
      setState("rules", (await echoApi.setRule(rule)).rules)
      setState("notice", { kind: "ok", text: `Auto-copy of ${rule.wallet.slice(0, 10)}… saved` })
    }),
    deleteRule: (wallet: string) => act(async () => { setState("rules", (await echoApi.deleteRule(wallet)).rules) }),
    lagCurve: (wallet: string) => quiet(echoApi.lagCurve(wallet).then((l) => setState("lag", wallet, l))),
    /** A note from the page itself (e.g. the ticket's own check). */
    say: (kind: "ok" | "error", text: string) => setState("notice", { kind, text }),
    loadTrades, loadFeed, loadChart, loadBoard
  }

  let unsubscribe: (() => void) | undefined
  /** Follows the signed-in user's topic for the live valuation (once the session is known). */
  const follow = (userId: number) => {
    unsubscribe?.()
    unsubscribe = onUserEvent(deps.ws, userId, "echo", (ev) => {
      // a stale push (older version) never overwrites a newer answer
      if (state.portfolio && ev.portfolio.version < state.portfolio.version) return
      setState("portfolio", ev.portfolio)
      if (ev.reason === "auto-copy" || ev.reason === "skip" || ev.reason === "retraction") void loadTrades(1)
    }, { backlog: 1 })
  }
  const start = async () => {
    await Promise.all([quiet(echoApi.portfolio().then((p) => setState("portfolio", p))), loadFeed(1), loadTrades(1), loadAnalytics(), loadBoard(), loadRules()])
    const first = state.portfolio?.holdings[0]?.token ?? state.feed?.items[0]?.token
    if (first) void loadChart(first)
  }
  const feedTimer = setInterval(() => void loadFeed(), 15_000)

  return {
    state,
    actions,
    start,
    follow,
    dispose: () => {
      clearInterval(feedTimer)
      unsubscribe?.()
    }
  }
}

export type EchoStore = ReturnType<typeof createEchoStore>
