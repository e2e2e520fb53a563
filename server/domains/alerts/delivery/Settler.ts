/**
 * Where a round's outcomes go: stored (`DeliveriesRepo.settle`), then counted in `/metrics`
 * (`alert_deliveries_total{channel,status}`, `alert_delivery_latency_seconds{channel}`) and, when exhausted, copied to
 * `dlq:notify`. Background sends (messenger, webhooks) run here, in one fiber set of the process, holding room for
 * their rows (at most MAX_BACKGROUND at once); their outcomes are settled as they finish, many per shared statement.
 * On a shutdown the fiber set is interrupted: the rows a send never tried go back to the retrier, due at once.
 */
import { SqlClient } from "@effect/sql"
import { Effect, FiberSet } from "effect"
import { STREAMS } from "../../../../schema/streams"
import { Bus, deadLetterStream } from "../../../platform/infra/Bus"
import { makeBatcher } from "../../../platform/infra/Batcher"
import { Metrics, type Cell, type Series } from "../../../platform/ops/Metrics"
import { DeliveriesRepo } from "./DeliveriesRepo"
import type { Outcome } from "./Outcome"
import type { DeliveryRow } from "./Rows"

/** Messenger and webhook sends handed to the background at once, per process; past it a round waits for room. */
const MAX_BACKGROUND = 20_000

export class DeliverySettler extends Effect.Service<DeliverySettler>()("app/AlertDeliverySettler", {
  dependencies: [DeliveriesRepo.Default],
  scoped: Effect.gen(function* () {
    const repo = yield* DeliveriesRepo
    const sql = yield* SqlClient.SqlClient
    const bus = yield* Bus
    const metrics = yield* Metrics
    const latency = metrics.histogram("alert_delivery_latency_seconds", "Alert latency from the record's block time (or event time) to delivery, by channel",
      [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600])
    const counter = metrics.counter("alert_deliveries_total", "Alert channel deliveries by channel and outcome")
    const background = yield* FiberSet.make()
    const room = yield* Effect.makeSemaphore(MAX_BACKGROUND)

    /** After the outcomes are stored: metrics, and the exhausted ones copied to the dead-letter stream. */
    const report = Effect.fn("DeliverySettler.report")(function* (outcomes: ReadonlyArray<Outcome>) {
      const now = Date.now()
      const dead: Array<Record<string, unknown>> = []
      // A report holds thousands of outcomes of a few channels and statuses: their samples are looked up once.
      const counts = new Map<string, Cell>()
      const series = new Map<string, Series>()
      for (const { row, result } of outcomes) {
        const key = `${result.channel}\u0000${result.status}`
        let cell = counts.get(key)
        if (cell === undefined) counts.set(key, cell = counter.cell({ channel: result.channel, status: result.status }))
        cell.value++
        if (result.status === "sent") {
          let s = series.get(result.channel)
          if (s === undefined) series.set(result.channel, s = latency.seriesOf({ channel: result.channel }))
          latency.record(s, Math.max(0, now - row.event_at.getTime()) / 1000)
        }
        if (result.status === "failed") {
          dead.push({ delivery_id: row.id, channel: row.channel, user_id: row.user_id, error: result.error ?? "", attempts: row.attempts + 1 })
        }
      }
      if (dead.length > 0) yield* bus.publishMany(deadLetterStream(STREAMS.notify), dead)
    })

    /** Settles the background sends' outcomes: concurrent sends share one statement. */
    const later = makeBatcher<Outcome>((outcomes) =>
      repo.settle(outcomes.map((o) => o.result)).pipe(Effect.zipRight(report(outcomes)), Effect.withSpan("DeliverySettler.later")))

    return {
      later,

      /**
       * A round's outcomes settled. With `inTransaction` (the round's mails queued in the outbox), in its transaction:
       * a crash cannot queue a mail twice. Without, beside the next round (shared statements), not before it, and not
       * interrupted by a shutdown, so what was sent is recorded as sent.
       */
      round: Effect.fn("DeliverySettler.round")(function* (outcomes: ReadonlyArray<Outcome>, inTransaction: Effect.Effect<void> | null) {
        if (inTransaction !== null) {
          yield* sql.withTransaction(inTransaction.pipe(Effect.zipRight(repo.settle(outcomes.map((o) => o.result))))).pipe(Effect.orDie)
          yield* report(outcomes)
        } else if (outcomes.length > 0) {
          yield* FiberSet.run(background, later(outcomes).pipe(
            Effect.catchAllCause((cause) => Effect.logError("settling alert sends failed; their rows are retried when their lease ends", cause)),
            Effect.uninterruptible))
        }
      }),

      /**
       * Runs a slow send in the background, holding room for its rows; if it is stopped (a shutdown) the rows it never
       * tried (`tried` is the send's record of them) go back to the retrier, due now.
       */
      inBackground: Effect.fn("DeliverySettler.inBackground")(function* (rows: ReadonlyArray<DeliveryRow>, send: (tried: Set<DeliveryRow>) => Effect.Effect<void>) {
        const permits = Math.min(rows.length, MAX_BACKGROUND)
        yield* room.take(permits)
        const tried = new Set<DeliveryRow>()
        const work = send(tried).pipe(
          Effect.onInterrupt(() =>
            repo.release(rows.filter((r) => !tried.has(r)).map((r) => ({ deliveryId: r.id, channel: r.channel }))).pipe(Effect.catchAllCause(Effect.logError))),
          Effect.catchAllCause((cause) => Effect.logError("alert send failed; its rows are retried when their lease ends", cause)),
          Effect.ensuring(room.release(permits))
        )
        yield* FiberSet.run(background, work)
      })
    } as const
  })
}) {}
