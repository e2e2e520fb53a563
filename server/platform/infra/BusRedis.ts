/**
 * The stream bus on Redis Streams (see `Bus.ts` for the contract).
 *
 * Each entry holds the field `p`, the payload as JSON, and with tracing on `t`, the publisher's `traceparent`. Stream keys are `prefix + stream`; dead letters go to
 * `prefix + dlq:<stream>` as ordinary bus entries whose payload is `{ id, stream, group, reason, deliveries, payload }`,
 * so `tail(deadLetterStream(s), n)` reads them back.
 *
 * Redis replies are read raw (`sendCommand`): the shapes below are Redis 7's RESP2 replies. A refused command is a
 * defect (the contract has no error channel), e.g. reading a group that `ensureGroup` never created (NOGROUP).
 * An entry that is not valid bus JSON is delivered as `{ _malformed: <raw fields> }` rather than failing the whole
 * read, so a consumer's schema rejects it and dead-letters it instead of looping on it.
 * `stats` counts what this process did, not the stream's history.
 */
import { Effect, Layer, Ref } from "effect"
import { Bus, deadLetterStream, type BusShape, type BusStats, type GroupInfo, type StreamEntry, type StreamPayload } from "./Bus"
import { currentTraceparent } from "../ops/TraceContext"
import { evalScript, RedisClient, script } from "./Redis"

export interface BusRedisOptions {
  /** Trim target when `publish` is not given one. Default 100 000. */
  readonly defaultMaxLen?: number
}

const DEFAULT_MAX_LEN = 100_000
/**
 * Entries and characters per script call in `publishMany` (Redis runs a script alone: a call stays short — a few ms).
 * A whole block (2,400 records at worst) goes in one call, so a consumer's read finds it whole: a block split over
 * two reads was matched and written in two rounds, one after the other.
 */
const PUBLISH_CHUNK = 5000
const PUBLISH_CHUNK_CHARS = 4_000_000

/**
 * `publishMany`'s XADDs in one script call: KEYS[1] the stream, ARGV[1] the trim target, ARGV[2] the payloads' JSON
 * joined by newlines (JSON text never holds a raw newline), ARGV[3] (tracing on only) the `traceparent` of them all. One argument instead of eight per entry: the client's
 * encoding and socket writes of thousands of small strings were most of a large publish's cost.
 */
const PUBLISH_PACKED = script(
  `local key, maxlen, s, t = KEYS[1], ARGV[1], ARGV[2], ARGV[3] local out, n, pos = {}, 0, 1 local find, sub = string.find, string.sub ` +
  `while pos <= #s do local e = find(s, '\\n', pos, true) or (#s + 1) n = n + 1 ` +
  `if t then out[n] = redis.call('XADD', key, 'MAXLEN', '~', maxlen, '*', 'p', sub(s, pos, e - 1), 't', t) ` +
  `else out[n] = redis.call('XADD', key, 'MAXLEN', '~', maxlen, '*', 'p', sub(s, pos, e - 1)) end pos = e + 1 end return out`
)
/** Dead-letter streams are trimmed like any other. */
const DEAD_LETTER_MAX_LEN = 100_000

type RawFields = ReadonlyArray<string> | null
type RawEntry = readonly [id: string, fields: RawFields]

const decodePayload = (fields: ReadonlyArray<string>): StreamPayload => {
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] !== "p") continue
    try {
      const parsed: unknown = JSON.parse(fields[i + 1]!)
      if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as StreamPayload
    } catch {
      // fall through to _malformed
    }
  }
  return { _malformed: fields }
}

/** The `t` field of an entry (its publisher's `traceparent`), if any. */
const traceOf = (fields: ReadonlyArray<string>): string | undefined => {
  for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === "t") return fields[i + 1]
  return undefined
}

/** A delivered entry: its payload, and its publisher's trace context when it has one. */
const entryOf = (id: string, fields: ReadonlyArray<string>, deliveries: number): StreamEntry => {
  const trace = traceOf(fields)
  return trace === undefined ? { id, payload: decodePayload(fields), deliveries } : { id, payload: decodePayload(fields), deliveries, trace }
}

