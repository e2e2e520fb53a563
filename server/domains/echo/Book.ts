/**
 * EchoBook: the write path of a user's simulated portfolio, one command at a time (the actor's reads of `Trade`
 * commands take the same steps for many users at once: Batch.ts). Every command — an HTTP copy (or trade, with
 * ECHO_HTTP_TRADES=direct), a copy from `echo.cmd`, an auto-copy, a reset, a retraction — is priced first
 * (outside any lock), then applied in one transaction that holds the portfolio row lock (`FOR UPDATE`):
 *   1. a trade with this command id already exists → the same answer again (`replayed`), nothing applied twice;
 *   2. the pure ledger (Ledger.trade) decides: a rejection changes nothing (and is raised with what was available);
 *   3. the holding, cash, realized P&L and the trade row are written together.
 * So commands of one user are serialized whichever process they arrive on, and each is applied exactly once.
 * After the commit the new valuation is pushed on `console.user` (kind `echo`). The echo-portfolio actor also keeps
 * here what its commands leave besides trades: their outcomes, and the shadows of auto-copies not taken.
 */
import { Effect } from "effect"
import type { EchoUserEvent, Portfolio, Trade } from "../../../schema/http/echo"
import { Bus } from "../../platform/infra/Bus"
import { Chain } from "../chain/Chain"
import { EchoConfig } from "./Config"
import { CommandConflict, InsufficientCash, InsufficientHoldings, NotTradable, RecordNotFound } from "./Errors"
import { delayedPrice, quote, type FillQuote } from "./Fills"
import { trade as applyTrade, type Rejection, type Side } from "./Ledger"
import { MarketRepo, type WhaleRecord } from "./MarketRepo"
import { EchoRepo, type NewTrade, type TradeRow } from "./Repo"
import { portfolioView, tradeView } from "./Views"

export type { EchoError } from "./Errors"

export const CONSOLE_USER_STREAM = "console.user"

/** The default size of a copy without `usd` or `fraction`: the whale's size, at most 1 % of the starting cash. */
export const DEFAULT_COPY_SHARE_OF_START = 0.01

export interface Priced {
  readonly side: Side
  readonly token: string
  readonly symbol: string
  readonly usd?: number | undefined
  readonly quantity?: number | undefined
  readonly quote: FillQuote
  readonly origin: "manual" | "copy" | "auto"
  readonly delayBlocks: number
  readonly fillBlock: number | null
  readonly whale: WhaleRecord | null
}

export interface Applied {
  readonly trade: Trade
  readonly portfolio: Portfolio
  readonly replayed: boolean
}

export const rejectionError = (r: Rejection, field: string, input: unknown) =>
  r.kind === "insufficient_cash"
    ? new InsufficientCash({ available_cash: r.available_cash, required_usd: r.required_usd })
    : r.kind === "insufficient_holdings"
      ? new InsufficientHoldings({ token: r.token, available_quantity: r.available_quantity, requested_quantity: r.requested_quantity })
      : new NotTradable({ field, input, message: r.message, reason: "invalid_amount" })

