/**
 * The analytics read models over stored whale transactions (spec §1, §2.4, §4.13, §4.14). Every method computes
 * afresh from the roll-ups (migration 0030) and bounded index ranges; `ReadModels` and the public API cache them.
 * Time comes from Effect's `Clock` (tests control it).
 *
 * Whales only (issue 28 part 5): every figure takes a `Scope` — `whales` (default: bots, routers, pools, exchanges and
 * bridges left out, Whales.ts) or `all` (`include=bots`) — and says what it left out (`excludes`). The stored daily
 * closes are whales only; the index with bots recomputes its history from the figures.
 */
import { Clock, Effect } from "effect"
import type { DataSource, ExcludedTotals, Stats, Timeframe, TopTokens, WhaleIndex } from "../../../schema/http/analytics"
import type { FlowsData, TransactionsData, TransactionsQuery } from "../../../schema/http/dataapi"
import { AnalyticsConfig } from "./Config"
import { FlowsRepo, type HousekeepingRow, type TokenWindowRow } from "./FlowsRepo"
import { computeIndex, EMPTY_DAY, type DayFigures } from "./IndexFormula"
import { IndexRepo, type StoredClose } from "./IndexRepo"
import { buildPositioning } from "./PositioningModel"
import { displaySymbol, isAddress, WETH } from "./Tokens"
import { TxRepo } from "./TxRepo"
import { excludesOf, type Scope } from "./Whales"
import { addDays, dayOf, daysBetween, untilNextClose, windowOf } from "./Windows"
import { cents, centsOrNull, priceOrNull } from "../../../schema/numbers"

const HISTORY_DAYS = 30

/** The index of every day in `days` from figures covering them and the 7 days before the first. */
const indexer = (figures: ReadonlyArray<DayFigures>) => {
  const byDay = new Map(figures.map((f) => [f.day, f]))
  const fig = (day: string) => byDay.get(day) ?? EMPTY_DAY(day)
  return (day: string) => computeIndex(fig(day), [1, 2, 3, 4, 5, 6, 7].map((i) => fig(addDays(day, -i))))
}

export const topTokensOf = (timeframe: Timeframe, rows: ReadonlyArray<TokenWindowRow>, limit: number, scope: Scope = "whales"): TopTokens => ({
  timeframe,
  tokens: rows
    .filter((r) => !r.stable && !r.blacklisted && r.dex_trades > 0)
    .sort((a, b) => b.dex_buy_usd + b.dex_sell_usd - (a.dex_buy_usd + a.dex_sell_usd) || b.dex_trades - a.dex_trades || a.symbol.localeCompare(b.symbol))
    .slice(0, limit)
    .map((r) => ({
      symbol: displaySymbol(r.token, r.symbol),
      token: r.token,
      net_flow_usd: cents(r.dex_buy_usd - r.dex_sell_usd),
      buy_volume_usd: cents(r.dex_buy_usd),
      sell_volume_usd: cents(r.dex_sell_usd),
      trades: r.dex_trades,
      whales: r.whales
    })),
  excludes: excludesOf(scope)
})

/** The housekeeping left out of these tokens' flows (all tokens when `tokens` is undefined). */
export const excludedOf = (kept: ReadonlyArray<HousekeepingRow>, tokens?: ReadonlySet<string>): ExcludedTotals => {
  const rows = kept.filter((r) => tokens === undefined || tokens.has(r.token))
  return { exchange_housekeeping: { count: rows.reduce((n, r) => n + r.records, 0), usd: cents(rows.reduce((s, r) => s + r.usd, 0)) } }
}

export const flowsOf = (
  timeframe: Timeframe, rows: ReadonlyArray<TokenWindowRow>, limit: number, tokens?: ReadonlySet<string>, scope: Scope = "whales",
  kept: ReadonlyArray<HousekeepingRow> = []
): FlowsData => ({
  timeframe,
  tokens: rows
    .filter((r) => !r.blacklisted && r.records > 0 && (tokens === undefined || tokens.has(r.token)))
    .map((r) => ({ r, gross: r.dex_buy_usd + r.dex_sell_usd + r.exchange_withdraw_usd + r.exchange_deposit_usd }))
    .sort((a, b) => b.gross - a.gross || a.r.symbol.localeCompare(b.r.symbol))
    .slice(0, limit)
    .map(({ r }) => ({
      token: r.token,
      symbol: displaySymbol(r.token, r.symbol),
      dex_buy_usd: cents(r.dex_buy_usd),
      dex_sell_usd: cents(r.dex_sell_usd),
      exchange_withdraw_usd: cents(r.exchange_withdraw_usd),
      exchange_deposit_usd: cents(r.exchange_deposit_usd),
      net_flow_usd: cents(r.dex_buy_usd - r.dex_sell_usd + r.exchange_withdraw_usd - r.exchange_deposit_usd),
      trades: r.records
    })),
  excludes: excludesOf(scope),
  excluded: excludedOf(kept, tokens)
})

