/**
 * The notifier actors: `notifier` consumes `notify` (the handlers of one read share one round of claims, sends and
 * settles; deliveries are claimed in the database, so a redelivered message sends nothing twice) and `alert-retrier` (a loop) sends due retries,
 * takes over deliveries whose sender died, and sends the digest of each ended budget window.
 */
import { Effect } from "effect"
import { STREAMS } from "../../schema/streams"
import { AlertNotifier } from "../../server/domains/alerts/delivery/Notifier"
import { loopActor, streamActor } from "../../server/platform/actors/Actor"
import { NotifierMessage } from "./Protocol"

export const NotifierActor = streamActor({
  name: "notifier",
  stream: STREAMS.notify,
  schema: NotifierMessage,
  // Sending what the fan-out recorded holds back the process's deferrable actors (Priority.ts).
  priority: "urgent",
  // A read's messages in one call, one round: one claim of all their deliveries, one send round.
  batch: 256,
  behaviourMany: Effect.gen(function* () {
    const notifier = yield* AlertNotifier
    return (messages: ReadonlyArray<NotifierMessage>) => notifier.deliver(messages.flatMap((m) => m.delivery_ids))
  })
})

export const AlertRetrierActor = loopActor({
  name: "alert-retrier",
  run: (actor) =>
    Effect.gen(function* () {
      const notifier = yield* AlertNotifier
      for (;;) {
        actor.heartbeat()
        const handled = yield* notifier.retryRound
        for (let i = 0; i < handled; i++) actor.handled()
        if (handled === 0) yield* Effect.sleep(notifier.retryPollMs)
      }
    })
})
