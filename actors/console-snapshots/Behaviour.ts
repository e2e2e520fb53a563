/**
 * The console-snapshots actor (singleton): every CONSOLE_SNAPSHOT_MS it reads the sentiment index and the top
 * tokens (1H, 24H, 7D) from the analytics read models and publishes each that changed on `console.index` /
 * `console.top-tokens`, which every http process relays as the `index` and `top-tokens` topics. One producer for
 * the deployment, so every process sends the same snapshot under the same seq. Transient state: the last body
 * published per stream, read back from the stream at start so a restart republishes nothing unchanged. A reorg's
 * retraction on `chain.tx` (Retractions) wakes it at once: the snapshots are recomputed without the retracted records.
 */
import { randomUUID } from "node:crypto"
import { Duration, Effect, Queue } from "effect"
import type { Timeframe } from "../../schema/http/analytics"
import { CONSOLE_STREAMS, type IndexSnapshot, type TopTokensSnapshot } from "../../schema/ws"
import { ReadModels } from "../../server/domains/analytics/ReadModels"
import { Retractions } from "../../server/domains/analytics/Retractions"
import { AppConfig } from "../../server/platform/Config"
import { Bus, type StreamPayload } from "../../server/platform/infra/Bus"
import { loopActor } from "../../server/platform/actors/Actor"
import type { ActorHandle } from "../../server/platform/actors/Registry"

/** Snapshots kept in each stream (subscribers only ever get the newest per key). */
const KEPT = 200
const TIMEFRAMES: ReadonlyArray<Timeframe> = ["1H", "24H", "7D"]
const TOP_LIMIT = 10

/** What identifies a snapshot's content: the body without its id and timestamp. */
const content = (payload: StreamPayload) => {
  const { messageId: _id, generated_at: _at, ...rest } = payload
  return JSON.stringify(rest)
}

const life = (actor: ActorHandle) =>
  Effect.scoped(Effect.gen(function* () {
    const models = yield* ReadModels
    const retracted = yield* (yield* Retractions).subscribe
    const bus = yield* Bus
    const { ws } = yield* AppConfig
    const last = new Map<string, string>()
    for (const stream of [CONSOLE_STREAMS.index, CONSOLE_STREAMS.topTokens]) {
      for (const entry of yield* bus.tail(stream, TIMEFRAMES.length)) {
        const key = stream === CONSOLE_STREAMS.index ? stream : `${stream}:${(entry.payload as { top?: { timeframe?: string } }).top?.timeframe}`
        last.set(key, content(entry.payload))
      }
    }
    const publishIfChanged = (key: string, stream: string, body: Omit<IndexSnapshot, "generated_at"> | Omit<TopTokensSnapshot, "generated_at">) =>
      Effect.gen(function* () {
        const payload: StreamPayload = { messageId: randomUUID(), ...body, generated_at: new Date().toISOString() }
        const text = content(payload)
        if (last.get(key) === text) return
        yield* bus.publish(stream, payload, KEPT)
        last.set(key, text)
        actor.handled()
      })
    while (true) {
      const [index, { source, demo }] = yield* Effect.all([models.whaleIndex(), models.source()])
      yield* publishIfChanged(CONSOLE_STREAMS.index, CONSOLE_STREAMS.index, { index: index.value, source, demo })
      for (const tf of TIMEFRAMES) {
        const top = yield* models.topTokens(tf, TOP_LIMIT)
        yield* publishIfChanged(`${CONSOLE_STREAMS.topTokens}:${tf}`, CONSOLE_STREAMS.topTokens, { top: top.value, source, demo })
      }
      actor.heartbeat()
      yield* Effect.race(Effect.sleep(Duration.millis(ws.snapshotMs)), Queue.take(retracted))
    }
  }))

export const ConsoleSnapshotsActor = loopActor({ name: "console-snapshots", singleton: true, run: life })
