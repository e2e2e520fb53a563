/**
 * One wallet's whale flows as the wallet page and the keyed wallet endpoints show them: the 7- and 30-day windows,
 * per token, per day — from the daily roll-up (WalletFlowsRepo), in cents. Days are UTC, today included; time from
 * Effect's `Clock`.
 */
import { Clock, Effect } from "effect"
import type { WalletDayFlow, WalletFlowWindow, WalletTokenFlow } from "../../../schema/http/wallets"
import { cents } from "../../../schema/numbers"
import { displaySymbol } from "./Tokens"
import { WalletFlowsRepo, type WalletFlowSums, type WalletTokenSums } from "./WalletFlowsRepo"
import { addDays, dayOf } from "./Windows"

const figures = (s: WalletFlowSums) => ({
  dex_buy_usd: cents(s.dex_buy_usd),
  dex_sell_usd: cents(s.dex_sell_usd),
  exchange_withdraw_usd: cents(s.exchange_withdraw_usd),
  exchange_deposit_usd: cents(s.exchange_deposit_usd),
  net_flow_usd: cents(s.dex_buy_usd - s.dex_sell_usd + s.exchange_withdraw_usd - s.exchange_deposit_usd),
  trades: s.trades
})

const tokenFlow = (s: WalletTokenSums): WalletTokenFlow => ({ token: s.token, symbol: displaySymbol(s.token, s.symbol), ...figures(s) })

export const EMPTY_SUMS: WalletFlowSums = { dex_buy_usd: 0, dex_sell_usd: 0, exchange_withdraw_usd: 0, exchange_deposit_usd: 0, trades: 0 }

export class WalletFlows extends Effect.Service<WalletFlows>()("app/analytics/WalletFlows", {
  dependencies: [WalletFlowsRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* WalletFlowsRepo

    /** The first day of a window of `days` UTC days ending today. */
    const since = (days: number) => Effect.map(Clock.currentTimeMillis, (now) => ({ today: dayOf(now), from: addDays(dayOf(now), -(days - 1)) }))

    return {
      /** The wallet's windows of each length in `days` (e.g. [7, 30]) and its last day with records in the longest. */
      windows: Effect.fn("WalletFlows.windows")(function* (wallet: string, days: ReadonlyArray<number>) {
        const { today } = yield* since(1)
        const froms = days.map((d) => addDays(today, -(d - 1)))
        const rows = yield* repo.windows(wallet, [...new Set(froms)].sort())
        const by = new Map(rows.map((r) => [r.since, r]))
        const windows = days.map((d, i): WalletFlowWindow => ({ days: d, ...figures(by.get(froms[i]!) ?? EMPTY_SUMS) }))
        const lastDay = rows.map((r) => r.last_day).filter((d): d is string => d !== null).sort().at(-1) ?? null
        return { windows, lastDay }
      }),

      /** Per token over the last `days` days, by gross volume (at most `limit`). */
      tokens: Effect.fn("WalletFlows.tokens")(function* (wallet: string, days: number, limit: number) {
        const { from } = yield* since(days)
        return (yield* repo.tokens(wallet, from, limit)).map(tokenFlow)
      }),

      /** Per day and token over the last `days` days, newest first (at most `limit` rows; `truncated` when more). */
      daily: Effect.fn("WalletFlows.daily")(function* (wallet: string, days: number, limit: number) {
        const { today, from } = yield* since(days)
        const rows = yield* repo.days(wallet, from, limit + 1)
        return {
          from, to: today, truncated: rows.length > limit,
          rows: rows.slice(0, limit).map((r): WalletDayFlow => ({ day: r.day, ...tokenFlow(r) }))
        }
      })
    } as const
  })
}) {}
