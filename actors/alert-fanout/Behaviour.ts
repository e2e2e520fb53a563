/**
 * The alert-fanout actors: one consumes `chain.tx`, the other `domain.events`; both hand each message to the
 * AlertFanout service (in-memory index, one delivery per (alert, record), `notify`). Records are handled many at
 * a time: matching is synchronous and in memory, and the handlers of one read share one database write.
 * Transient state (index, convergence window, cooldowns) is rebuilt from the database at start.
 */
import { Effect } from "effect"
import { STREAMS, type ChainStreamMessage, type DomainEvent } from "../../schema/streams"
import { AlertFanout } from "../../server/domains/alerts/matching/Fanout"
import { streamActor } from "../../server/platform/actors/Actor"
import { ActorRegistry } from "../../server/platform/actors/Registry"
import { FanoutEventMessage, FanoutRecordMessage } from "./Protocol"

/** One shard (ALERT_SHARDS=1, the default): these two actors hold the whole index. */
const unsharded = Effect.map(AlertFanout, (f) => f.shards === 1)

export const AlertFanoutActor = streamActor({
  name: "alert-fanout",
  stream: STREAMS.chainTx,
  schema: FanoutRecordMessage,
  // With ALERT_SHARDS > 1 the alert-shards actor runs each shard's fan-out instead (./Shards.ts).
  active: unsharded,
  // The alerts of a block's records go first: the analytics fed by the same block wait for them (Priority.ts).
  priority: "urgent",
  // A whole block (2,400 records at worst) in one read, handled in one call (no fiber per record): one sync, one
  // write round, one set of notify messages.
  batch: 4096,
  behaviourMany: Effect.gen(function* () {
    const fanout = yield* AlertFanout
    const registry = yield* ActorRegistry
    // Where the notifier runs in this process, what the fan-out records is sent from here (claimed as it is written,
    // no `notify` hop); where WHALE_ACTORS put the notifier in other processes, it goes on `notify` for them.
    return (messages: ReadonlyArray<ChainStreamMessage>) =>
      Effect.flatMap(registry.readsHere(STREAMS.notify), (local) => fanout.handleMessages(messages, local))
  })
})

export const AlertEventsActor = streamActor({
  name: "alert-events",
  stream: STREAMS.domainEvents,
  schema: FanoutEventMessage,
  active: unsharded,
  // Event alerts (picks flagged, index crosses) wait for the record alerts of a block in progress.
  priority: "deferrable",
  behaviour: Effect.gen(function* () {
    const fanout = yield* AlertFanout
    const registry = yield* ActorRegistry
    return (message: DomainEvent) => Effect.flatMap(registry.readsHere(STREAMS.notify), (local) => fanout.handleEvent(message, local))
  })
})
