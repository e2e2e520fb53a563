/**
 * The demo history as the rest of the program sees it: whether one is being stored (the index closer waits for it,
 * so no day is closed from half its records) and its window.
 */
import { Effect } from "effect"
import { DemoHistoryRepo } from "./HistoryRepo"

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
  dependencies: [DemoHistoryRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* DemoHistoryRepo
    /** The history's status, or null when this database has none (not the demo chain, or DEMO_HISTORY_DAYS=0). */
    const status = repo.state.pipe(
      Effect.map((row): DemoHistoryStatus | null => row === null ? null : {
        from: row.from_ts, to: row.to_ts, storedTo: row.stored_to, records: row.records, inProgress: row.finished_at === null, days: row.days
      })
    )
    return { status } as const
  })
}) {}
