/**
 * The index-closer (scheduled, singleton): stores each UTC day's Whale Sentiment Index close shortly after the day
 * ends (INDEX_CLOSE_DELAY_SECONDS later, so late blocks count), and on start — and every INDEX_CHECK_SECONDS —
 * backfills the closes of the last 30 days that have records but no close. Storing is idempotent (a day keeps its
 * first close), so a second process doing the same work changes nothing. No persisted state of its own.
 */
import { Clock, Duration, Effect } from "effect"
import { Analytics } from "../../server/analytics/Analytics"
import { DAY_MS, dayStart } from "../../server/analytics/Windows"
import { AppConfig } from "../../server/Config"
import { loopActor } from "../runtime/Actor"
import type { ActorHandle } from "../runtime/Registry"

/** Milliseconds from `now` until the next day boundary as seen `delayMs` late (plus a second). */
export const untilNextClose = (now: number, delayMs: number) => dayStart(now - delayMs) + DAY_MS + delayMs - now + 1_000

const life = (actor: ActorHandle) =>
  Effect.gen(function* () {
    const analytics = yield* Analytics
    const { analytics: settings } = yield* AppConfig
    const delayMs = settings.indexCloseDelaySeconds * 1000
    while (true) {
      const closed = yield* analytics.closeMissingDays(settings.indexCloseDelaySeconds)
      for (const day of closed) actor.handled()
      if (closed.length > 0) yield* Effect.logInfo(`stored index close(s): ${closed.join(", ")}`)
      actor.heartbeat()
      const now = yield* Clock.currentTimeMillis
      yield* Effect.sleep(Duration.millis(Math.min(untilNextClose(now, delayMs), settings.indexCheckSeconds * 1000)))
    }
  })

export const IndexCloserActor = loopActor({ name: "index-closer", singleton: true, run: life })
