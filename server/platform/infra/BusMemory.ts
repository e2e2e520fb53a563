/**
 * The stream bus in process memory, for the embedded default (no REDIS_URL). Same contract as `BusRedis`, modelled
 * on Redis Streams so that the contract tests hold both to the same numbers:
 *  - ids are `<ms>-<seq>`, increasing per stream like Redis's (same millisecond: next sequence);
 *  - a group keeps its last-delivered id and a pending-entries list (owner, deliveries, last delivery time);
 *  - lag follows Redis 7's rules (exact while the group's read counter is known, estimated from the first entry
 *    otherwise, null when it cannot be known);
 *  - payloads are stored as JSON, so readers get copies and the same values Redis would give back.
 * Differences: trimming is exact (Redis's `MAXLEN ~` keeps up to one node more), and a closed bus wakes its blocked
 * readers with `[]`.
 *
 * Every operation reads the clock, then mutates in one synchronous step, so concurrent fibers never interleave inside
 * an operation. A blocked read waits on the stream's waiters with a timeout: no timers outlive a read.
 */
import { Clock, Effect, Layer, Ref } from "effect"
import { currentTraceparent } from "../ops/TraceContext"
import { Bus, deadLetterStream, type BusShape, type BusStats, type GroupInfo, type StreamEntry, type StreamPayload } from "./Bus"
import {
  DEFAULT_MAX_LEN, COMPACT_AFTER, Id, Entry, Pending, Group, Stream, ZERO, compare, format, parse, noGroup, encode, decode, live, firstId, indexAfter, find, estimateEntriesRead, lagOf
} from "./BusMemoryStream"

/** A delivered entry: a copy of its payload, and its publisher's trace context when it has one. */
const delivered = (id: string, entry: Entry, deliveries: number): StreamEntry =>
  entry.trace === undefined ? { id, payload: decode(entry.json), deliveries } : { id, payload: decode(entry.json), deliveries, trace: entry.trace }

