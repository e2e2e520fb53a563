/**
 * Readers of every block the listener stores, registered by the modules above the chain (the identity engine): the
 * chain domain knows nothing of them, and they never block it. After a block's records are stored and published,
 * the listener hands each tap the block, its logs (LogTopics.ts) and the source it came from, one tap after the
 * other; a tap that fails is logged and skipped for that block (no retry: the chain moves on).
 *
 * A tap's cost is the listener's: `chain_tap_seconds{tap}` on /metrics, and bench/identity.ts for the identity tap.
 *
 * The same modules tell decoding which addresses are exchange wallets beyond the label file (`noteExchanges`: the
 * identity engine's deposit addresses and operators' corrections), so a tracked wallet's transfer to or from one is
 * an exchange flow — or exchange housekeeping when the wallet is itself an exchange's (Decode.ts, issue 28 part 3).
 */
import { Effect } from "effect"
import type { ChainSourceShape } from "./Source"
import type { ChainBlock, RawLog } from "./Types"

export interface TappedBlock {
  readonly block: ChainBlock
  readonly logs: ReadonlyArray<RawLog>
  readonly source: ChainSourceShape
}

export interface BlockTap {
  readonly name: string
  readonly onBlock: (tapped: TappedBlock) => Effect.Effect<void, unknown>
}

export class ChainBlockTaps extends Effect.Service<ChainBlockTaps>()("app/chain/BlockTaps", {
  sync: () => {
    const taps: Array<BlockTap> = []
    const exchanges = new Map<string, string>()
    return {
      /** The exchange of an address the modules above said is an exchange wallet (decoding reads it per transfer). */
      exchangeOf: (address: string): string | undefined => exchanges.get(address),
      /** Sets (an exchange name) or clears (null) addresses' exchanges. */
      noteExchanges: (entries: Iterable<readonly [string, string | null]>) =>
        Effect.sync(() => {
          for (const [address, exchange] of entries) {
            if (exchange === null) exchanges.delete(address)
            else exchanges.set(address, exchange)
          }
        }),
      /** Adds a tap (at a module's start); it sees every block stored from then on. */
      register: (tap: BlockTap) => Effect.sync(() => void taps.push(tap)),
      all: (): ReadonlyArray<BlockTap> => taps
    } as const
  }
}) {}