export class EchoBook extends Effect.Service<EchoBook>()("app/echo/EchoBook", {
  dependencies: [EchoRepo.Default, MarketRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* EchoRepo
    const market = yield* MarketRepo
    const chain = yield* Chain
    const config = yield* EchoConfig
    const bus = yield* Bus

    /** Latest prices of the book's holdings, and the current portfolio view. */
    const view = Effect.fn("EchoBook.view")(function* (userId: number) {
      let loaded = yield* repo.readPriced(userId)
      if (!loaded) {
        yield* repo.transaction(repo.lock(userId, config.startCash))
        loaded = yield* repo.readPriced(userId)
      }
      return portfolioView(loaded!.portfolio, loaded!.book, loaded!.prices, new Date())
    })

    const push = (userId: number, event: EchoUserEvent) =>
      bus.publish(CONSOLE_USER_STREAM, { user_id: userId, kind: "echo", data: event }, 10_000).pipe(
        Effect.catchAllCause((c) => Effect.logWarning("echo: valuation push failed", c)), Effect.asVoid)

    /** A token that can be traded: known, not a stablecoin (that is cash), not blacklisted, with a live price. */
    const tradable = Effect.fn("EchoBook.tradable")(function* (token: string, ethBlock: number | null = null) {
      const q = yield* market.pricing(token, ethBlock)
      const row = q.symbol === null ? null : { symbol: q.symbol, stable: q.stable, blacklisted: q.blacklisted }
      const latest = q.price === null ? null : { price: q.price, block: q.block!, symbol: q.last_symbol! }
      if (!row && !latest) return yield* Effect.fail(new NotTradable({ field: "token", input: token, message: "Unknown token: no whale has traded it", reason: "unknown_token" }))
      if (row?.stable) return yield* Effect.fail(new NotTradable({ field: "token", input: token, message: "Stablecoins are cash in Echo", reason: "stablecoin" }))
      if (row?.blacklisted) return yield* Effect.fail(new NotTradable({ field: "token", input: token, message: "This token is blacklisted", reason: "blacklisted" }))
      if (!latest) return yield* Effect.fail(new NotTradable({ field: "token", input: token, message: "No price is known for this token yet", reason: "unpriced" }))
      return { symbol: row?.symbol ?? latest.symbol, price: latest.price, block: latest.block, liquidity: q.liquidity, eth: q.eth }
    })

    /** A manual order: the latest price plus the same slippage and gas as a copy. */
    const priceManual = Effect.fn("EchoBook.priceManual")(function* (o: { side: Side; token: string; usd?: number | undefined; quantity?: number | undefined }) {
      const t = yield* tradable(o.token)
      const size = o.usd ?? (o.quantity ?? 0) * t.price
      const q = quote(o.side, t.price, size, t.liquidity, t.eth, config.fill)
      return { side: o.side, token: o.token, symbol: t.symbol, usd: o.usd, quantity: o.quantity, quote: q, origin: "manual", delayBlocks: 0, fillBlock: t.block, whale: null } satisfies Priced
    })

    /** The whale record a copy names: exactly one DEX record of the transaction (narrowed by log index or wallet). */
    const findRecord = Effect.fn("EchoBook.findRecord")(function* (txHash: string, log?: number, wallet?: string) {
      const found = yield* chain.dexRecordsOfTx(txHash, log, wallet)
      if (found.length === 0) return yield* Effect.fail(new RecordNotFound({ tx_hash: txHash }))
      if (found.length > 1) {
        return yield* Effect.fail(new NotTradable({
          field: "log_index", input: log ?? null, reason: "ambiguous",
          message: `The transaction has ${found.length} whale trades; name one with log_index (${found.map((r) => `${r.log_index}:${r.symbol}`).join(", ")})`
        }))
      }
      const record = found[0]!
      if (record.price_usd === null) return yield* Effect.fail(new NotTradable({ field: "tx_hash", input: txHash, message: "This whale trade has no USD price", reason: "unpriced" }))
      return record
    })

    /** A copy of a whale record at `usd`: the delayed price with slippage and gas (the honest fill). */
    const priceCopy = Effect.fn("EchoBook.priceCopy")(function* (record: WhaleRecord, usd: number, origin: "copy" | "auto") {
      const side: Side = record.category === "dex_buy" ? "BUY" : "SELL"
      const t = yield* tradable(record.token, record.block + config.fill.delayBlocks)
      const delay = config.fill.delayBlocks
      const series = yield* chain.pricedPointsFrom(record.token, record.block, 500)
      const at = delayedPrice(series, record.block, record.log_index, delay) ?? { price: t.price, block: t.block, delayed: false }
      // ETH/USD at the fill block (the pricing query read it at or before whale block + delay)
      const eth = at.block === record.block + delay ? t.eth : yield* chain.ethUsdAtBlock(at.block)
      const q = quote(side, at.price, usd, t.liquidity, eth, config.fill)
      return { side, token: record.token, symbol: t.symbol, usd, quantity: undefined, quote: q, origin, delayBlocks: delay, fillBlock: at.block, whale: record } satisfies Priced
    })

    /**
     * Applies a priced order under the row lock, exactly once per command id. A SELL copy sells at most what is
     * held (`capToHolding`). Returns the stored trade, or raises the rejection (nothing changed).
     */
    const apply = Effect.fn("EchoBook.apply")(function* (userId: number, commandId: string, p: Priced, options: { capToHolding?: boolean } = {}) {
      const outcome = yield* repo.transaction(Effect.gen(function* () {
        const { book, existing } = yield* repo.lockFor(userId, config.startCash, p.token, commandId)
        if (existing) {
          if (existing.userId !== userId) return { kind: "conflict" as const }
          return { kind: "replayed" as const, row: (yield* repo.tradeById(existing.id))! }
        }
        let usd = p.usd
        let quantity = p.quantity
        if (options.capToHolding && p.side === "SELL") {
          const held = book.holdings.get(p.token)?.quantity ?? 0
          const wanted = quantity ?? (usd ?? 0) / p.quote.price
          if (held > 0 && wanted > held) {
            quantity = held
            usd = undefined
          }
        }
        const r = applyTrade(book, { side: p.side, token: p.token, symbol: p.symbol, usd, quantity, price: p.quote.price, gasUsd: p.quote.gasUsd, at: new Date() })
        if (!r.ok) return { kind: "rejected" as const, rejection: r.rejection }
        yield* repo.save(userId, r.applied.book, p.token)
        const row: NewTrade = {
          user_id: userId, command_id: commandId, origin: p.origin, side: p.side, token: p.token, symbol: p.symbol,
          quantity: r.applied.quantity, price: p.quote.price, usd: r.applied.usd, market_price: p.quote.marketPrice,
          whale_price: p.whale?.price_usd ?? null, slippage_bps: p.quote.slippageBps, gas_usd: p.quote.gasUsd, delay_blocks: p.delayBlocks,
          fill_block: p.fillBlock, liquidity_usd: p.quote.liquidityUsd, realized_pnl: r.applied.realizedPnl, entry_price: r.applied.entryPrice,
          opened_at: r.applied.openedAt, whale_tx_hash: p.whale?.tx_hash ?? null, whale_log: p.whale?.log_index ?? null,
          whale_wallet: p.whale?.wallet ?? null, whale_block: p.whale?.block ?? null, whale_usd: p.whale?.usd ?? null, reverses: null
        }
        return { kind: "applied" as const, row: yield* repo.insertTrade(row) }
      }))
      if (outcome.kind === "conflict") return yield* Effect.fail(new CommandConflict({ command_id: commandId }))
      if (outcome.kind === "rejected") return yield* Effect.fail(rejectionError(outcome.rejection, p.usd !== undefined ? "usd" : "quantity", p.usd ?? p.quantity))
      const portfolio = yield* view(userId)
      const trade = tradeView(outcome.row)
      if (outcome.kind === "applied") {
        yield* push(userId, { reason: p.origin === "auto" ? "auto-copy" : "trade", portfolio, trade })
      }
      yield* Effect.annotateCurrentSpan({ userId, commandId, replayed: outcome.kind === "replayed" })
      return { trade, portfolio, replayed: outcome.kind === "replayed" } satisfies Applied
    })

    /** A replay of an already-applied command needs no pricing (its record or price may be gone by now). */
    const replayOf = Effect.fn("EchoBook.replayOf")(function* (userId: number, commandId: string) {
      const existing = yield* repo.tradeByCommand(commandId)
      if (!existing) return null
      if (existing.user_id !== userId) return yield* Effect.fail(new CommandConflict({ command_id: commandId }))
      return { trade: tradeView(existing), portfolio: yield* view(userId), replayed: true } satisfies Applied
    })

    const manual = Effect.fn("EchoBook.manual")(function* (userId: number, commandId: string, o: { side: Side; token: string; usd?: number | undefined; quantity?: number | undefined }) {
      const replay = yield* replayOf(userId, commandId)
      if (replay) return replay
      return yield* apply(userId, commandId, yield* priceManual(o))
    })

    const copy = Effect.fn("EchoBook.copy")(function* (userId: number, commandId: string, c: { txHash: string; logIndex?: number | undefined; wallet?: string | undefined; usd?: number | undefined; fraction?: number | undefined }) {
      const replay = yield* replayOf(userId, commandId)
      if (replay) return replay
      const record = yield* findRecord(c.txHash, c.logIndex, c.wallet)
      const whaleUsd = record.usd ?? 0
      const usd = c.usd ?? (c.fraction !== undefined ? c.fraction * whaleUsd : Math.min(whaleUsd, config.startCash * DEFAULT_COPY_SHARE_OF_START))
      if (!(usd > 0)) return yield* Effect.fail(new NotTradable({ field: "fraction", input: c.fraction ?? null, message: "The copy size comes to zero", reason: "zero_size" }))
      return yield* apply(userId, commandId, yield* priceCopy(record, usd, "copy"), { capToHolding: true })
    })

    const reset = Effect.fn("EchoBook.reset")(function* (userId: number) {
      yield* repo.transaction(Effect.gen(function* () {
        yield* repo.lock(userId, config.startCash)
        yield* repo.reset(userId, config.startCash)
      }))
      const portfolio = yield* view(userId)
      yield* push(userId, { reason: "reset", portfolio })
      return portfolio
    })

    /**
     * Undoes a copy whose whale record a reorg retracted: a `retraction` trade at the copy's own fill price with no
     * gas, so the book returns to where the copy found it (as far as the holding still allows). Once per copy.
     */
    const retract = Effect.fn("EchoBook.retract")(function* (copyTrade: TradeRow) {
      const commandId = `retract:${copyTrade.id}`
      const done = yield* repo.transaction(Effect.gen(function* () {
        const { book } = yield* repo.lock(copyTrade.user_id, config.startCash)
        if (yield* repo.tradeByCommand(commandId)) return false
        const side: Side = copyTrade.side === "BUY" ? "SELL" : "BUY"
        const held = book.holdings.get(copyTrade.token)?.quantity ?? 0
        const quantity = side === "SELL" ? Math.min(held, copyTrade.quantity) : copyTrade.quantity
        if (!(quantity > 0)) return false
        const r = applyTrade(book, { side, token: copyTrade.token, symbol: copyTrade.symbol, quantity, price: copyTrade.price, gasUsd: 0, at: new Date() })
        if (!r.ok) return false
        yield* repo.save(copyTrade.user_id, r.applied.book, copyTrade.token)
        const { id: _id, created_at: _at, ...base } = copyTrade
        yield* repo.insertTrade({
          ...base, command_id: commandId, origin: "retraction", side, quantity: r.applied.quantity, usd: r.applied.usd, gas_usd: 0,
          slippage_bps: 0, realized_pnl: r.applied.realizedPnl, entry_price: r.applied.entryPrice, opened_at: r.applied.openedAt, reverses: copyTrade.id
        })
        return true
      }))
      if (done) yield* push(copyTrade.user_id, { reason: "retraction", portfolio: yield* view(copyTrade.user_id) })
      return done
    })

    /** Tells the user's portfolio entity (actor) that the user is active or that the book changed. */
    const touch = (userId: number) =>
      bus.publish("echo.cmd", { _tag: "Touch", messageId: `touch:${userId}:${Date.now()}`, userId }, 100_000).pipe(
        Effect.catchAllCause((c) => Effect.logWarning("echo: touch failed", c)), Effect.asVoid)

    // ---- what the echo-portfolio actor's commands leave besides trades ----

    /** A command's outcome (a rejection, a reset), recorded once: a redelivered command finds it. */
    const recordOutcome = (commandId: string, userId: number, outcome: unknown) => repo.recordOutcome(commandId, userId, outcome)

    /** Resets the user's book once per command id (a redelivered `Reset` wipes nothing again). */
    const resetOnce = (userId: number, commandId: string) =>
      repo.outcomeOf(commandId).pipe(Effect.flatMap((done) =>
        done ? Effect.void : reset(userId).pipe(Effect.zipRight(repo.recordOutcome(commandId, userId, { reset: true })))))

    /** Undoes the user's copy trade `tradeId` (its whale record was retracted); another user's trade is left alone. */
    const retractCopy = (userId: number, tradeId: number) =>
      repo.tradeById(tradeId).pipe(Effect.flatMap((t) => (t && t.user_id === userId ? retract(t) : Effect.void)), Effect.asVoid)

    /** The user's holding of a token, if any (read without a lock). */
    const holding = (userId: number, token: string) => Effect.map(repo.read(userId), (loaded) => loaded?.book.holdings.get(token))

    /** The tokens the user holds (read without a lock). */
    const heldTokens = (userId: number) => Effect.map(repo.read(userId), (loaded): ReadonlyArray<string> => (loaded ? [...loaded.book.holdings.keys()] : []))

    return {
      view, push, touch, tradable, replayOf, priceManual, priceCopy, findRecord, apply, manual, copy, reset, retract,
      recordOutcome, resetOnce, retractCopy, holding, heldTokens,
      /** An auto-copy not taken, kept as a shadow position with its reason (once per command). */
      recordSkip: repo.insertShadow,
      /** The enabled auto-copy rules following any of `wallets`. */
      followersOf: repo.followersOf,
      /** The copy trades of a whale record (not yet reversed). */
      copiesOf: repo.copiesOf,
      /** Drops the shadow positions of a retracted whale record. */
      dropShadowsOf: repo.deleteShadowsOf,
      /** How long the echo-portfolio actor keeps an idle user's entity (ECHO_ACTOR_IDLE_MS). */
      idleMs: config.idleMs
    } as const
  })
}) {}
