/**
 * The echo-portfolio actor: consumes `echo.cmd`, up to 512 commands a read, in stream order and in runs of one kind.
 * A run of `Trade`/`Touch` commands is ONE transaction for all its users (EchoBatch, issue 31): priced once per token,
 * rows locked in user order, one statement per table; the mailbox acks the read (one XACK) only after the commit, so
 * a crash mid-read redelivers it and what was committed is found applied. Any other command goes to its user's entity
 * (Entities.ts), which serializes that user's commands; different users run side by side (up to CONCURRENCY at once).
 * Every command is applied exactly once by its `messageId`; an expected rejection (not enough cash, an unpriced token)
 * is recorded as the command's outcome and acked — redelivery answers the same.
 *
 * Its companion, echo-watch, consumes `chain.tx` (its own group, new records only): every priced record marks the
 * entities holding that token for a live revaluation; a DEX record of a wallet some users auto-copy becomes one
 * `AutoCopy` command per follower (command id `auto:<user>:<tx>:<log>:<wallet>:<token>`, so a redelivered record
 * is copied once); a retraction becomes a `Retract` command for every copy of the retracted record, and its shadow
 * positions are dropped.
 */
import { Effect } from "effect"
import { ChainStreamMessage, isRetraction, STREAMS, type ChainTxMessage, type ChainTxRetraction } from "../../schema/streams"
import { EchoBatch } from "../../server/domains/echo/Batch"
import { EchoBook, type EchoError } from "../../server/domains/echo/Book"
import { Bus } from "../../server/platform/infra/Bus"
import { streamActor } from "../../server/platform/actors/Actor"
import { EchoEntities } from "./Entities"
import { EchoCommand } from "./Protocol"

const CONCURRENCY = 32

type AutoCopy = Extract<EchoCommand, { _tag: "AutoCopy" }>
type Batched = Extract<EchoCommand, { _tag: "Trade" | "Touch" }>

const batched = (c: EchoCommand): c is Batched => c._tag === "Trade" || c._tag === "Touch"

export const EchoPortfolioActor = streamActor({
  name: "echo-portfolio",
  stream: STREAMS.echoCmd,
  schema: EchoCommand,
  // A read of up to 512 commands, many users in it: its trades in one transaction (EchoBatch), acked in one XACK after it.
  batch: 512,
  behaviourMany: Effect.gen(function* () {
    const book = yield* EchoBook
    const batch = yield* EchoBatch
    const entities = yield* EchoEntities

    /** An expected rejection: recorded as the command's outcome (once) and acked. */
    const rejected = (c: EchoCommand) => (e: EchoError) =>
      book.recordOutcome(c.messageId, c.userId, { rejected: e._tag, ...e }).pipe(
        Effect.zipRight(Effect.logDebug(`echo command ${c.messageId} rejected: ${e._tag}`)))

    /** An auto-copy skip, kept as a shadow position with its reason. */
    const skip = (c: AutoCopy, reason: string, price: number | null, usd: number) =>
      Effect.gen(function* () {
        yield* book.recordSkip({
          user_id: c.userId, command_id: c.messageId, reason, side: c.side, token: c.token, symbol: c.symbol, usd,
          price, quantity: price !== null && price > 0 ? usd / price : null, whale_tx_hash: c.tx_hash, whale_log: c.log_index, whale_wallet: c.wallet
        })
        yield* book.push(c.userId, { reason: "skip", portfolio: yield* book.view(c.userId), skip: reason })
      })

    const autoCopy = (c: AutoCopy) => Effect.gen(function* () {
      const whaleUsd = c.whale_usd ?? 0
      const usd = Math.min(c.rule.cap_usd, c.rule.mode === "fixed" ? c.rule.amount : c.rule.amount * whaleUsd)
      if (c.side === "SELL") {
        if (!c.rule.copy_sells) return
        const held = yield* book.holding(c.userId, c.token)
        if (!held) return // nothing to follow out of
      }
      if (!(usd > 0)) return yield* skip(c, "zero_size", null, 0)
      const record = yield* book.findRecord(c.tx_hash, c.log_index, c.wallet).pipe(Effect.either)
      // A record a reorg removed is not followed (and leaves no shadow); an unpriced one is a skip.
      if (record._tag === "Left") return record.left._tag === "RecordNotFound" ? undefined : yield* skip(c, "unpriced", null, usd)
      const priced = yield* book.priceCopy(record.right, usd, "auto").pipe(Effect.either)
      if (priced._tag === "Left") return yield* skip(c, priced.left.reason, null, usd)
      const applied = yield* book.apply(c.userId, c.messageId, priced.right, { capToHolding: true }).pipe(Effect.either)
      if (applied._tag === "Right") return
      const e = applied.left
      if (e._tag === "InsufficientCash") return yield* skip(c, "cash_short", priced.right.quote.price, usd)
      if (e._tag === "InsufficientHoldings") return yield* skip(c, "not_held", priced.right.quote.price, usd)
      return yield* rejected(c)(e)
    })

    const heldTokens = (a: { portfolio: { holdings: ReadonlyArray<{ token: string }> } }) => a.portfolio.holdings.map((h) => h.token)

    const handle = (c: EchoCommand): Effect.Effect<ReadonlyArray<string> | void> => {
      switch (c._tag) {
        case "Trade":
          return book.manual(c.userId, c.messageId, c).pipe(Effect.map(heldTokens), Effect.catchAll(rejected(c)))
        case "Copy":
          return book.copy(c.userId, c.messageId, { txHash: c.tx_hash, logIndex: c.log_index, wallet: c.wallet, usd: c.usd, fraction: c.fraction }).pipe(
            Effect.map(heldTokens), Effect.catchAll(rejected(c)))
        case "AutoCopy":
          return autoCopy(c).pipe(Effect.catchAll(rejected(c)))
        case "Retract":
          return book.retractCopy(c.userId, c.tradeId)
        case "Reset":
          // Once per command id: a redelivery does not wipe again.
          return book.resetOnce(c.userId, c.messageId)
        case "Touch":
          return Effect.void
      }
    }

    /** A run of trades (and touches) of the read: one transaction for all their users, in stream order per user. */
    const applyRun = (run: ReadonlyArray<Batched>) => Effect.gen(function* () {
      const trades = run.filter((c): c is Extract<Batched, { _tag: "Trade" }> => c._tag === "Trade")
      const result = yield* batch.trades(trades)
      const lookers = [...new Set(run.filter((c) => c._tag === "Touch" && !result.held.has(c.userId)).map((c) => c.userId))]
      const held = new Map([...result.held, ...(yield* batch.heldTokens(lookers))])
      yield* Effect.forEach(held, ([userId, tokens]) => entities.observe(userId, tokens), { discard: true })
    })

    /** Any other command alone on its user's entity; different users side by side, each user's in order (FIFO). */
    const applyEach = (run: ReadonlyArray<EchoCommand>) =>
      Effect.forEach(run, (c) => entities.run(c.userId, handle(c)).pipe(Effect.annotateLogs({ user: c.userId, command: c._tag })),
        { concurrency: CONCURRENCY, discard: true })

    // The read in stream order, cut into runs of one kind: a reset or a copy between two trades of a user stays between them.
    return (messages: ReadonlyArray<EchoCommand>) => Effect.gen(function* () {
      let i = 0
      while (i < messages.length) {
        const kind = batched(messages[i]!)
        let j = i
        while (j < messages.length && batched(messages[j]!) === kind) j++
        const run = messages.slice(i, j)
        yield* kind ? applyRun(run as ReadonlyArray<Batched>) : applyEach(run)
        i = j
      }
    })
  })
})

