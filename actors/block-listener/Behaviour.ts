/**
 * The block-listener actor: follows the chain source's new heads and turns every block, once, into stored and
 * published whale transactions. A singleton: across processes, only the holder of its lease runs.
 *
 * Per block, in order: fetch and decode (`fetchBlock`, retried with back-off for as long as the node fails
 * temporarily — a block is never skipped; while catching up, the next blocks are fetched ahead); check that it extends the checkpoint (parent hash), otherwise walk
 * back through `chain_blocks` to the last block the chain still has, roll back the records of the orphaned
 * blocks — publishing a retraction on `chain.tx` for each of their records already published — and resume from
 * there (the new branch is ingested by the next rounds); store the records, the block
 * and the checkpoint in one transaction; then publish the stored records on `chain.tx` and mark the block
 * published. Records stored but not published before a crash are published at the next start.
 *
 * New heads: on a WebSocket source the listener subscribes (`eth_subscribe newHeads`) and wakes at each head; it
 * polls every CHAIN_POLL_MS all the same, which is the whole mechanism on HTTP and the fallback while a
 * subscription is down (re-subscribed with back-off). `chain_head_publish_seconds{via}` measures, per block, from
 * the moment the listener learned the block may be taken (its head seen by subscription or by polling) to its
 * records published.
 *
 * Persisted state: the checkpoint (chain_checkpoint), recent blocks with their ETH/USD price (chain_blocks).
 * Transient state (one life): the ingest session — token cache, price book, tracked wallets, labels.
 */
import { Duration, Effect, Queue } from "effect"
import { STREAMS, type ChainTxRetraction } from "../../schema/streams"
import { CONSOLE_STREAMS } from "../../schema/ws"
import { ChainCatalog } from "../../server/domains/chain/Catalog"
import { fetchBlock, persistentRetry, retryTemporary } from "../../server/domains/chain/Fetch"
import { ChainRepo, type StoredBlock, type StoredTx } from "../../server/domains/chain/Repo"
import { prefetching } from "../../server/domains/chain/Prefetch"
import { BlockNotFound, ChainSource, type ChainSourceShape } from "../../server/domains/chain/Source"
import type { ChainBlock } from "../../server/domains/chain/Types"
import { rereadUnknownTokens } from "../../server/domains/chain/TokenRereads"
import { toChainTxMessage, toRetraction } from "../../server/domains/chain/Wire"
import { AppConfig } from "../../server/platform/Config"
import { Bus } from "../../server/platform/infra/Bus"
import { Metrics } from "../../server/platform/ops/Metrics"
import { loopActor } from "../runtime/Actor"
import type { ActorHandle } from "../runtime/Registry"

/** The listener's row in chain_checkpoint. */
export const CHECKPOINT = "block-listener"
/** Blocks kept in chain_blocks: the deepest reorg followed exactly (mainnet finalizes after ~64). */
const KEEP_BLOCKS = 256
/** Blocks handled per round before the head is asked again. */
const ROUND_BLOCKS = 100

type Settings = AppConfig["chain"]
interface Position { readonly number: number; readonly hash: string }
type Outcome = "stored" | "reorg" | "later"

const short = (hash: string) => `${hash.slice(0, 10)}…`
const byPosition = (a: StoredTx, b: StoredTx) =>
  a.log_index - b.log_index || a.wallet.localeCompare(b.wallet) || a.token.localeCompare(b.token)
const pricePoint = (b: StoredBlock | null) =>
  b === null || b.eth_usd === null ? null : { price: b.eth_usd, block: b.eth_usd_block ?? b.number, logIndex: Number.MAX_SAFE_INTEGER }

/** The first block of a listener without a checkpoint (`target` is the newest block it may take). */
export const firstBlock = (s: Settings, kind: string, target: number): number => {
  if (s.startBlock !== undefined) return s.startBlock >= 0 ? s.startBlock : Math.max(0, target + s.startBlock + 1)
  return kind === "demo" ? Math.max(0, target - s.demoHistoryBlocks + 1) : Math.max(0, target)
}

