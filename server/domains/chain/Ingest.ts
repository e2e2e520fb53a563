/**
 * One block in, priced records out: the pure pipeline the block-listener actor runs for every block
 * (source → decode → price), without storage. Persistence, checkpoints and reorg handling are the actor's.
 *
 *  1. the block and its decodable logs; logs from another block hash mean a reorg happened between the two
 *     calls (`LogsMismatch`, retry the block);
 *  2. for transactions moving native ETH of a tracked wallet whose status the block does not carry, the receipt
 *     (a reverted transaction moves nothing);
 *  3. metadata of every token a tracked wallet moved (`TokenCache`, read once through the source);
 *  4. in transaction order: learn ETH/USD from the transaction, decode, price, learn from the priced records.
 */
import { Data, Effect, type Schedule } from "effect"
import { decodeTransaction, logsByTx, walletMovements, type DecodeContext, type ExchangeLookup } from "./Decode"
import { PriceBook } from "./PriceBook"
import type { LabelLookup } from "./Reference"
import { UNKNOWN_TOKEN, retryRpc, rpcRetrySchedule, type BlockNotFound, type ChainSourceShape, type RpcError } from "./Source"
import type { ChainBlock, InternalTransfer, RawLog, RawTx, ResolvedToken, WhaleRecord } from "./Types"

/** The logs answered for a block come from a different block hash than the block itself (a reorg in between). */
export class LogsMismatch extends Data.TaggedError("LogsMismatch")<{
  readonly number: number
  readonly blockHash: string
  readonly logsBlockHash: string
}> {}

/**
 * Token metadata: the seed (data/tokens.json) first, then whatever the chain says, remembered. A token whose
 * metadata could not be read because the node kept failing is reported UNKNOWN and not remembered.
 */
export class TokenCache {
  readonly #known = new Map<string, ResolvedToken>()
  /** Tokens read from the chain since the last `takeLearned` (for the caller to persist). */
  #learned: Array<ResolvedToken> = []

  constructor(
    seed: Iterable<ResolvedToken> = [],
    private readonly retry: Schedule.Schedule<unknown, unknown> = rpcRetrySchedule()
  ) {
    for (const t of seed) this.#known.set(t.address, t)
  }

  readonly lookup = (address: string): ResolvedToken | undefined => this.#known.get(address.toLowerCase())

  /** The tokens learned from the chain since the previous call. */
  takeLearned(): ReadonlyArray<ResolvedToken> {
    const learned = this.#learned
    this.#learned = []
    return learned
  }

  /** A token stored as unknown that a later read resolved: decoding uses its metadata from now on. */
  resolved(token: ResolvedToken): void {
    const known = this.#known.get(token.address)
    if (known === undefined || known.decimals === null || known.symbol === UNKNOWN_TOKEN.symbol) this.#known.set(token.address, token)
  }

