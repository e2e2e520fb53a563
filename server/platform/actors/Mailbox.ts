/**
 * One life of a stream actor: make sure the group exists, finish this consumer's own pending entries, then loop —
 * read new entries (blocking), take over entries idle too long (failed handlers, dead consumers), handle each,
 * ack on success. An entry delivered more than `maxDeliveries` times, or one that does not parse, goes to the
 * dead-letter stream. Lag and pending are refreshed every `statsIntervalMs`. A handling continues the trace its
 * entries were published in (a span `<actor>.handle`), when tracing is on.
 */
import { Cause, Effect, Exit } from "effect"
import { Bus, type StreamEntry } from "../infra/Bus"
import { AppConfig } from "../Config"
import { INSTANCE } from "../Instance"
import { continueTraces } from "../ops/TraceContext"
import type { StreamActorDef } from "./Actor"
import { ActorPriorityGate } from "./Priority"
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
    const handler = def.behaviour ? yield* def.behaviour : null
    const many = def.behaviourMany ? yield* def.behaviourMany : null
    if ((handler === null) === (many === null)) return yield* Effect.dieMessage(`actor ${def.name}: give behaviour or behaviourMany`)
    /** Urgent reads hold deferrable actors back; deferrable ones wait for them (a process without the gate: neither). */
    const gate = yield* Effect.serviceOption(ActorPriorityGate)
    const prioritized = <A, E, R2>(handling: Effect.Effect<A, E, R2>): Effect.Effect<A, E, R2> =>
      gate._tag === "None" || def.priority === undefined ? handling
        : def.priority === "urgent" ? gate.value.urgent(handling)
          : Effect.zipRight(gate.value.deferTo(def.name), handling)

    const refreshStats = bus.groupInfo(stream, group).pipe(
      Effect.tap((info) => Effect.sync(() => handle.update({ lag: info.lag, pending: info.pending, deadLetters: info.deadLetters })))
    )

    /**
     * The message of an entry, or null when it was dead-lettered (delivered too often, or not a valid message). The
     * usual case is answered synchronously (a read holds thousands of entries); only a rejection needs effects.
     */
    const admit = (entry: StreamEntry): Effect.Effect<{ readonly message: M } | null> => {
      const accepted = accept(entry)
      return accepted !== null ? Effect.succeed(accepted) : reject(entry)
    }
    /** The message of an entry fit to handle (not delivered too often, valid), else null. */
    const accept = (entry: StreamEntry): { readonly message: M } | null => {
      if (entry.deliveries > settings.maxDeliveries) return null
      const parsed = def.schema.safeParse(entry.payload)
      return parsed.success ? { message: parsed.data } : null
    }
    /** Dead-letters an entry `accept` refused. */
    const reject = (entry: StreamEntry): Effect.Effect<null> =>
      Effect.gen(function* () {
        if (entry.deliveries > settings.maxDeliveries) {
          const last = handle.get().lastError ?? "unknown"
          yield* bus.deadLetter(stream, group, entry, `delivered ${entry.deliveries} times; last error: ${last}`)
          handle.deadLettered()
          yield* Effect.logWarning(`dead-lettered ${stream} ${entry.id} after ${entry.deliveries} deliveries`)
          return null
        }
        const parsed = def.schema.safeParse(entry.payload)
        if (!parsed.success) {
          yield* bus.deadLetter(stream, group, entry, `invalid message: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`)
          handle.deadLettered()
          yield* Effect.logWarning(`dead-lettered invalid message ${stream} ${entry.id}`)
        }
        return null
      })

    /**
     * A handler's exit: "done" on success (the caller acks); on a failure "pending" (left for redelivery after
     * `claimIdleMs`); a defect ends this life (let it crash), an interruption is passed on.
     */
    const judge = (exit: Exit.Exit<void, unknown>, what: string): Effect.Effect<"done" | "pending"> =>
      Effect.gen(function* () {
        if (Exit.isSuccess(exit)) return "done" as const
        const defect = Cause.dieOption(exit.cause)
        const failure = Cause.failureOption(exit.cause)
        handle.failed(defect._tag === "Some" ? defect.value : failure._tag === "Some" ? failure.value : Cause.pretty(exit.cause))
        if (Cause.isInterruptedOnly(exit.cause)) return yield* Effect.interrupt
        if (defect._tag === "Some") return yield* Effect.die(defect.value)
        yield* Effect.logWarning(`handler failed on ${what}: ${describeError(failure._tag === "Some" ? failure.value : exit.cause)}`)
        return "pending" as const
      })

    /**
     * Handles one entry: "done" when its handler succeeded (the caller acks it, a read's entries in one XACK),
     * "settled" when it was dead-lettered, "pending" when it is left for redelivery.
     */
    const handleEntry = (entry: StreamEntry): Effect.Effect<"done" | "settled" | "pending"> =>
      Effect.gen(function* () {
        const admitted = yield* admit(entry)
        if (admitted === null) return "settled" as const
        const exit = yield* Effect.exit(traced([entry.trace], 1, handler !== null
          ? handler(admitted.message, { id: entry.id, deliveries: entry.deliveries })
          : many!([admitted.message])))
        return yield* judge(exit, `${stream} ${entry.id} (delivery ${entry.deliveries})`)
      })

    /**
     * A handling that continues its entries' publishers' traces (a span `<actor>.handle`, ops/TraceContext.ts); as
     * it is when they carry none (tracing off).
     */
    const traced = <A, E>(traces: ReadonlyArray<string | undefined>, entries: number, effect: Effect.Effect<A, E>) =>
      continueTraces(`${def.name}.handle`, traces, { stream, group, entries }, effect)

    /** Acks what was handled (one XACK for a read's entries; a crash before it redelivers them: handlers are idempotent). */
    const ackDone = (ids: ReadonlyArray<string>) =>
      ids.length === 0 ? Effect.void : Effect.zipRight(bus.ack(stream, group, ids), Effect.sync(() => handle.handled(ids.length)))

    /** A read's entries (none: nothing to do, no wait), as urgent or deferred work when the actor says so. */
    const handleAll = (entries: ReadonlyArray<StreamEntry>) => entries.length === 0 ? Effect.void : prioritized(handleRead(entries))

    const handleRead = (entries: ReadonlyArray<StreamEntry>) =>
      Effect.gen(function* () {
        if (many !== null) {
          // One call for the read's valid messages, in stream order.
          const admitted: Array<{ readonly id: string; readonly message: M; readonly trace: string | undefined }> = []
          for (const entry of entries) {
            const a = accept(entry) ?? (yield* reject(entry))
            if (a !== null) admitted.push({ id: entry.id, message: a.message, trace: entry.trace })
          }
          if (admitted.length === 0) return
          const exit = yield* Effect.exit(traced(admitted.map((a) => a.trace), admitted.length, many(admitted.map((a) => a.message))))
          const verdict = yield* judge(exit, `${stream} ${admitted[0]!.id}…${admitted.at(-1)!.id} (${admitted.length} entries)`)
          if (verdict === "done") return yield* ackDone(admitted.map((a) => a.id))
          if (admitted.length === 1) return
          // A failure of several: each alone, so one bad message neither holds up (nor, at last, dead-letters) the
          // rest. Three failures in a row stop it: the cause is likely not a message, and they wait for redelivery.
          const done: Array<string> = []
          let inRow = 0
          yield* Effect.gen(function* () {
            for (const a of admitted) {
              const alone = yield* Effect.exit(traced([a.trace], 1, many([a.message])))
              if ((yield* judge(alone, `${stream} ${a.id}`)) === "done") {
                done.push(a.id)
                inRow = 0
              } else if (++inRow >= 3) return
            }
          }).pipe(Effect.ensuring(Effect.suspend(() => ackDone(done)).pipe(Effect.ignore)))
          return
        }
        const done: Array<string> = []
        // A defect or an interruption ends the life: what finished before it is still acked.
        yield* Effect.forEach(entries, (entry) => Effect.map(handleEntry(entry), (r) => {
          if (r === "done") done.push(entry.id)
        }), { concurrency: def.concurrency ?? 1, discard: true }).pipe(Effect.ensuring(Effect.suspend(() => ackDone(done)).pipe(Effect.ignore)))
      })

    yield* bus.ensureGroup(stream, group, def.startFrom ?? "0")
    // Running from here: replaying its own pending entries is already serving.
    handle.update({ state: "running" })
    // Own pending entries first: what this consumer held when its previous life ended. One at a time, so an
    // entry that crashes the actor again is the only one charged another delivery (not the rest of its batch).
    while (true) {
      const [mine] = yield* bus.readPending({ stream, group, consumer: CONSUMER, count: 1 })
      if (!mine) break
      // A handler failure leaves it pending: retried after `claimIdleMs`, not in a tight loop here.
      const result = yield* handleEntry(mine)
      if (result === "done") yield* ackDone([mine.id])
      if (result === "pending") break
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
