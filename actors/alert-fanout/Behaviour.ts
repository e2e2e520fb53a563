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
import { FanoutEventMessage, FanoutRecordMessage } from "./Protocol"

/** One shard (ALERT_SHARDS=1, the default): these two actors hold the whole index. */
const unsharded = Effect.map(AlertFanout, (f) => f.shards === 1)

export const AlertFanoutActor = streamActor({
  name: "alert-fanout",
  stream: STREAMS.chainTx,
  schema: FanoutRecordMessage,
  // With ALERT_SHARDS > 1 the alert-shards actor runs each shard's fan-out instead (./Shards.ts).
  active: unsharded,
  // A whole block (2,400 records at worst) in one read, handled in one call (no fiber per record): one sync, one
  // write round, one set of notify messages.
  batch: 4096,
  behaviourMany: Effect.gen(function* () {
    const fanout = yield* AlertFanout
    return (messages: ReadonlyArray<ChainStreamMessage>) => fanout.handleMessages(messages)
  })
})

export const AlertEventsActor = streamActor({
  name: "alert-events",
  stream: STREAMS.domainEvents,
  schema: FanoutEventMessage,
  active: unsharded,
  behaviour: Effect.gen(function* () {
    const fanout = yield* AlertFanout
    return (message: DomainEvent) => fanout.handleEvent(message)
  })
})
