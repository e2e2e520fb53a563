/**
 * EchoBatch: a read of `echo.cmd` with many users' manual trades applied in ONE transaction (issue 31). The same
 * guarantees as EchoBook.apply, one command at a time, at a fraction of the statements:
 *   - priced first, outside any lock, once per token of the read (the fill of each order is then pure: `quote`);
 *   - the portfolio rows of all the read's users locked in user order (`FOR UPDATE`: HTTP writers and another actor
 *     process wait; two batches never deadlock), the books and every earlier delivery of these command ids loaded in
 *     one statement;
 *   - each command applied in stream order on its user's book in memory (Ledger.trade: cash never negative), once:
 *     a command id already stored (a trade, or a recorded rejection) or seen earlier in the read changes nothing;
 *   - one statement per table written, then COMMIT; only then does the caller ack the read (one XACK), so a crash
 *     before the commit redelivers everything and a crash after it finds every command already applied.
 * After the commit each user's new valuation is pushed once per read (not once per trade), in one round trip.
 */
import { Effect } from "effect"
import type { EchoUserEvent } from "../../../schema/http/echo"
import { Bus } from "../../platform/infra/Bus"
import { inTransaction } from "../../platform/infra/Sql"
import { SqlClient } from "@effect/sql"
import { CONSOLE_USER_STREAM, EchoBook, rejectionError } from "./Book"
import { EchoBatchRepo } from "./BatchRepo"
import { EchoConfig } from "./Config"
import { CommandConflict, type EchoError } from "./Errors"
import { quote } from "./Fills"
import { trade as applyTrade, type Book, type Holding, type Side } from "./Ledger"
import type { NewTrade, PortfolioRow } from "./Repo"
import { portfolioView, tradeView } from "./Views"

/** A manual trade command (the `Trade` message of `echo.cmd`). */
export interface TradeCommand {
  readonly messageId: string
  readonly userId: number
  readonly side: Side
  readonly token: string
  readonly usd?: number | undefined
  readonly quantity?: number | undefined
}

export interface BatchResult {
  readonly applied: number
  readonly replayed: number
  readonly rejected: number
  /** The tokens each user of the read holds after it. */
  readonly held: ReadonlyMap<number, ReadonlyArray<string>>
}

/** What a rejected command leaves in echo_commands (the shape the one-at-a-time path records). */
const outcomeOf = (e: EchoError) => ({ rejected: e._tag, ...e })

