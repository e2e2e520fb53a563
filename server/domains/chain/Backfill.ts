/**
 * Backfill: blocks `from`..`to` of the configured source through the same decoding and pricing as the listener,
 * for the stored wallets plus any given for this run, stored idempotently (records already stored are left as
 * they are, whoever stored them). It neither moves the listener's checkpoint nor publishes on `chain.tx`:
 * historical records are not news. A dry run writes nothing, and sees the reference data as the real run would
 * (the database overlaid with the seed files, which a real run seeds first).
 *
 * Prices are learned from the range itself, in chain order: WETH-paired records before the first ETH/USD
 * observation of the range keep `usd = null`.
 */
import { Data, Effect } from "effect"
import { ChainConfig } from "./Config"
import { ChainCatalog, type ExtraWallet } from "./Catalog"
import { fetchBlock, persistentRetry, retryTemporary } from "./Fetch"
import { prefetching } from "./Prefetch"
import { ChainRepo } from "./Repo"
import { ChainSource } from "./Source"
import type { WhaleRecord } from "./Types"

export class BeyondHead extends Data.TaggedError("BeyondHead")<{ readonly to: number; readonly head: number }> {
  override get message() {
    return `block ${this.to} is beyond the chain head (${this.head})`
  }
}

export interface BackfillRequest {
  readonly from: number
  readonly to: number
  readonly extraWallets: ReadonlyArray<ExtraWallet>
  readonly dryRun: boolean
  /** Called for every block, in order, with its records. */
  readonly onBlock: (number: number, records: ReadonlyArray<WhaleRecord>) => Effect.Effect<void>
}

export interface BackfillResult {
  readonly blocks: number
  readonly records: number
  /** Records newly written (0 in a dry run). */
  readonly stored: number
  readonly wallets: number
  readonly source: string
}

/** Records are written in batches of about this many (one INSERT each), and at least every FLUSH_BLOCKS blocks. */
const FLUSH_RECORDS = 1_000
const FLUSH_BLOCKS = 100

export const backfill = Effect.fn("Backfill.run")(function* (request: BackfillRequest) {
  const chain = yield* ChainConfig
  const source = yield* ChainSource
  const repo = yield* ChainRepo
  const catalog = yield* ChainCatalog
  const retry = persistentRetry(chain.retryBaseMs, chain.retryMaxMs)
  const { from, to, dryRun } = request

  if (!dryRun) yield* catalog.seed()
  const session = yield* catalog.open({ extraWallets: request.extraWallets, readOnly: dryRun })
  const head = yield* retryTemporary(source.latestBlockNumber, retry, "eth_blockNumber")
  if (to > head) return yield* new BeyondHead({ to, head })

  let pending: Array<WhaleRecord> = []
  let records = 0
  let stored = 0
  const flush = Effect.gen(function* () {
    yield* session.saveLearnedTokens
    if (dryRun || pending.length === 0) return
    stored += yield* repo.insertRecords(pending, source.kind)
    pending = []
  })

  yield* Effect.scoped(Effect.gen(function* () {
    const view = yield* prefetching(source, { fromBlock: from, toBlock: to }, chain.prefetchBlocks)
    for (let n = from; n <= to; n++) {
      const block = yield* fetchBlock(view, n, session.context(), retry)
      records += block.records.length
      if (!dryRun) pending.push(...block.records)
      if (pending.length >= FLUSH_RECORDS || (n - from) % FLUSH_BLOCKS === FLUSH_BLOCKS - 1) yield* flush
      yield* request.onBlock(n, block.records)
    }
  }))
  yield* flush
  return { blocks: to - from + 1, records, stored, wallets: session.walletCount(), source: source.kind } satisfies BackfillResult
})