export class Analytics extends Effect.Service<Analytics>()("app/Analytics", {
  dependencies: [FlowsRepo.Default, IndexRepo.Default, TxRepo.Default, AnalyticsConfig.Default],
  effect: Effect.gen(function* () {
    const flows = yield* FlowsRepo
    const index = yield* IndexRepo
    const txs = yield* TxRepo
    const config = yield* AnalyticsConfig

    const tokenWindow = Effect.fn("Analytics.tokenWindow")(function* (timeframe: Timeframe, scope: Scope = "whales") {
      return yield* flows.tokenWindow(windowOf(timeframe, yield* Clock.currentTimeMillis), scope)
    })

    /** Exchange housekeeping per token over the timeframe's window (what flows leave out). */
    const housekeeping = Effect.fn("Analytics.housekeeping")(function* (timeframe: Timeframe) {
      return yield* flows.housekeeping(windowOf(timeframe, yield* Clock.currentTimeMillis))
    })

    /** Where the last 7 days of records come from; `internal` (posted by an external scanner) counts as `rpc`. */
    const source = Effect.fn("Analytics.source")(function* () {
      const rows = yield* flows.sources(addDays(dayOf(yield* Clock.currentTimeMillis), -6))
      const kinds = new Set(rows.filter((r) => r.records > 0).map((r) => (r.source === "internal" ? "rpc" : r.source)))
      const source: DataSource = kinds.size === 0 ? "none" : kinds.size === 1 ? ([...kinds][0] as DataSource) : "mixed"
      return { source, demo: kinds.has("demo") }
    })

    const stats = Effect.fn("Analytics.stats")(function* (scope: Scope = "whales") {
      const now = yield* Clock.currentTimeMillis
      const [rows, tracked, latest] = yield* Effect.all([flows.tokenWindow(windowOf("24H", now), scope), flows.trackedWallets(scope), flows.latestBlock])
      const sum = (f: (r: TokenWindowRow) => number) => rows.reduce((s, r) => s + f(r), 0)
      return {
        tracked_wallets: tracked,
        buy_volume_24h_usd: cents(sum((r) => r.dex_buy_usd)),
        sell_volume_24h_usd: cents(sum((r) => r.dex_sell_usd)),
        transactions_24h: sum((r) => r.records),
        latest_block: latest === null
          ? null
          : { number: latest.number, ts: latest.ts.toISOString(), age_seconds: Math.max(0, Math.round((now - latest.ts.getTime()) / 1000)) },
        excludes: excludesOf(scope)
      } satisfies Stats
    })

    /** Days whose close may be stored: up to the day before `now − delay`, from the first day with records. */
    const closableDays = (now: number, delaySeconds: number, first: string | null, horizonDays = HISTORY_DAYS) => {
      const last = addDays(dayOf(now - delaySeconds * 1000), -1)
      if (first === null) return []
      const start = [first, addDays(dayOf(now), -Math.max(HISTORY_DAYS, horizonDays))].sort().at(-1)!
      return start <= last ? daysBetween(start, last) : []
    }

    /** The index (whales only, or with bots: `all`), with today's human-vs-bot split of DEX volume. */
    const whaleIndex = Effect.fn("Analytics.whaleIndex")(function* (scope: Scope = "whales") {
      const today = dayOf(yield* Clock.currentTimeMillis)
      const from = addDays(today, -HISTORY_DAYS)
      const [figures, first, stored, split] = yield* Effect.all([
        index.dayFigures(addDays(from, -7), today, scope), index.firstDataDay,
        scope === "whales" ? index.closes(from, addDays(today, -1)) : Effect.succeed([]), index.daySplit(today)
      ])
      const of = indexer(figures)
      const closes = new Map(stored.map((c) => [c.day, c]))
      const human = split.find((s) => !s.bot)
      const bot = split.find((s) => s.bot)
      const humanUsd = human?.usd ?? 0
      const botUsd = bot?.usd ?? 0
      const earliest = [first, stored[0]?.day].filter((d): d is string => d != null).sort()[0]
      const historyDays = earliest === undefined ? [] : daysBetween([earliest, from].sort().at(-1)!, addDays(today, -1))
      const live = of(today)
      return {
        ...live,
        history: historyDays.map((date) => ({ date, score: closes.get(date)?.score ?? of(date).score })),
        split: {
          human_volume_usd: cents(humanUsd), bot_volume_usd: cents(botUsd),
          bot_share: humanUsd + botUsd > 0 ? Math.round((botUsd / (humanUsd + botUsd)) * 1e4) / 1e4 : null,
          human_wallets: human?.wallets ?? 0, bot_wallets: bot?.wallets ?? 0
        },
        excludes: excludesOf(scope)
      } satisfies WhaleIndex
    })

    /** Computes and stores the close of every closable day without one; returns the days closed now. */
    /** `horizonDays`: how far back closes are backfilled (at least 30; the demo history's length when longer). */
    const closeMissingDays = Effect.fn("Analytics.closeMissingDays")(function* (delaySeconds: number, horizonDays = HISTORY_DAYS) {
      const now = yield* Clock.currentTimeMillis
      const days = closableDays(now, delaySeconds, yield* index.firstDataDay, horizonDays)
      if (days.length === 0) return []
      const stored = new Set((yield* index.closes(days[0]!, days.at(-1)!)).map((c) => c.day))
      const missing = days.filter((d) => !stored.has(d))
      if (missing.length === 0) return []
      const of = indexer(yield* index.dayFigures(addDays(missing[0]!, -7), missing.at(-1)!))
      const closed: Array<string> = []
      for (const day of missing) {
        const { score, label, components } = of(day)
        if (yield* index.storeClose({ day, score, label, components } satisfies StoredClose)) closed.push(day)
      }
      return closed
    })

    /** The index-closer's round: the closes due INDEX_CLOSE_DELAY_SECONDS after their day ended, backfilled. */
    const closeDueDays = (horizonDays?: number) => closeMissingDays(config.indexCloseDelaySeconds, horizonDays)

    /** How long the index-closer waits after a round: until the next close is due, INDEX_CHECK_SECONDS at most. */
    const nextCloseCheckMs = (now: number) =>
      Math.min(untilNextClose(now, config.indexCloseDelaySeconds * 1000), config.indexCheckSeconds * 1000)

    const positioning = Effect.fn("Analytics.positioning")(function* (scope: Scope = "whales") {
      const today = dayOf(yield* Clock.currentTimeMillis)
      return { ...buildPositioning(yield* flows.walletTokenFlows(addDays(today, -29), addDays(today, -6), scope)), excludes: excludesOf(scope) }
    })

    /** Token addresses a `token` filter names: an address, `ETH`, or a symbol. */
    const resolveTokens = Effect.fn("Analytics.resolveTokens")(function* (token: string) {
      if (isAddress(token)) return [token.toLowerCase()]
      if (token.toUpperCase() === "ETH") return [WETH]
      return yield* txs.tokensBySymbol(token)
    })

    const transactions = Effect.fn("Analytics.transactions")(function* (q: TransactionsQuery) {
      const tokens = q.token === undefined ? undefined : yield* resolveTokens(q.token)
      const rows = yield* txs.page({ beforeId: q.before_id, tokens, wallet: q.wallet, category: q.category, limit: q.limit + 1 })
      const page = rows.slice(0, q.limit)
      return {
        transactions: page.map((r) => ({
          ...r, ts: r.ts.toISOString(), source: r.source === "internal" ? "rpc" : r.source, usd: centsOrNull(r.usd), price_usd: priceOrNull(r.price_usd)
        })),
        next_before_id: rows.length > q.limit ? page.at(-1)!.id : null
      } satisfies TransactionsData
    })

    const searchWallets = Effect.fn("Analytics.searchWallets")(function* (q: string, limit: number) {
      const today = dayOf(yield* Clock.currentTimeMillis)
      return (yield* txs.searchWallets(q.trim(), limit, addDays(today, -6))).map((w) => ({ ...w, net_flow_7d_usd: cents(w.net_flow_7d_usd) }))
    })

    return {
      tokenWindow, housekeeping, source, stats, whaleIndex, closeMissingDays, closeDueDays, nextCloseCheckMs, positioning, resolveTokens, transactions,
      searchWallets
    } as const
  })
}) {}