const make = Effect.gen(function* () {
  const streams = new Map<string, Stream>()
  const counters = yield* Ref.make({ published: 0, acked: 0, deadLettered: 0 })
  const count = (field: "published" | "acked" | "deadLettered", n: number) => Ref.update(counters, (c) => ({ ...c, [field]: c[field] + n }))
  let closed = false

  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      closed = true
      for (const s of streams.values()) wake(s)
    })
  )

  const streamOf = (name: string): Stream => {
    let s = streams.get(name)
    if (!s) {
      s = { entries: [], head: 0, lastId: ZERO, entriesAdded: 0, groups: new Map(), waiters: new Set() }
      streams.set(name, s)
    }
    return s
  }
  const groupOf = (stream: string, group: string) => {
    const s = streams.get(stream)
    const g = s?.groups.get(group)
    if (!s || !g) throw noGroup(stream, group)
    return { s, g }
  }
  const wake = (s: Stream) => {
    const waiters = [...s.waiters]
    s.waiters.clear()
    for (const resume of waiters) resume()
  }

  const append = (s: Stream, json: string, maxLen: number, now: number, trace?: string): string => {
    const id = now > s.lastId.ms ? { ms: now, seq: 0 } : { ms: s.lastId.ms, seq: s.lastId.seq + 1 }
    const text = format(id)
    s.entries.push(trace === undefined ? { id, text, json } : { id, text, json, trace })
    s.lastId = id
    s.entriesAdded++
    const excess = live(s) - Math.max(0, maxLen)
    if (excess > 0) s.head += excess
    if (s.head >= COMPACT_AFTER && s.head * 2 >= s.entries.length) {
      s.entries = s.entries.slice(s.head)
      s.head = 0
    }
    return text
  }

  const publishNow = (stream: string, jsons: ReadonlyArray<string>, maxLen: number) =>
    Effect.zipWith(Clock.currentTimeMillis, currentTraceparent, (now, trace) => {
      const s = streamOf(stream)
      const ids = jsons.map((json) => append(s, json, maxLen, now, trace))
      wake(s)
      return ids
    })

  const publish = Effect.fn("BusMemory.publish")(function* (stream: string, payload: StreamPayload, maxLen?: number) {
    const [id] = yield* publishNow(stream, [encode(payload)], maxLen ?? DEFAULT_MAX_LEN)
    yield* count("published", 1)
    return id!
  })

  const publishMany = Effect.fn("BusMemory.publishMany")(function* (stream: string, payloads: ReadonlyArray<StreamPayload>, maxLen?: number) {
    const ids = yield* publishNow(stream, payloads.map(encode), maxLen ?? DEFAULT_MAX_LEN)
    yield* count("published", ids.length)
    return ids
  })

  const ensureGroup = Effect.fn("BusMemory.ensureGroup")(function* (stream: string, group: string, startId: "$" | "0" = "$") {
    yield* Effect.sync(() => {
      const s = streamOf(stream)
      if (s.groups.has(group)) return
      s.groups.set(group, { lastDelivered: startId === "$" ? s.lastId : ZERO, entriesRead: null, pending: new Map() })
    })
  })

  /** XREADGROUP `>`: the next entries after the group's last-delivered id, now pending for the consumer. */
  const deliverNew = (o: Parameters<BusShape["read"]>[0], now: number): Array<StreamEntry> => {
    const { s, g } = groupOf(o.stream, o.group)
    const out: Array<StreamEntry> = []
    for (let i = indexAfter(s, g.lastDelivered); i < s.entries.length && out.length < o.count; i++) {
      const entry = s.entries[i]!
      g.entriesRead = g.entriesRead !== null ? g.entriesRead + 1 : estimateEntriesRead(s, entry.id)
      g.lastDelivered = entry.id
      g.pending.set(entry.text, { owner: o.consumer, deliveries: 1, deliveredAt: now })
      out.push(delivered(entry.text, entry, 1))
    }
    return out
  }

  const waitForPublish = (s: Stream, ms: number) =>
    Effect.async<void>((resume) => {
      const wakeUp = () => resume(Effect.void)
      s.waiters.add(wakeUp)
      return Effect.sync(() => s.waiters.delete(wakeUp))
    }).pipe(Effect.timeoutOption(ms))

  const read = Effect.fn("BusMemory.read")(function* (o: Parameters<BusShape["read"]>[0]) {
    if (o.count < 1) return []
    const deadline = (yield* Clock.currentTimeMillis) + o.blockMs
    while (true) {
      const now = yield* Clock.currentTimeMillis
      const got = yield* Effect.sync(() => deliverNew(o, now))
      if (got.length > 0 || closed || now >= deadline) return got
      yield* waitForPublish(streams.get(o.stream)!, deadline - now)
    }
  })

  const logDropped = (stream: string, group: string, ids: ReadonlyArray<string>) =>
    ids.length === 0
      ? Effect.void
      : Effect.logWarning("Pending entries were trimmed from the stream before being handled; dropped").pipe(
          Effect.annotateLogs({ stream, group, ids: ids.join(",") })
        )

  const readPending = Effect.fn("BusMemory.readPending")(function* (o: Parameters<BusShape["readPending"]>[0]) {
    if (o.count < 1) return []
    const now = yield* Clock.currentTimeMillis
    const [out, dropped] = yield* Effect.sync(() => {
      const { s, g } = groupOf(o.stream, o.group)
      const out: Array<StreamEntry> = []
      const dropped: Array<string> = []
      let seen = 0
      for (const [id, p] of g.pending) {
        if (seen >= o.count) break
        if (p.owner !== o.consumer) continue
        seen++
        const entry = find(s, id)
        // Trimmed before it was handled: nothing left to deliver, only to ack (BusRedis does the same).
        if (!entry) {
          g.pending.delete(id)
          dropped.push(id)
          continue
        }
        p.deliveries++
        p.deliveredAt = now
        out.push(delivered(id, entry, p.deliveries))
      }
      return [out, dropped] as const
    })
    yield* logDropped(o.stream, o.group, dropped)
    return out
  })

  const claimStale = Effect.fn("BusMemory.claimStale")(function* (o: Parameters<BusShape["claimStale"]>[0]) {
    if (o.count < 1) return []
    const now = yield* Clock.currentTimeMillis
    const [out, dropped] = yield* Effect.sync(() => {
      const { s, g } = groupOf(o.stream, o.group)
      const out: Array<StreamEntry> = []
      const dropped: Array<string> = []
      for (const [id, p] of g.pending) {
        if (out.length >= o.count) break
        if (now - p.deliveredAt < o.minIdleMs) continue
        const entry = find(s, id)
        if (!entry) {
          g.pending.delete(id)
          dropped.push(id)
          continue
        }
        p.owner = o.consumer
        p.deliveries++
        p.deliveredAt = now
        out.push(delivered(id, entry, p.deliveries))
      }
      return [out, dropped] as const
    })
    yield* logDropped(o.stream, o.group, dropped)
    return out
  })

  const ackNow = (stream: string, group: string, ids: ReadonlyArray<string>) => {
    const g = streams.get(stream)?.groups.get(group)
    if (!g) return 0
    let acked = 0
    for (const id of ids) if (g.pending.delete(id)) acked++
    return acked
  }

  const ack = Effect.fn("BusMemory.ack")(function* (stream: string, group: string, ids: ReadonlyArray<string>) {
    const acked = yield* Effect.sync(() => ackNow(stream, group, ids))
    yield* count("acked", acked)
  })

  const deadLetter = Effect.fn("BusMemory.deadLetter")(function* (stream: string, group: string, entry: StreamEntry, reason: string) {
    const letter = encode({ id: entry.id, stream, group, reason, deliveries: entry.deliveries, payload: entry.payload })
    const now = yield* Clock.currentTimeMillis
    yield* Effect.sync(() => {
      const dlq = streamOf(deadLetterStream(stream))
      append(dlq, letter, DEFAULT_MAX_LEN, now)
      wake(dlq)
      ackNow(stream, group, [entry.id])
    })
    yield* count("deadLettered", 1)
    yield* Effect.logWarning("Entry dead-lettered").pipe(Effect.annotateLogs({ stream, group, id: entry.id, reason, deliveries: entry.deliveries }))
  })

  const groupInfo = Effect.fn("BusMemory.groupInfo")(function* (stream: string, group: string) {
    return yield* Effect.sync((): GroupInfo => {
      const s = streams.get(stream)
      const g = s?.groups.get(group)
      const dlq = streams.get(deadLetterStream(stream))
      return {
        length: s ? live(s) : 0,
        lag: s && g ? lagOf(s, g) : null,
        pending: g ? g.pending.size : 0,
        deadLetters: dlq ? live(dlq) : 0
      }
    })
  })

  const rangeAfter = Effect.fn("BusMemory.rangeAfter")(function* (stream: string, afterId: string, n: number) {
    return yield* Effect.sync(() => {
      const s = streams.get(stream)
      if (!s || n < 1) return []
      const start = indexAfter(s, parse(afterId))
      return s.entries.slice(start, start + n).map((e) => ({ id: e.text, payload: decode(e.json) }))
    })
  })

  const tail = Effect.fn("BusMemory.tail")(function* (stream: string, n: number) {
    return yield* Effect.sync(() => {
      const s = streams.get(stream)
      if (!s || n < 1) return []
      return s.entries.slice(Math.max(s.head, s.entries.length - n)).map((e) => ({ id: e.text, payload: decode(e.json) }))
    })
  })

  const stats = Ref.get(counters).pipe(Effect.map((c): BusStats => ({ kind: "memory", ...c })))

  return {
    kind: "memory",
    publish,
    publishMany,
    ensureGroup,
    read,
    readPending,
    claimStale,
    ack,
    deadLetter,
    groupInfo,
    rangeAfter,
    tail,
    ping: Effect.sync(() => !closed),
    stats
  } satisfies BusShape
})

export const BusMemory = {
  /** A fresh in-process bus for the scope of the layer. */
  layer: Layer.scoped(Bus, make) as Layer.Layer<Bus>
} as const
