/**
 * The chain domain's facade for the block listener (actors/block-listener): everything one life of the listener
 * does to the chain and the store, behind one service, so the actor keeps only its loop — heads, lag, latency.
 *
 * A session (`open`, one per life) holds the ingest session (token cache, price book, tracked wallets, labels) and
 * the checkpoint. `take(view, n)` is one block: fetch and decode (retried with back-off for as long as the node fails
 * temporarily — a block is never skipped); check that it extends the checkpoint (parent hash), otherwise walk back
 * through `chain_blocks` to the last block the chain still has, roll back the records of the orphaned blocks —
 * publishing a retraction on `chain.tx` for each of their records already published (written with the rollback: an
 * outbox) — and resume from there; store the records, the block and the checkpoint in one transaction; then publish
 * the stored records on `chain.tx`, mark the block published, and publish the head for the console's "Latest block";
 * last, hand the block to the registered taps (BlockTaps.ts: the identity engine), whose failures never stop it.
 * `recover` publishes what a previous life stored or rolled back but did not get to publish.
 */
import { Clock, Duration, Effect, Option, type Scope } from "effect"
import { STREAMS, type ChainTxRetraction } from "../../../schema/streams"
import { CONSOLE_STREAMS } from "../../../schema/ws"
import { Bus } from "../../platform/infra/Bus"
import { Metrics } from "../../platform/ops/Metrics"
import { ChainBlockTaps, type TappedBlock } from "./BlockTaps"
import { ChainCatalog } from "./Catalog"
import { ChainConfig, type ChainSettings } from "./Config"
import { fetchBlock, persistentRetry, retryTemporary } from "./Fetch"
import { prefetching } from "./Prefetch"
import { ChainRepo, type StoredBlock, type StoredTx } from "./Repo"
import { BlockNotFound, ChainSource, type ChainSourceShape } from "./Source"
import { rereadUnknownTokens } from "./TokenRereads"
import type { ChainBlock } from "./Types"
import { toChainTxMessage, toRetraction } from "./Wire"

/** The listener's row in chain_checkpoint. */
export const CHECKPOINT = "block-listener"
/** Blocks kept in chain_blocks: the deepest reorg followed exactly (mainnet finalizes after ~64). */
const KEEP_BLOCKS = 256

interface Position { readonly number: number; readonly hash: string }

/** What `take` did with a block: stored it (`written` new records), rolled back a reorg, or found it not there yet. */
export type Taken =
  | { readonly outcome: "stored"; readonly written: number }
  | { readonly outcome: "reorg" }
  | { readonly outcome: "later" }

export type { ChainSourceShape } from "./Source"

const short = (hash: string) => `${hash.slice(0, 10)}…`
const byPosition = (a: StoredTx, b: StoredTx) =>
  a.log_index - b.log_index || a.wallet.localeCompare(b.wallet) || a.token.localeCompare(b.token)
const pricePoint = (b: StoredBlock | null) =>
  b === null || b.eth_usd === null ? null : { price: b.eth_usd, block: b.eth_usd_block ?? b.number, logIndex: Number.MAX_SAFE_INTEGER }

/** The first block of a listener without a checkpoint (`target` is the newest block it may take). */
export const firstBlock = (s: ChainSettings, kind: string, target: number): number => {
  if (s.startBlock !== undefined) return s.startBlock >= 0 ? s.startBlock : Math.max(0, target + s.startBlock + 1)
  return kind === "demo" ? Math.max(0, target - s.demoHistoryBlocks + 1) : Math.max(0, target)
}

/** One info line per SUMMARY_MS for the blocks stored (each block's own line is at debug). */
const SUMMARY_MS = 60_000
const blockSummary = Effect.gen(function* () {
  let since = yield* Clock.currentTimeMillis
  let first: number | null = null
  let last = 0
  let blocks = 0
  let stored = 0
  return {
    add: (n: number, records: number) =>
      Effect.gen(function* () {
        first ??= n
        last = n
        blocks++
        stored += records
        const now = yield* Clock.currentTimeMillis
        if (now - since < SUMMARY_MS) return
        yield* Effect.logInfo(`chain: ${blocks} block(s) ${first}–${last} stored in the last ${Math.round((now - since) / 1000)} s, ${stored} records; at block ${last}`)
        since = now
        first = null
        blocks = 0
        stored = 0
      })
  } as const
})

