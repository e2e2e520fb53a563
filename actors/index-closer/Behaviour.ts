/**
 * The index-closer (scheduled, singleton): stores each UTC day's Whale Sentiment Index close shortly after the day
 * ends (INDEX_CLOSE_DELAY_SECONDS later, so late blocks count), and on start — and every INDEX_CHECK_SECONDS —
 * backfills the closes of the last 30 days that have records but no close. Storing is idempotent (a day keeps its
 * first close), so a second process doing the same work changes nothing. While the demo chain's history is being
 * stored (chain's DemoHistory) it closes nothing — a day would be closed from part of its records — and once the
 * history is complete it closes every day of it (the 30-day chart reads stored closes). No persisted state of its own.
 */
import { Clock, Duration, Effect } from "effect"
import { Analytics } from "../../server/domains/analytics/Analytics"
import { DemoHistory } from "../../server/domains/chain/demo/DemoHistory"
import { loopActor } from "../../server/platform/actors/Actor"
import type { ActorHandle } from "../../server/platform/actors/Registry"

const life = (actor: ActorHandle) =>
  Effect.gen(function* () {
    const analytics = yield* Analytics
    const history = yield* DemoHistory
    while (true) {
      const demo = yield* history.status
      // On the demo chain with a history to store, wait for it to begin (its row) and to end.
      if (demo?.inProgress === true || (demo === null && history.expected)) {
        actor.heartbeat()
        yield* Effect.sleep(Duration.seconds(2))
        continue
      }
      const closed = yield* analytics.closeDueDays(demo?.days ?? 0)
      for (const day of closed) actor.handled()
      if (closed.length > 0) yield* Effect.logInfo(`stored index close(s): ${closed.join(", ")}`)
      actor.heartbeat()
      const now = yield* Clock.currentTimeMillis
      yield* Effect.sleep(Duration.millis(analytics.nextCloseCheckMs(now)))
    }
  })

export const IndexCloserActor = loopActor({ name: "index-closer", singleton: true, run: life })
