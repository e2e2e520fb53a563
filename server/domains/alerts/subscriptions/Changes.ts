/**
 * `alerts.changes`: every create, update, delete and snooze of an alert (`alert`, its id) and every change of a user's
 * settings that matching reads — mute, channels, the messenger chat, custom wallets (`user`, their id). The matching
 * index of every fan-out process follows it (`since`) before each round.
 */
import { randomUUID } from "node:crypto"
import { Effect } from "effect"
import { Bus } from "../../../platform/infra/Bus"

/** Streams of the domain: subscription changes (the fan-out's index follows them). */
export const ALERT_STREAMS = { changes: "alerts.changes" } as const

export interface AlertChange {
  readonly kind: "alert" | "user"
  readonly id: number
}

export class AlertChanges extends Effect.Service<AlertChanges>()("app/AlertChanges", {
  effect: Effect.gen(function* () {
    const bus = yield* Bus
    return {
      /** Tells every fan-out process that an alert (or a user's settings) changed. */
      announce: Effect.fn("AlertChanges.announce")((kind: AlertChange["kind"], id: number) =>
        bus.publish(ALERT_STREAMS.changes, { messageId: `${kind}:${id}:${randomUUID()}`, kind, id }, 10_000).pipe(Effect.asVoid)),

      /** The id of the latest change ("0-0": none yet): a loaded index follows from there. */
      latest: Effect.fn("AlertChanges.latest")(() =>
        bus.tail(ALERT_STREAMS.changes, 1).pipe(Effect.map(([tail]) => tail?.id ?? "0-0"))),

      /** Up to `limit` changes after the stream id `after`, in order, each with its stream id. */
      since: Effect.fn("AlertChanges.since")((after: string, limit: number) =>
        bus.rangeAfter(ALERT_STREAMS.changes, after, limit).pipe(
          Effect.map((entries) => entries.map((e): AlertChange & { readonly streamId: string } =>
            ({ streamId: e.id, kind: e.payload.kind as AlertChange["kind"], id: Number(e.payload.id) })))))
    } as const
  })
}) {}
