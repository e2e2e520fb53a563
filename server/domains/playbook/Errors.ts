/** The playbook's expected failures, each with its HTTP answer (`PlaybookErrors`, registered by the module). */
import { Data } from "effect"
import { Conflict, NotFound, errorMap } from "../../platform/http/Errors"
import type { EventStatus } from "../../../schema/http/playbook"

export class EventNotFound extends Data.TaggedError("EventNotFound")<{ readonly id: number }> {}

/** A status move §3.1 does not allow (409 with the allowed moves). */
export class TransitionRefused extends Data.TaggedError("TransitionRefused")<{
  readonly id: number
  readonly from: EventStatus
  readonly to: EventStatus
  readonly allowed: ReadonlyArray<EventStatus>
  readonly message: string
}> {}

/** Another event is LIVE already (409). */
export class LiveEventExists extends Data.TaggedError("LiveEventExists")<{ readonly liveEventId: number | null; readonly message: string }> {}

/** Recompute of an event that is not COMPLETED (409). */
export class NotCompleted extends Data.TaggedError("NotCompleted")<{ readonly id: number; readonly status: EventStatus }> {}

export type PlaybookError = EventNotFound | TransitionRefused | LiveEventExists | NotCompleted

export const PlaybookErrors = errorMap<PlaybookError>()({
  EventNotFound: (e) => new NotFound({ message: `No playbook event ${e.id}`, code: "event_not_found" }),
  TransitionRefused: (e) => new Conflict({ message: e.message, code: "illegal_transition", extra: { status: e.from, requested: e.to, allowed: e.allowed } }),
  LiveEventExists: (e) => new Conflict({ message: e.message, code: "live_event_exists", extra: { live_event_id: e.liveEventId } }),
  NotCompleted: (e) =>
    new Conflict({ message: `Only a COMPLETED event is recomputed; event ${e.id} is ${e.status}`, code: "not_completed", extra: { status: e.status, allowed: [] } })
})
