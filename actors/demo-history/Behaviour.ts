/**
 * The demo-history actor (singleton): on the demo chain, a first start generates DEMO_HISTORY_DAYS of whale activity
 * ending where the listener's own history begins, and stores it in the background while the service already serves
 * (server/domains/chain/demo). Progress: `handled` counts the records stored, `lag` the hours still to store (both on
 * /ops and /metrics), and the log says how far it is every tenth of the way. A restart resumes where it stopped; once
 * the history is complete the actor only keeps its heartbeat. Persisted state: the demo_history row (migration 0040).
 */
import { Duration, Effect } from "effect"
import { ChainConfig } from "../../server/domains/chain/Config"
import { writeDemoHistory, type HistoryProgress } from "../../server/domains/chain/demo/Writer"
import { DATA_DIR, loadReference } from "../../server/domains/chain/Reference"
import { ChainSource } from "../../server/domains/chain/Source"
import { loopActor } from "../../server/platform/actors/Actor"
import type { ActorHandle } from "../../server/platform/actors/Registry"

const HOUR = 3_600_000
const IDLE = Duration.minutes(1)

const life = (actor: ActorHandle) =>
  Effect.gen(function* () {
    const chain = yield* ChainConfig
    const source = yield* ChainSource
    const idle = Effect.forever(Effect.sync(() => actor.heartbeat()).pipe(Effect.zipRight(Effect.sleep(IDLE))))
    if (source.kind !== "demo" || chain.demoHistoryDays <= 0) {
      actor.update({ lag: 0 })
      return yield* idle
    }
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
    const settings = {
      seed: chain.demoSeed, days: chain.demoHistoryDays, listenerBlocks: chain.demoHistoryBlocks, reference: loadReference(),
      dataDir: DATA_DIR, clock: { anchorBlock: 20_000_000, anchorTime: 1_717_200_000, blockMs: Math.max(1, chain.demoBlockMs) }
    }
    const result = yield* writeDemoHistory(settings, onProgress)
    if (result !== null && !result.resumed && result.done) {
      yield* Effect.logInfo(`demo history stored: ${result.records.toLocaleString("en-US")} records over ${chain.demoHistoryDays} days in ${((Date.now() - started) / 1000).toFixed(1)} s`)
    } else if (result !== null && result.resumed) {
      yield* Effect.logInfo(`demo history complete (${result.records.toLocaleString("en-US")} records)`)
    }
    actor.update({ lag: 0 })
    return yield* idle
  })

export const DemoHistoryActor = loopActor({ name: "demo-history", singleton: true, run: life })
