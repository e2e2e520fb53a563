/**
 * One life of a stream actor: make sure the group exists, finish this consumer's own pending entries, then loop —
 * read new entries (blocking), take over entries idle too long (failed handlers, dead consumers), handle each,
 * ack on success. An entry delivered more than `maxDeliveries` times, or one that does not parse, goes to the
 * dead-letter stream. Lag and pending are refreshed every `statsIntervalMs`.
 */
import { Cause, Effect, Exit } from "effect"
import { Bus, type StreamEntry } from "../../server/platform/infra/Bus"
import { AppConfig } from "../../server/platform/Config"
import { INSTANCE } from "../../server/platform/Instance"
import type { StreamActorDef } from "./Actor"
import { describeError, type ActorHandle } from "./Registry"

/** This process's consumer name: stable across restarts of an actor, distinct between processes. */
const CONSUMER = INSTANCE

export const mailboxLife = <M, R>(def: StreamActorDef<M, R>, handle: ActorHandle) =>
  Effect.gen(function* () {
    const bus = yield* Bus
    const { actors: settings } = yield* AppConfig
    const group = def.group ?? def.name
    const stream = def.stream
    const batch = def.batch ?? 64
    const handler = yield* def.behaviour

    const refreshStats = bus.groupInfo(stream, group).pipe(
      Effect.tap((info) => Effect.sync(() => handle.update({ lag: info.lag, pending: info.pending, deadLetters: info.deadLetters })))
    )

    /** Handles one entry; true when it is settled (acked or dead-lettered), false when left pending. */
    const handleEntry = (entry: StreamEntry): Effect.Effect<boolean> =>
      Effect.gen(function* () {
        if (entry.deliveries > settings.maxDeliveries) {
          const last = handle.get().lastError ?? "unknown"
          yield* bus.deadLetter(stream, group, entry, `delivered ${entry.deliveries} times; last error: ${last}`)
          handle.deadLettered()
          yield* Effect.logWarning(`dead-lettered ${stream} ${entry.id} after ${entry.deliveries} deliveries`)
          return true
        }
        const parsed = def.schema.safeParse(entry.payload)
        if (!parsed.success) {
          yield* bus.deadLetter(stream, group, entry, `invalid message: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`)
          handle.deadLettered()
          yield* Effect.logWarning(`dead-lettered invalid message ${stream} ${entry.id}`)
          return true
        }
        const exit = yield* Effect.exit(handler(parsed.data, { id: entry.id, deliveries: entry.deliveries }))
        if (Exit.isSuccess(exit)) {
          yield* bus.ack(stream, group, [entry.id])
          handle.handled()
          return true
        }
        const defect = Cause.dieOption(exit.cause)
        const failure = Cause.failureOption(exit.cause)
        handle.failed(defect._tag === "Some" ? defect.value : failure._tag === "Some" ? failure.value : Cause.pretty(exit.cause))
        if (Cause.isInterruptedOnly(exit.cause)) return yield* Effect.interrupt
        // Left pending: re-delivered after `claimIdleMs`. A defect also ends this life (let it crash).
        if (defect._tag === "Some") return yield* Effect.die(defect.value)
        yield* Effect.logWarning(`handler failed on ${stream} ${entry.id} (delivery ${entry.deliveries}): ${describeError(failure._tag === "Some" ? failure.value : exit.cause)}`)
        return false
      })

    const handleAll = (entries: ReadonlyArray<StreamEntry>) =>
      Effect.forEach(entries, handleEntry, { concurrency: def.concurrency ?? 1, discard: true })

    yield* bus.ensureGroup(stream, group, def.startFrom ?? "0")
    // Running from here: replaying its own pending entries is already serving.
    handle.update({ state: "running" })
    // Own pending entries first: what this consumer held when its previous life ended. One at a time, so an
    // entry that crashes the actor again is the only one charged another delivery (not the rest of its batch).
    while (true) {
      const [mine] = yield* bus.readPending({ stream, group, consumer: CONSUMER, count: 1 })
      if (!mine) break
      // A handler failure leaves it pending: retried after `claimIdleMs`, not in a tight loop here.
      if (!(yield* handleEntry(mine))) break
    }
    yield* refreshStats
    let lastClaim = Date.now()
    let lastStats = Date.now()
    while (true) {
      handle.heartbeat()
      const now = Date.now()
      if (now - lastClaim >= Math.min(settings.claimIdleMs, 5_000)) {
        lastClaim = now
        yield* handleAll(yield* bus.claimStale({ stream, group, consumer: CONSUMER, count: batch, minIdleMs: settings.claimIdleMs }))
      }
      if (now - lastStats >= settings.statsIntervalMs) {
        lastStats = now
        yield* refreshStats
      }
      const blockMs = Math.max(1, Math.min(settings.blockMs, settings.claimIdleMs, settings.statsIntervalMs))
      yield* handleAll(yield* bus.read({ stream, group, consumer: CONSUMER, count: batch, blockMs }))
    }
  }).pipe(Effect.annotateLogs({ actor: def.name }))
