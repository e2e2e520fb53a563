/**
 * The alert-shards actor (ALERT_SHARDS > 1): the subscription index split by user into N shards (matching/Shard.ts),
 * each run by one process at a time under its own lease (`lease:alert-fanout:<k>`, server/platform/actors/Shards.ts);
 * a process runs the shards it holds, the shards spread over the processes that run this actor. A shard is three
 * mailboxes, all of its own:
 *  - `alert-fanout:<k>`: every record of `chain.tx`, through the group `alert-fanout.<k>`, matched against the
 *    shard's alerts only; its deliveries go on `notify.<k>`;
 *  - `alert-events:<k>`: every `domain.events` event, through the group `alert-events.<k>` (pick_flagged,
 *    index_cross, playbook alerts of the shard's users);
 *  - `notifier:<k>`: `notify.<k>`, so a shard's notifier work follows its shard.
 * A shard taken over resumes from its groups: the entries its last holder read but did not ack are taken over after
 * ACTOR_CLAIM_IDLE_MS, and handled again without a delivery doubled (deliveries are unique on their key, claims
 * are taken in the database). With one shard (the default) this actor does not run: alert-fanout, alert-events and
 * notifier do, as before.
 */
import { Effect } from "effect"
import { NotifyMessage, notifyStreamOf, STREAMS, type ChainStreamMessage, type DomainEvent } from "../../schema/streams"
import { AlertNotifier } from "../../server/domains/alerts/delivery/Notifier"
import { AlertShardFanouts } from "../../server/domains/alerts/matching/Shards"
import { loopActor, streamActor, type StreamActorDef } from "../../server/platform/actors/Actor"
import { mailboxLife } from "../../server/platform/actors/Mailbox"
import { ActorRegistry, type ActorHandle } from "../../server/platform/actors/Registry"
import { shardedLife } from "../../server/platform/actors/Shards"
import { FanoutEventMessage, FanoutRecordMessage } from "./Protocol"

/** Shard k's three mailboxes (as the unsharded actors', with names, groups and the notify stream of their own). */
const mailboxesOf = (k: number, count: number) =>
  Effect.gen(function* () {
    const fanout = yield* (yield* AlertShardFanouts).forShard(k)
    const notifier = yield* AlertNotifier
    return {
      records: streamActor({
        name: `alert-fanout:${k}`, stream: STREAMS.chainTx, group: `alert-fanout.${k}`, schema: FanoutRecordMessage, batch: 4096, priority: "urgent",
        // The shard's notifier is in this process with it: what it records is sent from here (no `notify.<k>` hop).
        behaviourMany: Effect.succeed((messages: ReadonlyArray<ChainStreamMessage>) => fanout.handleMessages(messages, true))
      }),
      events: streamActor({
        name: `alert-events:${k}`, stream: STREAMS.domainEvents, group: `alert-events.${k}`, schema: FanoutEventMessage, priority: "deferrable",
        behaviour: Effect.succeed((message: DomainEvent) => fanout.handleEvent(message, true))
      }),
      notifier: streamActor({
        name: `notifier:${k}`, stream: notifyStreamOf(k, count), group: "notifier", schema: NotifyMessage, batch: 256, priority: "urgent",
        behaviourMany: Effect.succeed((messages: ReadonlyArray<NotifyMessage>) => notifier.deliver(messages.flatMap((m) => m.delivery_ids)))
      })
    } as const
  })

export const AlertShardsActor = loopActor({
  name: "alert-shards",
  active: Effect.map(AlertShardFanouts, (s) => s.count > 1),
  run: (actor) =>
    Effect.gen(function* () {
      const { count } = yield* AlertShardFanouts
      const registry = yield* ActorRegistry
      /** Each shard's mailboxes in the registry (standby while another process holds the shard). */
      const handles = new Map<string, ActorHandle>()
      const handleOf = (name: string, stream: string, group: string) => {
        let h = handles.get(name)
        if (h === undefined) {
          handles.set(name, h = registry.register(name, "stream", stream, group))
          h.update({ state: "standby" })
        }
        return h
      }
      const defsOf = (k: number) => [
        { name: `alert-fanout:${k}`, stream: STREAMS.chainTx, group: `alert-fanout.${k}` },
        { name: `alert-events:${k}`, stream: STREAMS.domainEvents, group: `alert-events.${k}` },
        { name: `notifier:${k}`, stream: notifyStreamOf(k, count), group: "notifier" }
      ]
      for (let k = 0; k < count; k++) for (const d of defsOf(k)) handleOf(d.name, d.stream, d.group)

      yield* shardedLife({
        name: "alert-fanout",
        count,
        life: (k) =>
          Effect.gen(function* () {
            const { records, events, notifier } = yield* mailboxesOf(k, count)
            const life = <M>(d: StreamActorDef<M, never>) => mailboxLife(d, handleOf(d.name, d.stream, d.group!))
            yield* Effect.all([life(records), life(events), life(notifier)], { concurrency: "unbounded", discard: true })
          }).pipe(Effect.annotateLogs({ shard: k })),
        onHeld: (k, held) => {
          if (!held) for (const d of defsOf(k)) handles.get(d.name)?.update({ state: "standby" })
        }
      }, actor)
    })
})