const life = (actor: ActorHandle) =>
  Effect.gen(function* () {
    const { chain: settings } = yield* AppConfig
    const source = yield* ChainSource
    const repo = yield* ChainRepo
    const bus = yield* Bus
    const session = yield* (yield* ChainCatalog).open()
    const retry = persistentRetry(settings.retryBaseMs, settings.retryMaxMs)
    const head = retryTemporary(source.latestBlockNumber, retry, "eth_blockNumber")

    // Head latency: when each block became takeable, and how the listener learned it.
    const latency = (yield* Metrics).histogram(
      "chain_head_publish_seconds", "Block seen (a new head by subscription or by polling) to its records published, by how it was seen",
      [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30])
    const seen = new Map<number, { readonly at: number; readonly via: "subscription" | "polling" }>()
    let highestHead = -1
    const sawHead = (headNumber: number, via: "subscription" | "polling") => {
      if (headNumber <= highestHead) return
      const first = highestHead < 0
      highestHead = headNumber
      // The first head of a life says where the chain is, not when a block appeared.
      if (!first) seen.set(headNumber - settings.confirmations, { at: Date.now(), via })
      if (seen.size > 1_000) for (const k of [...seen.keys()].slice(0, seen.size - 1_000)) seen.delete(k)
    }
    const measure = (n: number) => {
      const s = seen.get(n)
      if (s === undefined) return
      seen.delete(n)
      latency.observe({ via: s.via }, (Date.now() - s.at) / 1000)
    }
    const wake = yield* Queue.sliding<number>(1)
    const watchHeads = source.watchHeads
    if (watchHeads !== undefined) {
      yield* Effect.fork(Effect.gen(function* () {
        let failures = 0
        while (true) {
          const ended = yield* watchHeads((n) => {
            failures = 0
            sawHead(n, "subscription")
            Queue.unsafeOffer(wake, n)
          }).pipe(Effect.flip)
          failures++
          const delay = Math.min(30_000, 500 * 2 ** Math.min(failures, 6))
          yield* Effect.logWarning(`newHeads subscription ended (${ended.message}); polling every ${settings.pollMs} ms meanwhile, re-subscribing in ${delay} ms`)
          yield* Effect.sleep(Duration.millis(delay))
        }
      }))
    }
    /** Waits for the next head: woken by the subscription, or after the poll interval. */
    const nextHead = Effect.raceFirst(Effect.asVoid(Queue.take(wake)), Effect.sleep(Duration.millis(settings.pollMs)))

    const publish = (block: Position, rows: ReadonlyArray<StoredTx>) =>
      Effect.gen(function* () {
        const messages = [...rows].sort(byPosition).map((r) => toChainTxMessage(r, session.walletLabel(r.wallet)))
        if (messages.length > 0) yield* bus.publishMany(STREAMS.chainTx, messages)
        yield* repo.markPublished(block.number, block.hash)
      })

    const publishRetractions = (messages: ReadonlyArray<ChainTxRetraction>) =>
      messages.length === 0
        ? Effect.void
        : Effect.zipRight(bus.publishMany(STREAMS.chainTx, messages), repo.dropRetractions(messages.map((m) => m.messageId)))

    // Retractions a previous life wrote with its rollback but did not get to publish (before any new record).
    let unsent = yield* repo.pendingRetractions(500)
    while (unsent.length > 0) {
      yield* publishRetractions(unsent.map((r) => r.payload as ChainTxRetraction))
      yield* Effect.logInfo(`published ${unsent.length} retraction(s) written before a restart`)
      unsent = yield* repo.pendingRetractions(500)
    }

    // Records a previous life stored but did not get to publish.
    let pending = yield* repo.unpublished(100)
    while (pending.length > 0) {
      for (const b of pending) yield* publish(b, yield* repo.recordsOfBlock(b.hash))
      yield* Effect.logInfo(`published the records of ${pending.length} block(s) stored before a restart`)
      pending = yield* repo.unpublished(100)
    }

    let checkpoint: Position | null = yield* repo.checkpoint(CHECKPOINT)
    if (checkpoint !== null) session.resetPrices(pricePoint(yield* repo.blockAt(checkpoint.number)))
    const start = checkpoint === null ? firstBlock(settings, source.kind, (yield* head) - settings.confirmations) : checkpoint.number + 1
    yield* Effect.logInfo(`following the ${source.kind} chain from block ${start} (${session.walletCount()} tracked wallets)`)

    /**
     * Walks back from the checkpoint to the newest stored block the chain still has (the parent named by the
     * chain's block above it), and rolls back everything stored above that block.
     */
    const rollBack = (incoming: ChainBlock, tip: Position) =>
      Effect.gen(function* () {
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
      })

    const step = (view: ChainSourceShape, n: number): Effect.Effect<Outcome, unknown> =>
      Effect.gen(function* () {
        const { block, records } = yield* fetchBlock(view, n, session.context(), retry)
        yield* session.saveLearnedTokens
        if (checkpoint !== null && block.parentHash !== checkpoint.hash) {
          checkpoint = yield* rollBack(block, checkpoint)
          return "reorg" as const
        }
        const eth = session.prices().ethUsd()
        const written = yield* repo.storeBlock(CHECKPOINT, {
          number: n, hash: block.hash, parentHash: block.parentHash, timestamp: block.timestamp, records,
          ethUsd: eth === null ? null : { price: eth.price, block: eth.block }
        }, source.kind)
        checkpoint = { number: n, hash: block.hash }
        if (n % 32 === 0) yield* repo.pruneBlocks(n - KEEP_BLOCKS)
        if (written.length > 0) yield* publish(checkpoint, written)
        measure(n)
        // The console's "Latest block" (topic chain:head): a few kept, subscribers get the newest.
        yield* bus.publish(CONSOLE_STREAMS.chainHead, { messageId: `head:${n}:${block.hash}`, number: n, hash: block.hash, ts: new Date(block.timestamp * 1000).toISOString() }, 16)
        const fresh = written.length === records.length ? "" : ` (${written.length} new)`
        yield* Effect.logInfo(`block ${n} ${short(block.hash)}: ${block.transactions.length} txs, ${records.length} records${fresh}`)
        actor.handled(written.length)
        return "stored" as const
      }).pipe(Effect.catchIf((e): e is BlockNotFound => e instanceof BlockNotFound, () => Effect.succeed("later" as const)))

    let lag = -1
    let lastReread = 0
    while (true) {
      actor.heartbeat()
      const latest = yield* head
      sawHead(latest, "polling")
      const target = latest - settings.confirmations
      const next = checkpoint === null ? start : checkpoint.number + 1
      if (Math.max(0, target - next + 1) !== lag) {
        lag = Math.max(0, target - next + 1)
        actor.update({ lag })
      }
      if (next > target) {
        // Caught up: the spare time goes to tokens stored as unknown that are due for another read.
        if (Date.now() - lastReread >= settings.tokenRereadMs) {
          lastReread = Date.now()
          yield* rereadUnknownTokens(source, session.context().tokens)
        }
        yield* nextHead
        continue
      }
      yield* session.refreshWallets
      const last = Math.min(target, next + ROUND_BLOCKS - 1)
      yield* Effect.scoped(Effect.gen(function* () {
        const view = yield* prefetching(source, { fromBlock: next, toBlock: last }, settings.prefetchBlocks)
        for (let n = next; n <= last; n++) {
          const outcome = yield* step(view, n)
          if (outcome === "later") yield* Effect.sleep(Duration.millis(settings.pollMs))
          if (outcome !== "stored") break
        }
      }))
    }
  })

export const BlockListenerActor = loopActor({ name: "block-listener", singleton: true, run: life })