export class ChainListener extends Effect.Service<ChainListener>()("app/chain/ChainListener", {
  effect: Effect.gen(function* () {
    const settings = yield* ChainConfig
    const source = yield* ChainSource
    const repo = yield* ChainRepo
    const catalog = yield* ChainCatalog
    const bus = yield* Bus
    const taps = yield* ChainBlockTaps
    const tapSeconds = Option.map(yield* Effect.serviceOption(Metrics), (m) =>
      m.histogram("chain_tap_seconds", "Time a block tap (the identity engine) took per block, by tap", [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]))

    /** Hands a stored block to every tap, in turn; a failing tap is logged and the chain goes on. */
    const runTaps = (tapped: TappedBlock) =>
      Effect.forEach(taps.all(), (tap) =>
        tap.onBlock(tapped).pipe(
          Effect.timed,
          Effect.tap(([took]) => Effect.sync(() => Option.map(tapSeconds, (h) => h.observe({ tap: tap.name }, Duration.toSeconds(took))))),
          Effect.catchAllCause((cause) => Effect.logWarning(`block tap ${tap.name} failed on block ${tapped.block.number}`, cause))
        ), { discard: true })

    /** One life of the listener (see the header). */
    const open = Effect.gen(function* () {
      const session = yield* catalog.open()
      const retry = persistentRetry(settings.retryBaseMs, settings.retryMaxMs)
      const head = retryTemporary(source.latestBlockNumber, retry, "eth_blockNumber")

      const publish = Effect.fn("ChainListener.publish")(function* (block: Position, rows: ReadonlyArray<StoredTx>) {
        const messages = [...rows].sort(byPosition).map((r) => toChainTxMessage(r, session.walletLabel(r.wallet)))
        if (messages.length > 0) yield* bus.publishMany(STREAMS.chainTx, messages)
        yield* repo.markPublished(block.number, block.hash)
      })

      const publishRetractions = (messages: ReadonlyArray<ChainTxRetraction>) =>
        messages.length === 0
          ? Effect.void
          : Effect.zipRight(bus.publishMany(STREAMS.chainTx, messages), repo.dropRetractions(messages.map((m) => m.messageId)))

      /** Publishes what a previous life stored or rolled back but did not get to publish (before any new record). */
      const recover = Effect.withSpan(Effect.gen(function* () {
        let unsent = yield* repo.pendingRetractions(500)
        while (unsent.length > 0) {
          yield* publishRetractions(unsent.map((r) => r.payload as ChainTxRetraction))
          yield* Effect.logInfo(`published ${unsent.length} retraction(s) written before a restart`)
          unsent = yield* repo.pendingRetractions(500)
        }
        let pending = yield* repo.unpublished(100)
        while (pending.length > 0) {
          for (const b of pending) yield* publish(b, yield* repo.recordsOfBlock(b.hash))
          yield* Effect.logInfo(`published the records of ${pending.length} block(s) stored before a restart`)
          pending = yield* repo.unpublished(100)
        }
      }), "ChainListener.recover")

      const summary = yield* blockSummary
      let checkpoint: Position | null = yield* repo.checkpoint(CHECKPOINT)
      if (checkpoint !== null) session.resetPrices(pricePoint(yield* repo.blockAt(checkpoint.number)))
      /** Where this life starts: after the checkpoint, or (none yet) where the settings say, from the head now. */
      const start = checkpoint === null ? firstBlock(settings, source.kind, (yield* head) - settings.confirmations) : checkpoint.number + 1

      /**
       * Walks back from the checkpoint to the newest stored block the chain still has (the parent named by the
       * chain's block above it), and rolls back everything stored above that block.
       */
      const rollBack = (incoming: ChainBlock, tip: Position) =>
        Effect.withSpan(Effect.gen(function* () {
          let above = incoming
          let fork: Position | null = null
          for (let m = tip.number; fork === null; m--) {
            const stored = yield* repo.blockAt(m)
            // Not stored: before the listener's first block, or deeper than the kept history.
            if (stored === null) fork = { number: m, hash: above.parentHash }
            else if (stored.hash === above.parentHash) fork = { number: m, hash: stored.hash }
            else above = yield* retryTemporary(source.getBlock(m), retry, `block ${m}`)
          }
          const { deleted, retractions } = yield* repo.rollback(CHECKPOINT, fork, toRetraction)
          session.resetPrices(pricePoint(yield* repo.blockAt(fork.number)))
          // Records already published are retracted on chain.tx: the retractions were written with the rollback (the
          // outbox), published now, then dropped; a crash in between leaves them for the next life to publish.
          yield* publishRetractions(retractions)
          yield* Effect.logWarning(
            `reorg: block ${incoming.number} does not extend ${short(tip.hash)}; rolled back blocks ${fork.number + 1}–${tip.number} (${deleted} records, ${retractions.length} retracted)`
          )
          return fork
        }), "ChainListener.rollBack")

      /** Takes block `n`: a span per block (`ChainListener.take`), the parent of its `chain.tx` publish. */
      const take = (view: ChainSourceShape, n: number): Effect.Effect<Taken, unknown> =>
        Effect.gen(function* () {
          const { block, logs, records } = yield* fetchBlock(view, n, { ...session.context(), exchangeOf: taps.exchangeOf }, retry)
          yield* session.saveLearnedTokens
          if (checkpoint !== null && block.parentHash !== checkpoint.hash) {
            checkpoint = yield* rollBack(block, checkpoint)
            return { outcome: "reorg" } as const
          }
          const eth = session.prices().ethUsd()
          const written = yield* repo.storeBlock(CHECKPOINT, {
            number: n, hash: block.hash, parentHash: block.parentHash, timestamp: block.timestamp, records,
            ethUsd: eth === null ? null : { price: eth.price, block: eth.block }
          }, source.kind)
          checkpoint = { number: n, hash: block.hash }
          if (n % 32 === 0) yield* repo.pruneBlocks(n - KEEP_BLOCKS)
          if (written.length > 0) yield* publish(checkpoint, written)
          // The console's "Latest block" (topic chain:head): a few kept, subscribers get the newest.
          yield* bus.publish(CONSOLE_STREAMS.chainHead, { messageId: `head:${n}:${block.hash}`, number: n, hash: block.hash, ts: new Date(block.timestamp * 1000).toISOString() }, 16)
          const fresh = written.length === records.length ? "" : ` (${written.length} new)`
          yield* Effect.logDebug(`block ${n} ${short(block.hash)}: ${block.transactions.length} txs, ${records.length} records${fresh}`)
          yield* summary.add(n, written.length)
          yield* runTaps({ block, logs, source: view })
          return { outcome: "stored", written: written.length } as const
        }).pipe(
          Effect.catchIf((e): e is BlockNotFound => e instanceof BlockNotFound, () => Effect.succeed({ outcome: "later" } as const)),
          Effect.withSpan("ChainListener.take", { attributes: { block: n } })
        )

      return {
        /** The chain's newest block number (retried while the node fails temporarily). */
        head,
        recover,
        start,
        /** The next block to take. */
        next: () => (checkpoint === null ? start : checkpoint.number + 1),
        walletCount: () => session.walletCount(),
        take,
        /** The source with blocks `[from, to]` fetched ahead (while catching up), for this scope. */
        prefetch: (from: number, to: number): Effect.Effect<ChainSourceShape, never, Scope.Scope> =>
          prefetching(source, { fromBlock: from, toBlock: to }, settings.prefetchBlocks),
        refreshWallets: session.refreshWallets,
        /** Tokens stored as unknown that are due for another read (the listener's spare time). */
        rereadTokens: Effect.suspend(() => rereadUnknownTokens(source, session.context().tokens))
      } as const
    })

    return { settings, kind: source.kind, watchHeads: source.watchHeads, open } as const
  })
}) {}
