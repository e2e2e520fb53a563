/**
 * Echo's public API for the routes and the console: the portfolio and its history, analytics, the leaderboard,
 * auto-copy rules and shadow positions. Writes go through EchoBook; the market side (feed, tokens, charts) is
 * EchoMarket.
 */
import { Effect } from "effect"
import type { Analytics, Leaderboard, TradesPage } from "../../../schema/http/echo"
import { Chain } from "../chain/Chain"
import { EchoBook } from "./Book"
import { EchoConfig } from "./Config"
import { RuleNotFound, TooManyRules } from "./Errors"
import { EchoRepo, type AutoCopyRow } from "./Repo"
import { copyVersusWhale, rank, riskAdjusted, tradeStats } from "./Stats"
import { tradeFact, tradeView } from "./Views"

const DAY_MS = 86_400_000
export const RISK_ADJUSTED_RULE = "per-trade Sharpe: mean / standard deviation of closed-trade returns (null under 2 closed trades)"

export class Echo extends Effect.Service<Echo>()("app/echo/Echo", {
  dependencies: [EchoRepo.Default, EchoBook.Default],
  effect: Effect.gen(function* () {
    const repo = yield* EchoRepo
    const chain = yield* Chain
    const book = yield* EchoBook
    const config = yield* EchoConfig

    const trades = Effect.fn("Echo.trades")(function* (userId: number, page: number, limit: number) {
      const { rows, total } = yield* repo.tradesPage(userId, limit, (page - 1) * limit)
      return { page, limit, total, pages: Math.ceil(total / limit), trades: rows.map(tradeView) } satisfies TradesPage
    })

    const shadowValued = Effect.fn("Echo.shadowValued")(function* (userId: number, limit: number) {
      const rows = yield* repo.shadows(userId, limit)
      const prices = yield* chain.latestRecordedPrices([...new Set(rows.map((r) => r.token))])
      return rows.map((r) => {
        const now = prices.get(r.token) ?? null
        const valueNow = r.quantity !== null && now !== null ? r.quantity * now : null
        // A skipped BUY would be worth valueNow for usd spent; a skipped SELL kept a position now worth valueNow.
        const pnl = valueNow === null ? null : r.side === "BUY" ? valueNow - r.usd : r.usd - valueNow
        return { id: r.id, reason: r.reason, side: r.side, token: r.token, symbol: r.symbol, usd: r.usd, price: r.price, quantity: r.quantity,
          value_now_usd: valueNow, pnl_usd: pnl, whale_tx_hash: r.whale_tx_hash, created_at: r.created_at.toISOString() }
      })
    })

    const analytics = Effect.fn("Echo.analytics")(function* (userId: number) {
      const portfolio = yield* book.view(userId)
      const rows = yield* repo.allTrades(userId)
      const facts = rows.map(tradeFact)
      const s = tradeStats(facts)
      const cvw = copyVersusWhale(facts)
      // The follower's P&L on copied trades: realized on copy SELLs plus unrealized is not split per trade, so the
      // comparison uses realized + unrealized of the whole book when every trade is a copy, else realized on copies.
      const copiedRealized = facts.filter((f) => f.origin === "copy" || f.origin === "auto").reduce((a, f) => a + (f.realizedPnl ?? 0), 0)
      const allCopies = facts.length > 0 && facts.every((f) => f.origin !== "manual")
      const followerPnl = allCopies ? portfolio.total_pnl : copiedRealized
      const shadow = yield* shadowValued(userId, 500)
      return {
        trades: s.trades, closed_trades: s.closed_trades, wins: s.wins, losses: s.losses, win_rate: s.win_rate,
        realized_pnl: portfolio.realized_pnl, unrealized_pnl: portfolio.unrealized_pnl, profit_factor: s.profit_factor,
        best_trade: s.best_trade, worst_trade: s.worst_trade, avg_holding_hours: s.avg_holding_hours, risk_adjusted: riskAdjusted(s.returns),
        copy_vs_whale: { ...cvw, follower_pnl_usd: followerPnl, at_whale_prices_pnl_usd: followerPnl + cvw.cost_of_following_usd },
        shadow: {
          skipped: shadow.length,
          would_be_value_usd: shadow.reduce((a, r) => a + (r.side === "BUY" ? r.value_now_usd ?? 0 : 0), 0),
          would_be_pnl_usd: shadow.reduce((a, r) => a + (r.pnl_usd ?? 0), 0)
        }
      } satisfies Analytics
    })

    /**
     * Ranked by return; a portfolio enters after ECHO_BOARD_MIN_DAYS days since its start (or last reset) and
     * ECHO_BOARD_MIN_CLOSED_TRADES closed trades. Display names only (never e-mails): a user without one shows as
     * "Trader #<id>".
     */
    const leaderboard = Effect.fn("Echo.leaderboard")(function* (userId: number) {
      const [candidates, holdings, closed] = yield* Effect.all([repo.boardCandidates(), repo.allHoldings(), repo.closedReturns()])
      const prices = yield* chain.latestRecordedPrices([...new Set(holdings.map((h) => h.token))])
      const valueOf = new Map<number, number>()
      for (const h of holdings) valueOf.set(h.user_id, (valueOf.get(h.user_id) ?? 0) + (prices.has(h.token) ? h.quantity * prices.get(h.token)! : h.cost))
      const returns = new Map<number, Array<number>>()
      for (const c of closed) if (c.basis > 0) returns.set(c.user_id, [...(returns.get(c.user_id) ?? []), c.pnl / c.basis])
      const now = Date.now()
      let youReason: string | null = "no portfolio yet"
      const entries = candidates.flatMap((c) => {
        const days = Math.floor((now - c.started_at.getTime()) / DAY_MS)
        const closedN = returns.get(c.user_id)?.length ?? 0
        const eligible = days >= config.boardMinDays && closedN >= config.boardMinClosed
        if (c.user_id === userId) {
          youReason = eligible ? null : `enters after ${config.boardMinDays} days and ${config.boardMinClosed} closed trades (now ${days} days, ${closedN} closed)`
        }
        if (!eligible) return []
        const total = c.cash + (valueOf.get(c.user_id) ?? 0)
        return [{
          userId: c.user_id, displayName: c.display_name?.trim() || `Trader #${c.user_id}`, returnPct: ((total - c.start_cash) / c.start_cash) * 100,
          riskAdjusted: riskAdjusted(returns.get(c.user_id) ?? []), trades: c.trades, closedTrades: closedN, resets: c.resets, days
        }]
      })
      const ranked = rank(entries)
      const mine = ranked.find((r) => r.userId === userId)
      return {
        rows: ranked.slice(0, 100).map((r) => ({
          rank: r.rank, display_name: r.displayName, return_pct: r.returnPct, risk_adjusted: r.riskAdjusted, trades: r.trades,
          closed_trades: r.closedTrades, resets: r.resets, days: r.days
        })),
        you: { rank: mine?.rank ?? null, eligible: mine !== undefined, reason: mine ? null : youReason },
        rules: { min_days: config.boardMinDays, min_closed_trades: config.boardMinClosed, risk_adjusted: RISK_ADJUSTED_RULE }
      } satisfies Leaderboard
    })

    const rules = (userId: number) =>
      repo.rules(userId).pipe(Effect.map((rs) => ({ rules: rs.map(({ user_id: _u, ...r }) => r) })))

    const setRule = Effect.fn("Echo.setRule")(function* (rule: AutoCopyRow) {
      const existing = yield* repo.rules(rule.user_id)
      if (!existing.some((r) => r.wallet === rule.wallet) && existing.length >= config.maxAutoCopyRules) {
        return yield* Effect.fail(new TooManyRules({ max: config.maxAutoCopyRules }))
      }
      yield* repo.upsertRule(rule)
      return yield* rules(rule.user_id)
    })

    const deleteRule = Effect.fn("Echo.deleteRule")(function* (userId: number, wallet: string) {
      if (!(yield* repo.deleteRule(userId, wallet))) return yield* Effect.fail(new RuleNotFound({ wallet }))
      return yield* rules(userId)
    })

    return { portfolio: book.view, trades, analytics, leaderboard, rules, setRule, deleteRule, shadows: shadowValued } as const
  })
}) {}
