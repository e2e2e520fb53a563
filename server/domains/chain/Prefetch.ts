/**
 * Reading a range of blocks in order, faster: a view of the source in which the block and the logs of the next
 * `window` blocks are already being fetched while the current one is decoded (concurrently; over HTTP viem sends
 * requests issued together as one JSON-RPC batch). Order and results are unchanged: each block is still checked
 * against its logs, and a prefetched failure is handed over once, so that the caller's retry fetches afresh.
 * Prefetches still running when the scope closes are interrupted.
 */
import { Effect, Fiber } from "effect"
import type { BlockNotFound, BlockRange, ChainSourceShape, RpcError } from "./Source"
import type { ChainBlock, RawLog } from "./Types"

export const prefetching = (source: ChainSourceShape, range: BlockRange, window: number) =>
  Effect.gen(function* () {
    if (window <= 0 || range.toBlock <= range.fromBlock) return source
    const scope = yield* Effect.scope
    const blocks = new Map<number, Fiber.RuntimeFiber<ChainBlock, RpcError | BlockNotFound>>()
    const logs = new Map<number, Fiber.RuntimeFiber<ReadonlyArray<RawLog>, RpcError>>()
    let ahead = range.fromBlock

    /** Starts fetching every block up to `n + window` not started yet. */
    const fill = (n: number) =>
      Effect.gen(function* () {
        for (const last = Math.min(range.toBlock, n + window); ahead <= last; ahead++) {
          const k = ahead
          blocks.set(k, yield* Effect.forkIn(source.getBlock(k), scope))
          logs.set(k, yield* Effect.forkIn(source.getLogs({ fromBlock: k, toBlock: k }), scope))
        }
      })
    const take = <A, E>(started: Map<number, Fiber.RuntimeFiber<A, E>>, n: number, direct: Effect.Effect<A, E>) =>
      Effect.gen(function* () {
        if (n >= range.fromBlock && n <= range.toBlock) yield* fill(n)
        const fiber = started.get(n)
        if (fiber === undefined) return yield* direct
        started.delete(n)
        return yield* Fiber.join(fiber)
      })

    const view: ChainSourceShape = {
      ...source,
      getBlock: (n) => take(blocks, n, source.getBlock(n)),
      getLogs: (r) => (r.fromBlock === r.toBlock ? take(logs, r.fromBlock, source.getLogs(r)) : source.getLogs(r))
    }
    return view
  })