const encodePayload = (payload: StreamPayload) => {
  const json = JSON.stringify(payload)
  if (typeof json !== "string") throw new TypeError("Bus payload is not JSON-serialisable")
  return json
}

const xaddArgs = (key: string, json: string, maxLen: number, trace?: string) =>
  trace === undefined
    ? ["XADD", key, "MAXLEN", "~", String(maxLen), "*", "p", json]
    : ["XADD", key, "MAXLEN", "~", String(maxLen), "*", "p", json, "t", trace]

/** `XINFO GROUPS` item: a flat `[name, value, …]` list. */
const groupField = (raw: ReadonlyArray<unknown>, field: string): unknown => {
  for (let i = 0; i + 1 < raw.length; i += 2) if (raw[i] === field) return raw[i + 1]
  return undefined
}

const make = (options: BusRedisOptions) =>
  Effect.gen(function* () {
    const redis = yield* RedisClient
    const defaultMaxLen = options.defaultMaxLen ?? DEFAULT_MAX_LEN
    const counters = yield* Ref.make({ published: 0, acked: 0, deadLettered: 0 })
    const count = (field: "published" | "acked" | "deadLettered", n: number) =>
      Ref.update(counters, (c) => ({ ...c, [field]: c[field] + n }))
    const send = <A>(op: string, args: ReadonlyArray<string>) => redis.run(op, (c) => c.sendCommand<A>(args))

    /** Entries whose stream entry was trimmed away come back with no fields: they can only be acked. */
    const dropTrimmed = (key: string, group: string, raw: ReadonlyArray<RawEntry>) =>
      Effect.gen(function* () {
        const gone = raw.filter(([, fields]) => fields === null).map(([id]) => id)
        if (gone.length === 0) return
        yield* send("XACK", ["XACK", key, group, ...gone])
        yield* Effect.logWarning("Pending entries were trimmed from the stream before being handled; acked and dropped").pipe(
          Effect.annotateLogs({ stream: key, group, ids: gone.join(",") })
        )
      })

    const publish = Effect.fn("BusRedis.publish")(function* (stream: string, payload: StreamPayload, maxLen?: number) {
      const json = encodePayload(payload)
      const id = yield* send<string>("XADD", xaddArgs(redis.key(stream), json, maxLen ?? defaultMaxLen, yield* currentTraceparent))
      yield* count("published", 1)
      return id
    })

    const publishMany = Effect.fn("BusRedis.publishMany")(function* (stream: string, payloads: ReadonlyArray<StreamPayload>, maxLen?: number) {
      const key = redis.key(stream)
      const jsons = payloads.map(encodePayload)
      const trace = yield* currentTraceparent
      const ids: Array<string> = []
      for (let start = 0; start < jsons.length;) {
        let end = start + 1
        let chars = jsons[start]!.length
        while (end < jsons.length && end - start < PUBLISH_CHUNK && chars + jsons[end]!.length <= PUBLISH_CHUNK_CHARS) chars += jsons[end++]!.length
        const packed = jsons.slice(start, end).join("\n")
        start = end
        const replies = yield* redis.run("XADD (packed)", (c) => evalScript<ReadonlyArray<string>>(c, PUBLISH_PACKED, [key],
          trace === undefined ? [String(maxLen ?? defaultMaxLen), packed] : [String(maxLen ?? defaultMaxLen), packed, trace]))
        for (const id of replies) ids.push(id)
      }
      yield* count("published", ids.length)
      return ids
    })

    const ensureGroup = Effect.fn("BusRedis.ensureGroup")(function* (stream: string, group: string, startId: "$" | "0" = "$") {
      yield* redis.run("XGROUP CREATE", (c) =>
        c.sendCommand(["XGROUP", "CREATE", redis.key(stream), group, startId, "MKSTREAM"]).catch((error: unknown) => {
          if (error instanceof Error && error.message.startsWith("BUSYGROUP")) return "OK"
          throw error
        })
      )
    })

    const read = Effect.fn("BusRedis.read")(function* (o: Parameters<BusShape["read"]>[0]) {
      if (o.count < 1) return []
      const key = redis.key(o.stream)
      const base = ["XREADGROUP", "GROUP", o.group, o.consumer, "COUNT", String(o.count)]
      const streams = ["STREAMS", key, ">"]
      type Reply = ReadonlyArray<readonly [string, ReadonlyArray<RawEntry>]> | null
      // BLOCK 0 would wait forever in Redis; the contract's 0 means "do not wait".
      const reply =
        o.blockMs > 0
          ? yield* redis.blocking(`${o.stream}/${o.group}/${o.consumer}`, "XREADGROUP BLOCK", (c) =>
              c.sendCommand<Reply>([...base, "BLOCK", String(Math.ceil(o.blockMs)), ...streams])
            )
          : yield* send<Reply>("XREADGROUP", [...base, ...streams])
      const raw = reply?.[0]?.[1] ?? []
      return raw.flatMap(([id, fields]): Array<StreamEntry> => (fields === null ? [] : [entryOf(id, fields, 1)]))
    })

    const readPending = Effect.fn("BusRedis.readPending")(function* (o: Parameters<BusShape["readPending"]>[0]) {
      if (o.count < 1) return []
      const key = redis.key(o.stream)
      const n = String(o.count)
      // One transaction: the history read (which counts a delivery) and the counts it produced, for the same entries.
      const [reply, pending] = (yield* redis.run("XREADGROUP 0 + XPENDING (MULTI)", (c) =>
        c
          .multi()
          .addCommand(["XREADGROUP", "GROUP", o.group, o.consumer, "COUNT", n, "STREAMS", key, "0"])
          .addCommand(["XPENDING", key, o.group, "-", "+", n, o.consumer])
          .exec()
      )) as unknown as [ReadonlyArray<readonly [string, ReadonlyArray<RawEntry>]> | null, ReadonlyArray<readonly [string, string, number, number]>]
      const raw = reply?.[0]?.[1] ?? []
      yield* dropTrimmed(key, o.group, raw)
      const deliveries = new Map(pending.map(([id, , , times]) => [id, times]))
      return raw.flatMap(([id, fields]): Array<StreamEntry> =>
        fields === null ? [] : [entryOf(id, fields, deliveries.get(id) ?? 1)]
      )
    })

    const claimStale = Effect.fn("BusRedis.claimStale")(function* (o: Parameters<BusShape["claimStale"]>[0]) {
      if (o.count < 1) return []
      const key = redis.key(o.stream)
      const claimed: Array<readonly [string, ReadonlyArray<string>]> = []
      // XAUTOCLAIM looks at COUNT×10 pending entries per call; walk the cursor until enough are claimed.
      let cursor = "0-0"
      do {
        const [next, entries, deleted] = yield* send<readonly [string, ReadonlyArray<RawEntry | null>, ReadonlyArray<string>?]>("XAUTOCLAIM", [
          "XAUTOCLAIM", key, o.group, o.consumer, String(Math.max(0, Math.floor(o.minIdleMs))), cursor, "COUNT", String(o.count - claimed.length)
        ])
        for (const entry of entries) if (entry !== null && entry[1] !== null) claimed.push([entry[0], entry[1]])
        if (deleted && deleted.length > 0) {
          yield* Effect.logWarning("Stale pending entries were trimmed from the stream; Redis dropped them").pipe(
            Effect.annotateLogs({ stream: key, group: o.group, ids: deleted.join(",") })
          )
        }
        cursor = next
      } while (cursor !== "0-0" && claimed.length < o.count)
      if (claimed.length === 0) return []
      // XAUTOCLAIM counted a delivery but does not report the count: ask for each claimed entry, in one round trip.
      const counts = yield* redis.run("XPENDING", (c) =>
        Promise.all(
          claimed.map(([id]) => c.sendCommand<ReadonlyArray<readonly [string, string, number, number]>>(["XPENDING", key, o.group, id, id, "1", o.consumer]))
        )
      )
      // An entry missing here was acked or claimed again in between: it is no longer ours to handle.
      return claimed.flatMap(([id, fields], i): Array<StreamEntry> => {
        const row = counts[i]?.[0]
        return row ? [entryOf(id, fields, row[3])] : []
      })
    })

    const ack = Effect.fn("BusRedis.ack")(function* (stream: string, group: string, ids: ReadonlyArray<string>) {
      if (ids.length === 0) return
      const acked = yield* send<number>("XACK", ["XACK", redis.key(stream), group, ...ids])
      yield* count("acked", acked)
    })

    const deadLetter = Effect.fn("BusRedis.deadLetter")(function* (stream: string, group: string, entry: StreamEntry, reason: string) {
      const key = redis.key(stream)
      const letter = encodePayload({ id: entry.id, stream, group, reason, deliveries: entry.deliveries, payload: entry.payload })
      // One transaction: the copy and the ack happen together or not at all.
      yield* redis.run("XADD dlq + XACK (MULTI)", (c) =>
        c
          .multi()
          .addCommand(xaddArgs(redis.key(deadLetterStream(stream)), letter, DEAD_LETTER_MAX_LEN))
          .addCommand(["XACK", key, group, entry.id])
          .exec()
      )
      yield* count("deadLettered", 1)
      yield* Effect.logWarning("Entry dead-lettered").pipe(Effect.annotateLogs({ stream, group, id: entry.id, reason, deliveries: entry.deliveries }))
    })

    const groupInfo = Effect.fn("BusRedis.groupInfo")(function* (stream: string, group: string) {
      const key = redis.key(stream)
      const [length, deadLetters, groups] = yield* redis.run("XLEN + XINFO GROUPS", (c) =>
        Promise.all([
          c.sendCommand<number>(["XLEN", key]),
          c.sendCommand<number>(["XLEN", redis.key(deadLetterStream(stream))]),
          c.sendCommand<ReadonlyArray<ReadonlyArray<unknown>>>(["XINFO", "GROUPS", key]).catch((error: unknown) => {
            if (error instanceof Error && /no such key/i.test(error.message)) return []
            throw error
          })
        ])
      )
      const found = groups.find((g) => groupField(g, "name") === group)
      const lag = found ? groupField(found, "lag") : null
      return {
        length,
        lag: typeof lag === "number" ? lag : null,
        pending: found ? Number(groupField(found, "pending") ?? 0) : 0,
        deadLetters
      } satisfies GroupInfo
    })

    const toRanged = (raw: ReadonlyArray<RawEntry>) =>
      raw.flatMap(([id, fields]) => (fields === null ? [] : [{ id, payload: decodePayload(fields) }]))

    const rangeAfter = Effect.fn("BusRedis.rangeAfter")(function* (stream: string, afterId: string, n: number) {
      if (n < 1) return []
      return toRanged(yield* send<ReadonlyArray<RawEntry>>("XRANGE", ["XRANGE", redis.key(stream), `(${afterId}`, "+", "COUNT", String(n)]))
    })

    const tail = Effect.fn("BusRedis.tail")(function* (stream: string, n: number) {
      if (n < 1) return []
      const newestFirst = yield* send<ReadonlyArray<RawEntry>>("XREVRANGE", ["XREVRANGE", redis.key(stream), "+", "-", "COUNT", String(n)])
      return toRanged([...newestFirst].reverse())
    })

    const stats = Ref.get(counters).pipe(Effect.map((c): BusStats => ({ kind: "redis", ...c })))

    return {
      kind: "redis",
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
      ping: redis.ping,
      stats
    } satisfies BusShape
  })

export const BusRedis = {
  /** The bus on the `RedisClient` connection. */
  layer: (options: BusRedisOptions = {}): Layer.Layer<Bus, never, RedisClient> => Layer.effect(Bus, make(options))
} as const
