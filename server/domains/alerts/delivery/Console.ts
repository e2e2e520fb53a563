/**
 * The console channel: a `UserEvent` (kind `alert`) per delivery on `console.user`, relayed to the user's
 * `user:<id>` WebSocket topic — one publish for every user of a round. Sent once published.
 */
import { Effect } from "effect"
import type { AlertType, ConsoleAlert } from "../../../../schema/http/alerts"
import { CONSOLE_STREAMS } from "../../../../schema/ws"
import { Bus } from "../../../platform/infra/Bus"
import { linkOf, ok, type Outcome } from "./Outcome"
import type { DeliveryRow } from "./Rows"

export class ConsoleChannel extends Effect.Service<ConsoleChannel>()("app/AlertConsoleChannel", {
  effect: Effect.gen(function* () {
    const bus = yield* Bus
    return {
      send: Effect.fn("ConsoleChannel.send")(function* (rows: ReadonlyArray<DeliveryRow>) {
        if (rows.length === 0) return [] as Array<Outcome>
        yield* bus.publishMany(CONSOLE_STREAMS.user, rows.map((r) => ({
          user_id: r.user_id, kind: "alert",
          data: { delivery_id: r.id, alert_id: r.alert_id, type: r.type as AlertType, title: r.title, summary: r.summary, url: linkOf(r), event_at: r.event_at.toISOString(), test: r.test } satisfies ConsoleAlert
        })))
        return rows.map(ok)
      })
    } as const
  })
}) {}