  /** Reads the metadata of the given tokens not known yet (four at a time). Never fails. */
  resolve(source: ChainSourceShape, addresses: Iterable<string>): Effect.Effect<void> {
    const missing = [...new Set([...addresses].map((a) => a.toLowerCase()))].filter((a) => !this.#known.has(a))
    return Effect.forEach(missing, (address) =>
      retryRpc(source.readTokenMeta(address), this.retry).pipe(
        Effect.map((meta) => {
          const token = { address, ...meta, stable: false, eth_derivative: false, blacklisted: false }
          this.#known.set(address, token)
          this.#learned.push(token)
        }),
        Effect.catchAll((e) =>
          Effect.logWarning("token metadata unavailable").pipe(
            Effect.annotateLogs({ token: address, error: e.message, fallback: UNKNOWN_TOKEN.symbol })
          )
        )
      ), { concurrency: 4, discard: true })
  }
}

export interface IngestContext {
  readonly wallets: ReadonlySet<string>
  readonly labels: LabelLookup
  /** Exchange wallets beyond the labels (ChainBlockTaps.exchangeOf); labels alone when absent. */
  readonly exchangeOf?: ExchangeLookup
  readonly tokens: TokenCache
  readonly prices: PriceBook
}

export interface IngestedBlock {
  readonly block: ChainBlock
  /** The block's logs as read (LogTopics.ts): the block taps read them too. */
  readonly logs: ReadonlyArray<RawLog>
  readonly records: ReadonlyArray<WhaleRecord>
}

/** Fetches block `number` from `source` and turns its tracked wallets' transactions into priced records. */
export const ingestBlock = (source: ChainSourceShape, number: number, ctx: IngestContext) =>
  Effect.gen(function* () {
    const block = yield* source.getBlock(number)
    const logs = yield* source.getLogs({ fromBlock: number, toBlock: number })
    const stray = logs.find((l) => l.blockHash !== block.hash)
    if (stray !== undefined) {
      return yield* new LogsMismatch({ number, blockHash: block.hash, logsBlockHash: stray.blockHash })
    }
    const decodeCtx: DecodeContext = {
      wallets: ctx.wallets, tokens: ctx.tokens.lookup, labels: ctx.labels, ...(ctx.exchangeOf ? { exchangeOf: ctx.exchangeOf } : {})
    }
    const grouped = logsByTx(logs)
    const touched = block.transactions
      .map((tx) => ({ tx, logs: grouped.get(tx.hash) ?? [] }))
      .map((input) => ({ ...input, moves: walletMovements(input, decodeCtx) }))
      .filter((t) => t.moves.length > 0)

    const withStatus = yield* Effect.forEach(touched, (t) =>
      t.tx.status !== undefined || !t.moves.some((m) => m.logIndex < 0)
        ? Effect.succeed(t.tx)
        : source.getReceipt(t.tx.hash).pipe(
          Effect.map((r): RawTx => (r === null ? t.tx : { ...t.tx, status: r.status }))
        ), { concurrency: 4 })
    const status = new Map(withStatus.map((tx) => [tx.hash, tx.status]))
    // Call traces (when the source has them) for the transactions a tracked wallet sent or took part in: the exact
    // internal ETH transfers replace the guess from WETH Withdrawal events (Decode.ts). A trace that fails is skipped.
    const traced = new Map<string, ReadonlyArray<InternalTransfer>>()
    const readTraces = source.internalTransfers
    if (readTraces !== undefined) {
      const candidates = block.transactions.filter((tx) => tx.status !== "reverted" && (status.has(tx.hash) || (ctx.wallets.has(tx.from) && grouped.has(tx.hash))))
      yield* Effect.forEach(candidates, (tx) =>
        readTraces(tx.hash).pipe(
          Effect.map((internal) => void (internal !== null && traced.set(tx.hash, internal))),
          Effect.catchAll((e) => Effect.logWarning(`call trace of ${tx.hash} unavailable: ${e.message}`))
        ), { concurrency: 4, discard: true })
      for (const tx of candidates) if (traced.has(tx.hash) && !status.has(tx.hash)) status.set(tx.hash, tx.status)
    }
    yield* ctx.tokens.resolve(source, touched.flatMap((t) => t.moves.map((m) => m.token)))

    const records: Array<WhaleRecord> = []
    for (const tx of [...block.transactions].sort((a, b) => a.transactionIndex - b.transactionIndex)) {
      const txLogs = grouped.get(tx.hash) ?? []
      ctx.prices.observeTx(txLogs)
      const known = status.get(tx.hash)
      if (!status.has(tx.hash)) continue
      const internal = traced.get(tx.hash)
      const input = { tx: known === undefined ? tx : { ...tx, status: known }, logs: txLogs }
      for (const record of decodeTransaction(internal === undefined ? input : { ...input, internal }, decodeCtx)) {
        const priced = ctx.prices.price(record)
        ctx.prices.observe(priced)
        records.push(priced)
      }
    }
    return { block, logs, records } satisfies IngestedBlock
  })

export type IngestError = RpcError | BlockNotFound | LogsMismatch
