/**
 * The notifier actors: `notifier` consumes `notify` (several users at once; one user's deliveries are claimed in
 * the database, so a redelivered message sends nothing twice) and `alert-retrier` (a loop) sends due retries,
 * takes over deliveries whose sender died, and sends the digest of each ended budget window.
 */
import { Effect } from "effect"
import { STREAMS } from "../../schema/streams"
import { AlertNotifier } from "../../server/domains/alerts/Notifier"
import { AlertsConfig } from "../../server/domains/alerts/Config"
import { loopActor, streamActor } from "../runtime/Actor"
import { NotifierMessage } from "./Protocol"

export const NotifierActor = streamActor({
  name: "notifier",
  stream: STREAMS.notify,
  schema: NotifierMessage,
  // Users are independent (each message is one user's deliveries): handle many at once.
  batch: 256,
  concurrency: 64,
  behaviour: Effect.gen(function* () {
    const notifier = yield* AlertNotifier
    return (message: NotifierMessage) => {
      switch (message._tag) {
        case "Deliver":
          return notifier.deliver(message.user_id, message.delivery_ids)
      }
    }
  })
})

export const AlertRetrierActor = loopActor({
  name: "alert-retrier",
  run: (actor) =>
    Effect.gen(function* () {
      const notifier = yield* AlertNotifier
      const config = yield* AlertsConfig
      for (;;) {
        actor.heartbeat()
        const handled = yield* notifier.retryRound
        for (let i = 0; i < handled; i++) actor.handled()
        if (handled === 0) yield* Effect.sleep(config.retryPollMs)
      }
    })
})
