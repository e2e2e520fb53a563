/**
 * The `replay` chain source: recorded blocks from an ethereum-etl export folder, served in order.
 *
 * The head starts at the last recorded block (or `head`), and tests and demos may move it with `setHead` to
 * let a listener "discover" blocks one by one. Token metadata comes from a lookup (default: data/tokens.json),
 * since a recording has no contract state.
 */
import { Effect, Layer } from "effect"
import { etlChainBlocks, etlLog, readEtlDir } from "./Etl"
import { READ_TOPICS } from "./LogTopics"
import { loadReference } from "./Reference"
import { BlockNotFound, ChainSource, UNKNOWN_TOKEN, type ChainSourceShape, type TokenMeta, type TxReceipt } from "./Source"
import type { ChainBlock, RawLog } from "./Types"

export interface ReplayOptions {
  /** Folder with `expected_blocks.json`, `expected_transactions.json`, `expected_logs.json` (or `blocks.json`…). */
  readonly dir: string
  /** Highest block served at start (default: the last recorded one). */
  readonly head?: number
  readonly tokenMeta?: (address: string) => TokenMeta | undefined
}

export interface ReplaySource extends ChainSourceShape {
  readonly kind: "replay"
  /** Recorded block numbers, ascending. */
  readonly recorded: ReadonlyArray<number>
  /** Moves the head; blocks above it are reported as not found. */
  readonly setHead: (number: number) => void
}


const defaultTokenMeta = (): ((address: string) => TokenMeta | undefined) => {
  const { tokens } = loadReference()
  return (address) => tokens.get(address.toLowerCase())
}

/** Builds a replay source from in-memory blocks and logs (the ETL loader below is the usual way in). */
export const replayFrom = (
  blocks: ReadonlyArray<ChainBlock>,
  logs: ReadonlyArray<RawLog>,
  options: Omit<ReplayOptions, "dir"> = {}
): ReplaySource => {
  const byNumber = new Map(blocks.map((b) => [b.number, b]))
  const recorded = [...byNumber.keys()].sort((a, b) => a - b)
  const sortedLogs = [...logs].sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex)
  const txs = new Map(blocks.flatMap((b) => b.transactions.map((t) => [t.hash, t] as const)))
  const meta = options.tokenMeta ?? defaultTokenMeta()
  let head = options.head ?? recorded.at(-1) ?? 0

  const receipt = (hash: string): TxReceipt | null => {
    const tx = txs.get(hash)
    if (tx === undefined || tx.blockNumber > head) return null
    return {
      status: tx.status ?? "success",
      blockHash: tx.blockHash,
      logs: sortedLogs.filter((l) => l.transactionHash === hash)
    }
  }

  return {
    kind: "replay",
    recorded,
    setHead: (n) => {
      head = n
    },
    latestBlockNumber: Effect.sync(() => head),
    getBlock: (n) => {
      const block = byNumber.get(n)
      return block === undefined || n > head ? Effect.fail(new BlockNotFound({ number: n })) : Effect.succeed(block)
    },
    getLogs: ({ fromBlock, toBlock }) =>
      Effect.sync(() =>
        sortedLogs.filter((l) =>
          l.blockNumber >= fromBlock && l.blockNumber <= Math.min(toBlock, head) &&
          READ_TOPICS.has(l.topics[0] ?? "")
        )
      ),
    getReceipt: (hash) => Effect.sync(() => receipt(hash.toLowerCase())),
    readTokenMeta: (address) => Effect.sync(() => meta(address) ?? UNKNOWN_TOKEN)
  }
}

/** Loads an ethereum-etl export folder (synchronously; a missing or malformed file is a defect). */
export const makeReplaySource = (options: ReplayOptions): Effect.Effect<ReplaySource> =>
  Effect.sync(() => {
    const data = readEtlDir(options.dir)
    const { dir: _dir, ...rest } = options
    return replayFrom(etlChainBlocks(data), data.logs.map(etlLog), rest)
  })

/** The `replay` source as the app's `ChainSource`. */
export const ReplaySourceLive = (options: ReplayOptions) => Layer.effect(ChainSource, makeReplaySource(options))
