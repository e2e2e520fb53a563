/**
 * Usage events of the keyed API, published on `api.usage` for the quota-counter actor. The counts an event carries
 * are cumulative (the account's and the key's requests that day, read from the atomic counters), and the actor keeps
 * the highest — so the request path does not publish one event per request: it folds each request into the pending
 * event of its key and day (highest counts, latest time and endpoint), synchronously and without allocating once
 * the entry exists. A background fiber publishes what gathered every 50 ms in one round trip: one event per key and
 * day that saw requests. Measured: one event per request cost the data API a third of its throughput (an object, an
 * ISO date, a stream entry and its JSON each). What is pending is published when the scope closes. Pending entries
 * are bounded (MAX_PENDING keys): past it, a request's event is dropped and counted in
 * `api_usage_events_dropped_total` — the next request of that key repairs it.
 */
import { randomBytes } from "node:crypto"
import { Duration, Effect } from "effect"
import type { ApiRequestCounted } from "../../../schema/streams"
import { STREAMS } from "../../../schema/streams"
import { Bus } from "../../platform/infra/Bus"
import { Metrics } from "../../platform/ops/Metrics"
import type { QuotaState } from "./Quota"

const MAX_PENDING = 100_000
/** Publishes are at least this far apart (under load each carries the latest counts of every busy key). */
const FLUSH_EVERY = Duration.millis(50)
const DRAIN_TIMEOUT = Duration.seconds(3)

type UsageEvent = Omit<ApiRequestCounted, "_tag" | "messageId" | "at"> & { readonly atMs: number }

interface Pending {
  userId: number
  keyId: number
  day: string
  endpoint: string
  count: number
  keyCount: number
  limit: number
  atMs: number
  degraded: boolean
}

export class UsageEvents extends Effect.Service<UsageEvents>()("app/UsageEvents", {
  scoped: Effect.gen(function* () {
    const bus = yield* Bus
    const dropped = (yield* Metrics).counter("api_usage_events_dropped_total", "Usage events dropped because too many keys were pending").cell()
    const boot = randomBytes(4).toString("hex")
    let seq = 0
    /** By key id, then day. */
    let pending = new Map<number, Map<string, Pending>>()
    let size = 0

    /** Raises a pending event to a later request's counts (the highest count and the latest time win). */
    const raise = (p: Pending, count: number, keyCount: number, atMs: number, endpoint: string, limit: number, degraded: boolean) => {
      if (count > p.count) p.count = count
      if (keyCount > p.keyCount) p.keyCount = keyCount
      if (atMs >= p.atMs) {
        p.atMs = atMs
        p.endpoint = endpoint
        p.degraded = degraded
        p.limit = limit
      }
    }

    const fold = (e: UsageEvent): void => {
      const byDay = pending.get(e.keyId)
      const p = byDay?.get(e.day)
      if (p !== undefined) return raise(p, e.count, e.keyCount, e.atMs, e.endpoint, e.limit, e.degraded)
      if (size >= MAX_PENDING) {
        dropped.value++
        return
      }
      if (byDay === undefined) pending.set(e.keyId, new Map([[e.day, { ...e }]]))
      else byDay.set(e.day, { ...e })
      size++
    }

    /** The request path's call: the fields come from the key's owner and the quota state (no event object is made). */
    const unsafeRecord = (owner: { readonly userId: number; readonly keyId: number }, endpoint: string, q: QuotaState): void => {
      const p = pending.get(owner.keyId)?.get(q.day)
      if (p !== undefined) return raise(p, q.count, q.keyCount, q.at, endpoint, q.limit, q.degraded)
      fold({
        userId: owner.userId, keyId: owner.keyId, day: q.day, endpoint, count: q.count, keyCount: q.keyCount, limit: q.limit,
        atMs: q.at, degraded: q.degraded
      })
    }

    const publishPending = Effect.suspend(() => {
      if (size === 0) return Effect.void
      const batch = [...pending.values()].flatMap((byDay) => [...byDay.values()])
      pending = new Map()
      size = 0
      const events: Array<ApiRequestCounted> = []
      for (const { atMs, ...p } of batch) {
        events.push({ _tag: "ApiRequestCounted", messageId: `${boot}-${(++seq).toString(36)}`, ...p, at: new Date(atMs).toISOString() })
      }
      return bus.publishMany(STREAMS.apiUsage, events).pipe(
        Effect.asVoid,
        // Not lost: folded back under what arrived meanwhile (the counts are cumulative), tried again next time.
        Effect.tapErrorCause(() => Effect.sync(() => {
          for (const p of batch) fold(p)
        }))
      )
    })

    // Whatever the flusher had not published when it stops is drained when the service is released (after it).
    yield* Effect.addFinalizer(() => publishPending.pipe(Effect.timeout(DRAIN_TIMEOUT), Effect.catchAllCause(Effect.logWarning)))
    const flusher = publishPending.pipe(
      Effect.zipRight(Effect.sleep(FLUSH_EVERY)),
      Effect.catchAllCause((cause) => Effect.logWarning("publishing api usage failed", cause).pipe(Effect.zipRight(Effect.sleep("1 second")))),
      Effect.forever
    )

    return {
      /** Folds one counted request into its key's pending event; synchronous (the keyed request path calls it). */
      unsafeRecord,
      /** Publishes the folded events every 50 ms until interrupted (the `usage-flusher` process of the module). */
      flusher
    } as const
  })
}) {}
