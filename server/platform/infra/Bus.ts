/**
 * The stream bus: one contract, two implementations.
 *  - `BusRedis`  : Redis Streams via node-redis 5 (consumer groups, XACK, XAUTOCLAIM, dead letters).
 *  - `BusMemory` : in-process, same semantics, for the embedded default (no REDIS_URL).
 *
 * Streams are named without the key prefix (`chain.tx`); implementations prepend the configured prefix.
 * The dead-letter stream of `s` is `dlq:s`. Payloads are JSON objects; the bus never interprets them.
 *
 * Delivery semantics (both implementations; test/integration/bus.contract.test.ts holds them to it):
 *  - `read` with a group delivers each new entry to exactly one consumer of the group, in stream order.
 *  - an entry stays pending (owned by the consumer it was delivered to) until `ack`.
 *  - `readPending` re-delivers the caller's own pending entries (after a restart), counting a delivery.
 *  - `claimStale` moves entries idle for at least `minIdleMs` from any consumer to the caller, counting a delivery.
 *  - every delivered entry carries `deliveries` (1 on first delivery).
 *  - `deadLetter` copies the entry to `dlq:<stream>` with the reason and acks it in the group.
 *  - with tracing on, `publish`/`publishMany` store the publisher's trace context beside each payload (never in it)
 *    and a delivered entry carries it as `trace` (ops/TraceContext.ts); with tracing off there is none.
 */
import { Context, type Effect } from "effect"
import type { AnyPayload, PayloadOf } from "../../../schema/bus"

export type StreamPayload = AnyPayload

export interface StreamEntry {
  /** Stream entry id, `<ms>-<seq>` as Redis formats it. */
  readonly id: string
  readonly payload: StreamPayload
  /** How many times this entry has been delivered in the group, this delivery included. */
  readonly deliveries: number
  /** The publisher's W3C `traceparent`, when it published with tracing on (the consumer's span continues it). */
  readonly trace?: string
}

export interface ReadOptions {
  readonly stream: string
  readonly group: string
  readonly consumer: string
  /** At most this many entries. */
  readonly count: number
  /** Wait up to this long for new entries when there are none (0: do not wait). */
  readonly blockMs: number
}

export interface GroupInfo {
  /** Entries in the stream (after trimming). */
  readonly length: number
  /** Entries not yet delivered to the group (null when it cannot be known, e.g. after trimming). */
  readonly lag: number | null
  /** Entries delivered and not yet acknowledged. */
  readonly pending: number
  /** Entries in `dlq:<stream>`. */
  readonly deadLetters: number
}

export interface BusStats {
  readonly kind: "redis" | "memory"
  readonly published: number
  readonly acked: number
  readonly deadLettered: number
}

export interface BusShape {
  readonly kind: "redis" | "memory"
  /**
   * Append an entry; trims the stream to about `maxLen` entries (default 100 000). Returns its id. The payload's type
   * is the stream's (`PayloadOf`, schema/bus.ts).
   */
  readonly publish: <S extends string>(stream: S, payload: PayloadOf<S>, maxLen?: number) => Effect.Effect<string>
  /** Append many entries in one round trip, in order. */
  readonly publishMany: <S extends string>(stream: S, payloads: ReadonlyArray<PayloadOf<S>>, maxLen?: number) => Effect.Effect<ReadonlyArray<string>>
  /** Create the group if missing (`startId` `$` = only new entries, `0` = from the start). Idempotent. */
  readonly ensureGroup: (stream: string, group: string, startId?: "$" | "0") => Effect.Effect<void>
  /** Read new entries for the group (`>`), waiting up to `blockMs`. */
  readonly read: (options: ReadOptions) => Effect.Effect<ReadonlyArray<StreamEntry>>
  /** Re-deliver the consumer's own pending entries, oldest first. */
  readonly readPending: (options: Omit<ReadOptions, "blockMs">) => Effect.Effect<ReadonlyArray<StreamEntry>>
  /** Take over entries pending longer than `minIdleMs` in the group, whoever owned them. */
  readonly claimStale: (options: Omit<ReadOptions, "blockMs"> & { readonly minIdleMs: number }) => Effect.Effect<ReadonlyArray<StreamEntry>>
  readonly ack: (stream: string, group: string, ids: ReadonlyArray<string>) => Effect.Effect<void>
  /** Copy the entry to `dlq:<stream>` with the reason, then ack it. */
  readonly deadLetter: (stream: string, group: string, entry: StreamEntry, reason: string) => Effect.Effect<void>
  readonly groupInfo: (stream: string, group: string) => Effect.Effect<GroupInfo>
  /** Entries with id strictly greater than `afterId`, oldest first, at most `count` (history for resuming clients). */
  readonly rangeAfter: (stream: string, afterId: string, count: number) => Effect.Effect<ReadonlyArray<{ id: string; payload: StreamPayload }>>
  /** The newest `count` entries, oldest first. */
  readonly tail: (stream: string, count: number) => Effect.Effect<ReadonlyArray<{ id: string; payload: StreamPayload }>>
  /** Liveness of the underlying connection (readiness). */
  readonly ping: Effect.Effect<boolean>
  readonly stats: Effect.Effect<BusStats>
}

export class Bus extends Context.Tag("app/Bus")<Bus, BusShape>() {}

/** The dead-letter stream of a stream. */
export const deadLetterStream = (stream: string) => `dlq:${stream}`
