/**
 * The chain source: one interface, three implementations (ARCHITECTURE §6).
 *  - `rpc`    (RpcSource.ts)    viem against a JSON-RPC node (HTTP or WebSocket).
 *  - `replay` (ReplaySource.ts) recorded blocks (ethereum-etl JSON lines) for tests and demos.
 *  - `demo`   (DemoSource.ts)   a deterministic generator of whale activity on real token addresses.
 *
 * Errors: transport and node failures are `RpcError`; `retryable` says whether backing off and trying again can
 * help (rate limits, 5xx, timeouts). Callers retry with `retryRpc`. A token whose metadata cannot be read is not
 * an error: `readTokenMeta` answers `UNKNOWN_TOKEN` and fails only when the node itself failed retryably.
 */
import { Context, Data, Effect, Schedule, type Duration } from "effect"
import type { ChainBlock, InternalTransfer, RawLog } from "./Types"

export type SourceKind = "rpc" | "replay" | "demo"

export class RpcError extends Data.TaggedError("RpcError")<{
  readonly method: string
  readonly message: string
  readonly retryable: boolean
  /** HTTP status when the transport saw one. */
  readonly status?: number
  /** JSON-RPC error code when the node answered with one. */
  readonly code?: number
}> {}

/** The block is not (yet) known to the source: beyond its head, or dropped by a reorg. */
export class BlockNotFound extends Data.TaggedError("BlockNotFound")<{ readonly number: number }> {}

export interface BlockRange {
  readonly fromBlock: number
  readonly toBlock: number
}

export interface TokenMeta {
  readonly symbol: string
  readonly decimals: number | null
}

export const UNKNOWN_TOKEN: TokenMeta = { symbol: "UNKNOWN", decimals: null }

export interface HolderBalances {
  readonly eth: bigint | null
  /** In the order of the tokens asked. */
  readonly tokens: ReadonlyArray<bigint | null>
}

export interface TxReceipt {
  readonly status: "success" | "reverted"
  readonly blockHash: string
  readonly logs: ReadonlyArray<RawLog>
}

export interface ChainSourceShape {
  readonly kind: SourceKind
  readonly latestBlockNumber: Effect.Effect<number, RpcError>
  /** The block with its full transactions. */
  readonly getBlock: (number: number) => Effect.Effect<ChainBlock, RpcError | BlockNotFound>
  /**
   * The logs of LogTopics.ts in the range, in chain order: ERC-20 Transfer and WETH Deposit/Withdrawal (what decoding
   * reads), DEX swap and settlement events (what the block taps read).
   */
  readonly getLogs: (range: BlockRange) => Effect.Effect<ReadonlyArray<RawLog>, RpcError>
  /** The receipt (status and all logs), or null when the transaction is unknown. */
  readonly getReceipt: (txHash: string) => Effect.Effect<TxReceipt | null, RpcError>
  /** ERC-20 symbol() and decimals(); `UNKNOWN_TOKEN` (or a null field) for tokens that revert or answer oddly. */
  readonly readTokenMeta: (address: string) => Effect.Effect<TokenMeta, RpcError>
  /**
   * Follows new heads by subscription (`eth_subscribe newHeads`, WebSocket sources only): calls `onHead` with each
   * new head's number; runs until the subscription fails (then fails with the reason), and unsubscribes when
   * interrupted. Absent on sources that can only be polled.
   */
  readonly watchHeads?: (onHead: (blockNumber: number) => void) => Effect.Effect<never, RpcError>
  /**
   * ERC-20 totalSupply() in base units (eth_call at the latest block); null when the token reverts or answers oddly.
   * Absent on sources that hold no contract state (demo, replay).
   */
  readonly readTotalSupply?: (address: string) => Effect.Effect<bigint | null, RpcError>
  /**
   * The code at each address at the latest block (`eth_getCode`, sent together: one JSON-RPC batch over HTTP): "0x"
   * for an EOA, `0xef0100` ‖ address for an EOA delegating under EIP-7702, null where that one read failed. Absent on
   * sources that hold no contract state (demo, replay).
   */
  readonly getCodes?: (addresses: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string | null>, RpcError>
  /**
   * Each holder's ETH balance (`eth_getBalance`) and its balance of each token (`balanceOf` over `eth_call`) at the
   * latest block, all sent together (one JSON-RPC batch over HTTP); null where that one read failed. Whale discovery
   * measures candidates with it. Absent on sources that hold no contract state (demo, replay).
   */
  readonly getBalances?: (holders: ReadonlyArray<string>, tokens: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<HolderBalances>, RpcError>
  /**
   * Native ETH moved by the transaction's internal calls, from the node's call traces (Traces.ts); null when the
   * node offers no traces. Absent on sources without traces (demo, replay) or with CHAIN_TRACES=off.
   */
  readonly internalTransfers?: (txHash: string) => Effect.Effect<ReadonlyArray<InternalTransfer> | null, RpcError>
}

export class ChainSource extends Context.Tag("app/ChainSource")<ChainSource, ChainSourceShape>() {}

/** Exponential back-off with jitter, capped, for retryable RPC failures. */
export const rpcRetrySchedule = (base: Duration.DurationInput = "200 millis", times = 6) =>
  Schedule.exponential(base, 2).pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(times)))

/** Retries `effect` while it fails with a retryable `RpcError`. */
export const retryRpc = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  schedule: Schedule.Schedule<unknown, unknown> = rpcRetrySchedule()
) =>
  Effect.retry(effect, {
    schedule,
    while: (e) => e instanceof RpcError && e.retryable
  })

/** Validates a symbol() answer: printable, short, trimmed; anything else is UNKNOWN. */
export const cleanSymbol = (raw: string): string => {
  const s = raw.replace(/\0/g, "").trim()
  return s.length > 0 && s.length <= 32 && /^[\x20-\x7e\u00a0-\uffff]+$/u.test(s) ? s : UNKNOWN_TOKEN.symbol
}
