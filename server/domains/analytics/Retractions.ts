/**
 * How the analytics caches honour `chain.tx` retractions (a reorg rolled back records already published): every
 * process follows the stream from its tail (as the WebSocket relays do: `rangeAfter`, no consumer group) and, when
 * a retraction arrives, drops its cached read models (`ReadModels.invalidateAll`) and signals `changed`, on which
 * the console-snapshots actor recomputes and republishes at once instead of at its next period. The read models
 * themselves are computed from the database, where the rollback already deleted the records.
 */
import { Duration, Effect, PubSub, Schedule, type Queue, type Scope } from "effect"
import { ChainStreamMessage, isRetraction, STREAMS } from "../../../schema/streams"
import { Bus } from "../../platform/infra/Bus"
import { Metrics } from "../../platform/ops/Metrics"
import { ReadModels } from "./ReadModels"

/** How often the stream is read (the in-process bus and Redis alike). */
const POLL_MS = 500
const BATCH = 500

export class Retractions extends Effect.Service<Retractions>()("app/analytics/Retractions", {
  scoped: Effect.gen(function* () {
    const bus = yield* Bus
    const models = yield* ReadModels
    const counted = (yield* Metrics).counter("analytics_retractions_total", "chain.tx retractions seen by this process's analytics caches")
    const changed = yield* PubSub.sliding<number>(16)
    let seen = 0
    let last = (yield* bus.tail(STREAMS.chainTx, 1)).at(-1)?.id ?? "0-0"

    const round = Effect.gen(function* () {
      const entries = yield* bus.rangeAfter(STREAMS.chainTx, last, BATCH)
      if (entries.length === 0) return
      last = entries.at(-1)!.id
      const retracted = entries.filter((e) => {
        const m = ChainStreamMessage.safeParse(e.payload)
        return m.success && isRetraction(m.data)
      }).length
      if (retracted === 0) return
      seen += retracted
      counted.inc({}, retracted)
      yield* models.invalidateAll
      yield* PubSub.publish(changed, retracted)
      yield* Effect.logInfo(`${retracted} record(s) retracted by a reorg: analytics caches dropped`)
    })
    return {
      /** Follows `chain.tx` for ever (every POLL_MS): the module's `analytics-retractions` process. */
      follow: round.pipe(
        Effect.catchAllCause((cause) => Effect.logWarning("following chain.tx retractions failed", cause)),
        Effect.repeat(Schedule.spaced(Duration.millis(POLL_MS))),
        Effect.asVoid
      ),
      /** Retractions seen by this process. */
      seen: () => seen,
      /** A subscription that receives the count of each batch of retractions. */
      subscribe: PubSub.subscribe(changed) as Effect.Effect<Queue.Dequeue<number>, never, Scope.Scope>
    } as const
  })
}) {}

