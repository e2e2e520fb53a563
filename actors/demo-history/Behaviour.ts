/**
 * The demo-history actor (singleton): on the demo chain, a first start generates DEMO_HISTORY_DAYS of whale activity
 * ending where the listener's own history begins, and stores it in the background while the service already serves
 * (server/domains/chain/demo). Progress: `handled` counts the records stored, `lag` the hours still to store (both on
 * /ops and /metrics), and the log says how far it is every tenth of the way. A restart resumes where it stopped; once
 * the history is complete the actor only keeps its heartbeat. Persisted state: the demo_history row (migration 0040).
 */
import { Duration, Effect } from "effect"
import { DemoHistory, type HistoryProgress } from "../../server/domains/chain/demo/DemoHistory"
import { loopActor } from "../../server/platform/actors/Actor"
import type { ActorHandle } from "../../server/platform/actors/Registry"

const HOUR = 3_600_000
const IDLE = Duration.minutes(1)

const life = (actor: ActorHandle) =>
  Effect.gen(function* () {
    const history = yield* DemoHistory
    const idle = Effect.forever(Effect.sync(() => actor.heartbeat()).pipe(Effect.zipRight(Effect.sleep(IDLE))))
    const started = Date.now()
    let reported = -1
    let stored = 0
    const onProgress = (p: HistoryProgress) => Effect.gen(function* () {
      actor.heartbeat()
      actor.handled(p.records - stored)
      stored = p.records
      const total = p.to.getTime() - p.from.getTime()
      const done = total <= 0 ? 1 : (p.storedTo.getTime() - p.from.getTime()) / total
      actor.update({ lag: Math.max(0, Math.ceil((p.to.getTime() - p.storedTo.getTime()) / HOUR)) })
      const tenth = Math.floor(done * 10)
      if (tenth > reported) {
        reported = tenth
        yield* Effect.logInfo(`demo history: ${Math.round(done * 100)}% (${p.storedTo.toISOString().slice(0, 16)}Z of ${p.from.toISOString().slice(0, 10)}…${p.to.toISOString().slice(0, 10)}), ${p.records.toLocaleString("en-US")} records`)
      }
    })
    // Null when there is nothing to store (not the demo chain, or DEMO_HISTORY_DAYS=0): the actor only keeps its heartbeat.
    const result = yield* history.write(onProgress)
    if (result !== null && !result.resumed && result.done) {
      yield* Effect.logInfo(`demo history stored: ${result.records.toLocaleString("en-US")} records over ${history.days} days in ${((Date.now() - started) / 1000).toFixed(1)} s`)
    } else if (result !== null && result.resumed) {
      yield* Effect.logInfo(`demo history complete (${result.records.toLocaleString("en-US")} records)`)
    }
    actor.update({ lag: 0 })
    return yield* idle
  })

export const DemoHistoryActor = loopActor({ name: "demo-history", singleton: true, run: life })
