/**
 * Usage events of the keyed API: one `ApiRequestCounted` per counted request, published on `api.usage` for the
 * quota-counter actor. The request path only enqueues (synchronously, never waiting on the bus); a background
 * fiber publishes what gathered every 50 ms, in one round trip. The queue is bounded and drops the oldest events when the
 * bus is unreachable for long — the counts they carry are cumulative, so a later event repairs what a lost one
 * would have written. What is queued is published when the scope closes.
 */
import { randomBytes } from "node:crypto"
import { Chunk, Duration, Effect, Option, Queue } from "effect"
import { STREAMS } from "../../schema/streams"
import type { ApiRequestCounted } from "../../actors/quota-counter/Protocol"
import { Bus } from "../infra/Bus"

const CAPACITY = 100_000
const BATCH = 2_000
/** Events gather this long between two publishes (under load each publish carries many). */
const FLUSH_EVERY = Duration.millis(50)
const DRAIN_TIMEOUT = Duration.seconds(3)

export class UsageEvents extends Effect.Service<UsageEvents>()("app/UsageEvents", {
  scoped: Effect.gen(function* () {
    const bus = yield* Bus
    const queue = yield* Queue.sliding<ApiRequestCounted>(CAPACITY)
    const boot = randomBytes(4).toString("hex")
    let seq = 0
    const publish = (batch: Chunk.Chunk<ApiRequestCounted>) =>
      Chunk.isEmpty(batch) ? Effect.void : bus.publishMany(STREAMS.apiUsage, Chunk.toReadonlyArray(batch) as never).pipe(Effect.asVoid)

    // Added before the publisher fiber, so it runs after the fiber is interrupted: a final drain.
    yield* Effect.addFinalizer(() =>
      Queue.takeAll(queue).pipe(Effect.flatMap(publish), Effect.timeout(DRAIN_TIMEOUT), Effect.catchAllCause(Effect.logWarning))
    )
    // Waits for the first event, lets more gather for FLUSH_EVERY, publishes them in one round trip.
    yield* Queue.takeBetween(queue, 1, BATCH).pipe(
      Effect.flatMap(publish),
      Effect.zipRight(Effect.sleep(FLUSH_EVERY)),
      Effect.catchAllCause((cause) => Effect.logWarning("publishing api usage failed", cause).pipe(Effect.zipRight(Effect.sleep("1 second")))),
      Effect.forever,
      Effect.forkScoped
    )

    return {
      /** Enqueues one event (a new messageId is drawn); never suspends (a full queue drops its oldest event). */
      record: (event: Omit<ApiRequestCounted, "_tag" | "messageId">) =>
        Queue.offer(queue, { _tag: "ApiRequestCounted", messageId: `${boot}-${(++seq).toString(36)}`, ...event }),
      pending: () => Option.getOrElse(queue.unsafeSize(), () => 0)
    } as const
  })
}) {}
