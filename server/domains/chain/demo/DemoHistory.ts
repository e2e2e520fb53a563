/**
 * The demo history as the rest of the program sees it: whether one is expected and being stored (the index closer
 * and the picks grader wait for it, so no day is closed from half its records), its window, and the writing itself
 * (the demo-history actor runs `write` in the background on a first start).
 */
import { Effect } from "effect"
import { ChainConfig } from "../Config"
import { DATA_DIR, loadReference } from "../Reference"
import { ChainRepo } from "../Repo"
import { ChainSource } from "../Source"
import { DemoHistoryRepo } from "./HistoryRepo"
import { writeDemoHistory, type HistoryProgress } from "./Writer"

export type { HistoryProgress } from "./Writer"

export interface DemoHistoryStatus {
  readonly from: Date
  readonly to: Date
  /** Everything before this is stored. */
  readonly storedTo: Date
  readonly records: number
  readonly inProgress: boolean
  readonly days: number
}

export class DemoHistory extends Effect.Service<DemoHistory>()("app/chain/DemoHistory", {
  dependencies: [DemoHistoryRepo.Default, ChainRepo.Default, ChainConfig.Default],
  effect: Effect.gen(function* () {
    const repo = yield* DemoHistoryRepo
    const chainRepo = yield* ChainRepo
    const chain = yield* ChainConfig
    const source = yield* ChainSource
    /** The history's status, or null when this database has none (not the demo chain, or DEMO_HISTORY_DAYS=0). */
    const status = repo.state.pipe(
      Effect.map((row): DemoHistoryStatus | null => row === null ? null : {
        from: row.from_ts, to: row.to_ts, storedTo: row.stored_to, records: row.records, inProgress: row.finished_at === null, days: row.days
      })
    )
    /**
     * Generates and stores the history, or the rest of one a previous start began (`onProgress` after every batch).
     * Null when there is none to store: not the demo chain, or DEMO_HISTORY_DAYS=0.
     */
    const write = (onProgress: (p: HistoryProgress) => Effect.Effect<void>) =>
      source.kind !== "demo" || chain.demoHistoryDays <= 0
        ? Effect.succeed(null)
        : writeDemoHistory({
          seed: chain.demoSeed, days: chain.demoHistoryDays, listenerBlocks: chain.demoHistoryBlocks, reference: loadReference(),
          dataDir: DATA_DIR, clock: { anchorBlock: 20_000_000, anchorTime: 1_717_200_000, blockMs: Math.max(1, chain.demoBlockMs) }
        }, onProgress).pipe(Effect.provideService(ChainRepo, chainRepo), Effect.provideService(DemoHistoryRepo, repo))
    return {
      status,
      write,
      /** A history is expected on this chain (the demo chain with DEMO_HISTORY_DAYS > 0), stored or not yet. */
      expected: chain.source === "demo" && chain.demoHistoryDays > 0,
      /** The days of history configured (DEMO_HISTORY_DAYS). */
      days: chain.demoHistoryDays
    } as const
  })
}) {}
