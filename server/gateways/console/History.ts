/**
 * How far a first start of the demo chain has come with its generated history: storing it (the demo-history actor,
 * progress in the demo_history row) and then replaying its picks (the picks-grader; the replay's own record count
 * when it runs in this process, else "under way"). Storing counts for 90 %, the picks replay for the rest.
 */
import { Effect } from "effect"
import type { HistoryReplay } from "../../../schema/http/console"
import { DemoHistory } from "../../domains/chain/demo/DemoHistory"
import { Picks } from "../../domains/picks/Picks"

const STORING_SHARE = 90

export const makeHistoryReplay = Effect.gen(function* () {
  const history = yield* DemoHistory
  const picks = yield* Picks
  return Effect.gen(function* () {
    if (!history.expected) return { replaying: false, percent: 100, step: "none", days: 0 } satisfies HistoryReplay
    const status = yield* history.status
    const days = history.days
    if (status === null) return { replaying: true, percent: 0, step: "storing", days } satisfies HistoryReplay
    if (status.inProgress) {
      const total = status.to.getTime() - status.from.getTime()
      const done = total <= 0 ? 1 : (status.storedTo.getTime() - status.from.getTime()) / total
      return { replaying: true, percent: Math.min(STORING_SHARE, Math.floor(Math.max(0, done) * STORING_SHARE)), step: "storing", days } satisfies HistoryReplay
    }
    const replay = yield* picks.historyReplay
    if (replay.done) return { replaying: false, percent: 100, step: "done", days } satisfies HistoryReplay
    const share = replay.records === null || status.records <= 0 ? 0 : Math.min(1, replay.records / status.records)
    return { replaying: true, percent: Math.min(99, STORING_SHARE + Math.floor(share * (100 - STORING_SHARE))), step: "picks", days } satisfies HistoryReplay
  })
})
