/**
 * The playbook event state machine of spec §3.1, as pure functions (the service applies the decision under a row
 * lock; the partial unique index on LIVE settles two concurrent moves to LIVE).
 *
 *   SCHEDULED --status LIVE-->      LIVE       (becomes the live event; at most one LIVE event)
 *   LIVE      --status COMPLETED--> COMPLETED  (final metrics computed and cached)
 *   COMPLETED --recompute-->        COMPLETED  (final metrics recomputed from stored records)
 *
 * Every other move (the same state again, skipping LIVE, going back) is refused with the moves that are allowed.
 */
import type { EventStatus } from "../../../schema/http/playbook"

export const TRANSITIONS: Readonly<Record<EventStatus, ReadonlyArray<EventStatus>>> = {
  SCHEDULED: ["LIVE"],
  LIVE: ["COMPLETED"],
  COMPLETED: []
}

export type Decision =
  | { readonly _tag: "Move"; readonly from: EventStatus; readonly to: EventStatus; readonly effect: "go-live" | "complete" }
  | { readonly _tag: "Illegal"; readonly from: EventStatus; readonly to: EventStatus; readonly allowed: ReadonlyArray<EventStatus> }
  | { readonly _tag: "LiveTaken"; readonly liveEventId: number }

/**
 * Whether `from → to` may happen. `otherLiveId` is the id of another event that is LIVE now (or null): a move to
 * LIVE while one exists is refused.
 */
export const decide = (from: EventStatus, to: EventStatus, otherLiveId: number | null): Decision => {
  const allowed = TRANSITIONS[from]
  if (!allowed.includes(to)) return { _tag: "Illegal", from, to, allowed }
  if (to === "LIVE" && otherLiveId !== null) return { _tag: "LiveTaken", liveEventId: otherLiveId }
  return { _tag: "Move", from, to, effect: to === "LIVE" ? "go-live" : "complete" }
}

/** Recompute is only for COMPLETED events. */
export const canRecompute = (status: EventStatus) => status === "COMPLETED"

/** Text of a refused move, for the 409 body. */
export const refusal = (d: Exclude<Decision, { _tag: "Move" }>): string =>
  d._tag === "LiveTaken"
    ? `Event ${d.liveEventId} is LIVE already; complete it first (at most one LIVE event)`
    : d.allowed.length === 0
      ? `A ${d.from} event cannot move to ${d.to}: it is final (recompute its metrics instead)`
      : `A ${d.from} event cannot move to ${d.to}; allowed: ${d.allowed.join(", ")}`
