/**
 * The block-listener actor: follows the chain source's new heads and turns every block, once, into stored and
 * published whale transactions. A singleton: across processes, only the holder of its lease runs.
 *
 * Per block, through the chain domain's facade (`ChainListener.open().take`: fetch, decode, reorg rollback with
 * retractions, store, publish — see server/domains/chain/Listener.ts); while catching up, the next blocks are fetched
 * ahead. Records stored but not published before a crash are published at the next start (`recover`). This file
 * keeps the loop: heads, lag, the head-latency histogram.
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
import { ChainListener, type ChainSourceShape } from "../../server/domains/chain/Listener"
import { Metrics } from "../../server/platform/ops/Metrics"
import { loopActor } from "../../server/platform/actors/Actor"
import type { ActorHandle } from "../../server/platform/actors/Registry"

/** Blocks handled per round before the head is asked again. */
const ROUND_BLOCKS = 100

const life = (actor: ActorHandle) =>
  Effect.gen(function* () {
    const listener = yield* ChainListener
    const { settings } = listener
    const chain = yield* listener.open

    // Head latency: when each block became takeable, and how the listener learned it.
    const latency = (yield* Metrics).histogram(
      "chain_head_publish_seconds", "Block seen (a new head by subscription or by polling) to its records published, by how it was seen",
      [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30])
    const seen = new Map<number, { readonly at: number; readonly via: "subscription" | "polling" }>()
    let highestHead = -1
    const sawHead = (headNumber: number, via: "subscription" | "polling") => {
      if (headNumber <= highestHead) return
      // The first head a life reads by polling says where the chain is, not when a block appeared; a head the node
      // pushes is always news, even when it comes before the life's first poll.
      const news = highestHead >= 0 || via === "subscription"
      highestHead = headNumber
      if (news) seen.set(headNumber - settings.confirmations, { at: Date.now(), via })
      if (seen.size > 1_000) for (const k of [...seen.keys()].slice(0, seen.size - 1_000)) seen.delete(k)
    }
    const measure = (n: number) => {
      const s = seen.get(n)
      if (s === undefined) return
      seen.delete(n)
      latency.observe({ via: s.via }, (Date.now() - s.at) / 1000)
    }
    const wake = yield* Queue.sliding<number>(1)
    const watchHeads = listener.watchHeads
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

    // What a previous life stored or rolled back but did not publish goes out before any new record.
    yield* chain.recover
    yield* Effect.logInfo(`following the ${listener.kind} chain from block ${chain.start} (${chain.walletCount()} tracked wallets)`)

    const step = (view: ChainSourceShape, n: number) =>
      Effect.gen(function* () {
        const taken = yield* chain.take(view, n)
        if (taken.outcome === "stored") {
          measure(n)
          actor.handled(taken.written)
        }
        return taken.outcome
      })

    let lag = -1
    let lastReread = 0
    while (true) {
      actor.heartbeat()
      const latest = yield* chain.head
      sawHead(latest, "polling")
      const target = latest - settings.confirmations
      const next = chain.next()
      if (Math.max(0, target - next + 1) !== lag) {
        lag = Math.max(0, target - next + 1)
        actor.update({ lag })
      }
      if (next > target) {
        // Caught up: the spare time goes to tokens stored as unknown that are due for another read.
        if (Date.now() - lastReread >= settings.tokenRereadMs) {
          lastReread = Date.now()
          yield* chain.rereadTokens
        }
        yield* nextHead
        continue
      }
      yield* chain.refreshWallets
      const last = Math.min(target, next + ROUND_BLOCKS - 1)
      yield* Effect.scoped(Effect.gen(function* () {
        const view = yield* chain.prefetch(next, last)
        for (let n = next; n <= last; n++) {
          const outcome = yield* step(view, n)
          if (outcome === "later") yield* Effect.sleep(Duration.millis(settings.pollMs))
          if (outcome !== "stored") break
        }
      }))
    }
  })

export const BlockListenerActor = loopActor({ name: "block-listener", singleton: true, run: life })