export class EchoBatch extends Effect.Service<EchoBatch>()("app/echo/EchoBatch", {
  dependencies: [EchoBatchRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* EchoBatchRepo
    const book = yield* EchoBook
    const config = yield* EchoConfig
    const bus = yield* Bus
    const sql = yield* SqlClient.SqlClient

    const trades = Effect.fn("EchoBatch.trades")(function* (commands: ReadonlyArray<TradeCommand>) {
      if (commands.length === 0) return { applied: 0, replayed: 0, rejected: 0, held: new Map() } satisfies BatchResult
      // Priced once per token, outside the lock. A token that cannot be traded rejects its commands.
      const tokens = [...new Set(commands.map((c) => c.token))]
      const pricing = new Map(yield* Effect.forEach(tokens, (t) => Effect.map(Effect.either(book.tradable(t)), (r) => [t, r] as const), { concurrency: 4 }))
      const at = new Date()

      const outcome = yield* inTransaction(sql, Effect.gen(function* () {
        const locked = yield* repo.lockMany(commands.map((c) => c.userId), config.startCash)
        const loaded = yield* repo.load(commands.map((c) => c.userId), commands.map((c) => c.messageId))
        const portfolios = new Map<number, PortfolioRow>(locked.map((p) => [Number(p.user_id), p]))
        const holdings = new Map<number, Map<string, Holding>>()
        for (const h of loaded.holdings) {
          const m = holdings.get(h.userId) ?? new Map<string, Holding>()
          m.set(h.token, { token: h.token, symbol: h.symbol, quantity: h.quantity, cost: h.cost, openedAt: h.openedAt })
          holdings.set(h.userId, m)
        }
        const books = new Map<number, Book>()
        for (const [u, p] of portfolios) books.set(u, { cash: p.cash, realized: p.realized, holdings: holdings.get(u) ?? new Map() })
        const done = new Map(loaded.earlier.map((e) => [e.command_id, e]))

        const newTrades: Array<NewTrade> = []
        const rejections: Array<{ commandId: string; userId: number; outcome: unknown }> = []
        const touched = new Map<number, Set<string>>()
        const appliedBy = new Map<number, number>()
        let replayed = 0
        for (const c of commands) {
          const earlier = done.get(c.messageId)
          if (earlier) {
            // Applied (or rejected) by an earlier delivery, or earlier in this read: nothing again. Another user's id: a conflict.
            if (earlier.user_id === c.userId) replayed++
            else rejections.push({ commandId: c.messageId, userId: c.userId, outcome: outcomeOf(new CommandConflict({ command_id: c.messageId })) })
            continue
          }
          done.set(c.messageId, { command_id: c.messageId, user_id: c.userId, trade_id: null })
          const priced = pricing.get(c.token)!
          if (priced._tag === "Left") {
            rejections.push({ commandId: c.messageId, userId: c.userId, outcome: outcomeOf(priced.left) })
            continue
          }
          const t = priced.right
          const size = c.usd ?? (c.quantity ?? 0) * t.price
          const q = quote(c.side, t.price, size, t.liquidity, t.eth, config.fill)
          const r = applyTrade(books.get(c.userId)!, { side: c.side, token: c.token, symbol: t.symbol, usd: c.usd, quantity: c.quantity, price: q.price, gasUsd: q.gasUsd, at })
          if (!r.ok) {
            rejections.push({ commandId: c.messageId, userId: c.userId, outcome: outcomeOf(rejectionError(r.rejection, c.usd !== undefined ? "usd" : "quantity", c.usd ?? c.quantity)) })
            continue
          }
          books.set(c.userId, r.applied.book)
          const set = touched.get(c.userId) ?? new Set<string>()
          set.add(c.token)
          touched.set(c.userId, set)
          appliedBy.set(c.userId, (appliedBy.get(c.userId) ?? 0) + 1)
          newTrades.push({
            user_id: c.userId, command_id: c.messageId, origin: "manual", side: c.side, token: c.token, symbol: t.symbol,
            quantity: r.applied.quantity, price: q.price, usd: r.applied.usd, market_price: q.marketPrice, whale_price: null,
            slippage_bps: q.slippageBps, gas_usd: q.gasUsd, delay_blocks: 0, fill_block: t.block, liquidity_usd: q.liquidityUsd,
            realized_pnl: r.applied.realizedPnl, entry_price: r.applied.entryPrice, opened_at: r.applied.openedAt,
            whale_tx_hash: null, whale_log: null, whale_wallet: null, whale_block: null, whale_usd: null, reverses: null
          })
        }

        const kept: Array<Holding & { userId: number }> = []
        const gone: Array<{ userId: number; token: string }> = []
        for (const [userId, ts] of touched) {
          for (const token of ts) {
            const h = books.get(userId)!.holdings.get(token)
            if (h) kept.push({ ...h, userId })
            else gone.push({ userId, token })
          }
        }
        yield* repo.saveHoldings(kept, gone)
        const versions = yield* repo.savePortfolios([...appliedBy].map(([userId, applied]) => ({ userId, applied, cash: books.get(userId)!.cash, realized: books.get(userId)!.realized })))
        const stored = yield* repo.insertTrades(newTrades)
        yield* repo.recordOutcomes(rejections)
        return { books, portfolios, versions, stored, prices: loaded.prices, replayed, rejected: rejections.length }
      }))

      // Committed: one valuation per user whose book changed, pushed in one round trip.
      const prices = new Map(outcome.prices)
      for (const [t, r] of pricing) if (r._tag === "Right") prices.set(t, r.right.price)
      const version = new Map(outcome.versions.map((v) => [Number(v.user_id), Number(v.version)]))
      const lastTrade = new Map(outcome.stored.map((t) => [Number(t.user_id), t]))
      const events = [...lastTrade].map(([userId, t]) => {
        const p = outcome.portfolios.get(userId)!
        const portfolio = portfolioView({ ...p, version: version.get(userId) ?? p.version }, outcome.books.get(userId)!, prices, new Date())
        return { user_id: userId, kind: "echo" as const, data: { reason: "trade", portfolio, trade: tradeView(t) } satisfies EchoUserEvent }
      })
      if (events.length > 0) {
        yield* bus.publishMany(CONSOLE_USER_STREAM, events, 10_000).pipe(Effect.catchAllCause((c) => Effect.logWarning("echo: valuation push failed", c)))
      }
      const held = new Map([...outcome.books].map(([u, b]) => [u, [...b.holdings.keys()]] as const))
      return { applied: outcome.stored.length, replayed: outcome.replayed, rejected: outcome.rejected, held } satisfies BatchResult
    })

    /** The tokens each of these users holds (for entities that only looked). */
    const heldTokens = (userIds: ReadonlyArray<number>) =>
      userIds.length === 0
        ? Effect.succeed(new Map<number, ReadonlyArray<string>>())
        : Effect.map(repo.heldTokensOf(userIds), (rows) => {
          const m = new Map<number, Array<string>>(userIds.map((u) => [u, []]))
          for (const r of rows) m.get(Number(r.user_id))?.push(r.token)
          return m as ReadonlyMap<number, ReadonlyArray<string>>
        })

    return { trades, heldTokens } as const
  })
}) {}