export const EchoWatchActor = streamActor({
  name: "echo-watch",
  stream: STREAMS.chainTx,
  schema: ChainStreamMessage,
  startFrom: "$",
  // A read's messages in one call (no fiber per message), in stream order: one query for the followers of all its wallets
  // (a whole block in one read).
  batch: 4096,
  // Waits for the block's alerts (Priority.ts).
  priority: "deferrable",
  behaviourMany: Effect.gen(function* () {
    const book = yield* EchoBook
    const entities = yield* EchoEntities
    const bus = yield* Bus

    const autoCopies = (records: ReadonlyArray<ChainTxMessage>) => Effect.gen(function* () {
      const trades = records.filter((r) => r.category === "dex_buy" || r.category === "dex_sell")
      if (trades.length === 0) return
      const rules = yield* book.followersOf([...new Set(trades.map((r) => r.wallet))])
      if (rules.length === 0) return
      const byWallet = new Map<string, Array<(typeof rules)[number]>>()
      for (const f of rules) {
        const list = byWallet.get(f.wallet)
        if (list) list.push(f)
        else byWallet.set(f.wallet, [f])
      }
      const commands = trades.flatMap((r) => (byWallet.get(r.wallet) ?? []).map((f): EchoCommand => ({
        _tag: "AutoCopy",
        messageId: `auto:${f.user_id}:${r.tx_hash}:${r.log_index}:${r.wallet}:${r.token}`,
        userId: f.user_id, tx_hash: r.tx_hash, log_index: r.log_index, wallet: r.wallet, token: r.token, symbol: r.symbol,
        side: r.category === "dex_buy" ? "BUY" : "SELL", whale_usd: r.usd,
        rule: { mode: f.mode, amount: f.amount, cap_usd: f.cap_usd, copy_sells: f.copy_sells }
      })))
      if (commands.length > 0) yield* bus.publishMany(STREAMS.echoCmd, commands)
    })

    const retract = (m: ChainTxRetraction) => Effect.gen(function* () {
      const copies = yield* book.copiesOf(m.tx_hash, m.log_index)
      if (copies.length > 0) {
        yield* bus.publishMany(STREAMS.echoCmd, copies.map((t) => ({ _tag: "Retract", messageId: `retract:${t.id}`, userId: t.user_id, tradeId: t.id })))
      }
      yield* book.dropShadowsOf(m.tx_hash, m.log_index)
    })

    return (messages: ReadonlyArray<ChainStreamMessage>) => Effect.gen(function* () {
      // In order: the records before a retraction are copied before it is handled (it may take one of their copies back).
      let records: Array<ChainTxMessage> = []
      for (const m of messages) {
        if (!isRetraction(m)) {
          if (m.price_usd !== null) yield* entities.priceMoved(m.token)
          records.push(m)
          continue
        }
        yield* autoCopies(records)
        records = []
        yield* retract(m)
      }
      yield* autoCopies(records)
    })
  })
})
