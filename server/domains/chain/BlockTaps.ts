/**
 * Readers of every block the listener stores, registered by the modules above the chain (the identity engine): the
 * chain domain knows nothing of them, and they never block it. After a block's records are stored and published,
 * the listener hands each tap the block, its logs (LogTopics.ts) and the source it came from, one tap after the
 * other; a tap that fails is logged and skipped for that block (no retry: the chain moves on).
 *
 * A tap's cost is the listener's: `chain_tap_seconds{tap}` on /metrics, and bench/identity.ts for the identity tap.
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
    return {
      /** Adds a tap (at a module's start); it sees every block stored from then on. */
      register: (tap: BlockTap) => Effect.sync(() => void taps.push(tap)),
      all: (): ReadonlyArray<BlockTap> => taps
    } as const
  }
}) {}
