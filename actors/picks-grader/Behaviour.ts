/**
 * The picks-grader (singleton: across processes the holder of its lease runs it). One life:
 *  - publishes `PickFlagged` for picks a crashed life stored but did not announce;
 *  - grades due picks every PICKS_GRADE_INTERVAL_SECONDS (a pick is due exactly 7 × 24 h after its flag) once the
 *    mailbox is caught up (no undelivered or unacknowledged entry), so no pick is graded before its prices are in;
 *  - on the demo chain, waits for the generated history to be stored and replays its picks once (the history is
 *    stored, never published), before it grades or consumes anything;
 *  - consumes `chain.tx` through its consumer group (`picks-grader`, from the start of the retained stream): each
 *    record may flag a pick or date a whale's exit, each retraction undoes its record.
 * Persisted state only (tables of migration 0080); nothing transient survives a restart, nothing needs to.
 */
import { Duration, Effect } from "effect"
import { type ChainTxMessage, type ChainTxRetraction, STREAMS } from "../../schema/streams"
import { DemoHistory } from "../../server/domains/chain/demo/DemoHistory"
import { Picks } from "../../server/domains/picks/Picks"
import { Bus } from "../../server/platform/infra/Bus"
import { loopActor, streamActor } from "../../server/platform/actors/Actor"
import { mailboxLife } from "../../server/platform/actors/Mailbox"
import type { ActorHandle } from "../../server/platform/actors/Registry"
import { isRetraction, PicksGraderMessage, type PicksGraderMessageT } from "./Protocol"

export const PICKS_GRADER = "picks-grader"

type Run = { readonly retraction: ChainTxRetraction; readonly records: null } | { readonly retraction: null; readonly records: Array<ChainTxMessage> }

/** Consecutive records as one run, each retraction a run of its own, in stream order. */
const runs = (messages: ReadonlyArray<PicksGraderMessageT>): ReadonlyArray<Run> => {
  const out: Array<Run> = []
  for (const m of messages) {
    const last = out.at(-1)
    if (isRetraction(m)) out.push({ retraction: m, records: null })
    else if (last !== undefined && last.records !== null) last.records.push(m)
    else out.push({ retraction: null, records: [m] })
  }
  return out
}

const mailbox = streamActor({
  name: PICKS_GRADER,
  stream: STREAMS.chainTx,
  schema: PicksGraderMessage,
  // A worst-case block is ~2,400 records: a read takes it in one go (the handler's statements are per read).
  batch: 1000,
  // A block's alerts go out first; grading waits for them (at most ACTOR_DEFER_MAX_MS, Priority.ts).
  priority: "deferrable",
  // In order: a flag depends on the records before it. Runs of records go in together, retractions one by one.
  behaviourMany: Effect.gen(function* () {
    const picks = yield* Picks
    return (messages: ReadonlyArray<PicksGraderMessageT>) =>
      Effect.forEach(runs(messages), (run) => (run.retraction !== null ? picks.retract(run.retraction) : picks.ingestMany(run.records)), { discard: true })
  })
})

const life = (actor: ActorHandle) =>
  Effect.gen(function* () {
    const picks = yield* Picks
    const history = yield* DemoHistory
    if (history.expected) {
      // Meanwhile live records wait in the consumer group; replayed here too, they change nothing when delivered.
      while (true) {
        const status = yield* history.status
        if (status !== null && !status.inProgress) break
        actor.heartbeat()
        yield* Effect.sleep(Duration.seconds(2))
      }
      yield* Effect.logInfo("demo history stored: replaying its picks")
      const replayed = yield* picks.replayHistory(() => actor.heartbeat())
      if (replayed !== null) {
        yield* Effect.logInfo(`demo history replayed: ${replayed.records} records, ${replayed.flagged} pick(s) flagged, ${replayed.graded} graded`)
      }
    }
    const announced = yield* picks.publishPending
    if (announced > 0) yield* Effect.logInfo(`announced ${announced} pick(s) stored before a restart`)
    const bus = yield* Bus
    const grading = Effect.gen(function* () {
      while (true) {
        // Only when every published record has been handled: a pick is graded on the prices of its 7 days, and during
        // a catch-up those are still in the mailbox (the flag path grades as of each record's time meanwhile).
        const info = yield* bus.groupInfo(STREAMS.chainTx, PICKS_GRADER)
        const caughtUp = (info.lag ?? 0) === 0 && info.pending === 0
        const graded = caughtUp ? yield* picks.gradeDue() : 0
        if (graded > 0) yield* Effect.logInfo(`graded ${graded} pick(s)`)
        actor.heartbeat()
        yield* Effect.sleep(Duration.millis(picks.settings.gradeIntervalMs))
      }
    })
    // Both run until interrupted; a failure of either ends this life (the supervisor starts a new one).
    yield* Effect.all([grading, mailboxLife(mailbox, actor)], { concurrency: 2, discard: true })
  })

export const PicksGraderActor = loopActor({ name: PICKS_GRADER, singleton: true, run: life })
