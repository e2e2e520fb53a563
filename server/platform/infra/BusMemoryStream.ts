/**
 * The data structure behind the in-process bus (BusMemory.ts): Redis-style stream ids, entries kept in an array
 * with a moving head (trimmed slots compacted in batches), consumer groups with their pending-entries lists, and
 * Redis 7's rules for a group's lag.
 */
import type { StreamPayload } from "./Bus"

export const DEFAULT_MAX_LEN = 100_000
/** Compact a stream's backing array once this many trimmed slots precede the live entries. */
export const COMPACT_AFTER = 1_024

export interface Id {
  readonly ms: number
  readonly seq: number
}
export interface Entry {
  readonly id: Id
  readonly text: string
  readonly json: string
  /** The publisher's `traceparent` (tracing on only). */
  readonly trace?: string
}
export interface Pending {
  owner: string
  deliveries: number
  deliveredAt: number
}
export interface Group {
  lastDelivered: Id
  /** Entries the group has read, like Redis's `entries-read`; null when unknown. */
  entriesRead: number | null
  /** Keyed by entry id text; insertion order is id order (entries enter only through `>` reads, in order). */
  readonly pending: Map<string, Pending>
}
export interface Stream {
  /** Live entries are `entries[head…]`; trimming advances `head`. */
  entries: Array<Entry>
  head: number
  lastId: Id
  entriesAdded: number
  readonly groups: Map<string, Group>
  readonly waiters: Set<() => void>
}

export const ZERO: Id = { ms: 0, seq: 0 }
export const compare = (a: Id, b: Id) => (a.ms !== b.ms ? a.ms - b.ms : a.seq - b.seq)
export const format = (id: Id) => `${id.ms}-${id.seq}`
/** Parses `<ms>-<seq>` or `<ms>` (sequence 0), like Redis does for range starts. */
export const parse = (text: string): Id => {
  const match = /^(\d+)(?:-(\d+))?$/.exec(text)
  if (!match) throw new Error(`ERR Invalid stream ID specified as stream command argument: ${text}`)
  return { ms: Number(match[1]), seq: Number(match[2] ?? 0) }
}

export const noGroup = (stream: string, group: string) =>
  new Error(`NOGROUP No such key '${stream}' or consumer group '${group}'`)

export const encode = (payload: StreamPayload) => {
  const json = JSON.stringify(payload)
  if (typeof json !== "string") throw new TypeError("Bus payload is not JSON-serialisable")
  return json
}
export const decode = (json: string) => JSON.parse(json) as StreamPayload

export const live = (s: Stream) => s.entries.length - s.head
export const firstId = (s: Stream) => s.entries[s.head]?.id

/** Index of the first live entry with id > `after` (binary search). */
export const indexAfter = (s: Stream, after: Id) => {
  let lo = s.head
  let hi = s.entries.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (compare(s.entries[mid]!.id, after) <= 0) lo = mid + 1
    else hi = mid
  }
  return lo
}
export const find = (s: Stream, text: string): Entry | undefined => {
  const id = parse(text)
  const entry = s.entries[indexAfter(s, { ms: id.ms, seq: id.seq - 1 })]
  return entry && compare(entry.id, id) === 0 ? entry : undefined
}

/** Redis's `streamEstimateDistanceFromFirstEverEntry`, for a stream without deletions (the bus never XDELs). */
export const estimateEntriesRead = (s: Stream, id: Id): number | null => {
  if (s.entriesAdded === 0) return 0
  const length = live(s)
  if (length === 0 && compare(id, s.lastId) <= 0) return s.entriesAdded
  const vsLast = compare(id, s.lastId)
  if (vsLast === 0) return s.entriesAdded
  if (vsLast > 0) return null
  const first = firstId(s)!
  const vsFirst = compare(id, first)
  if (vsFirst < 0) return s.entriesAdded - length
  if (vsFirst === 0) return s.entriesAdded - length + 1
  return null
}

export const lagOf = (s: Stream, g: Group): number | null => {
  if (s.entriesAdded === 0) return 0
  if (g.entriesRead !== null) return s.entriesAdded - g.entriesRead
  const read = estimateEntriesRead(s, g.lastDelivered)
  return read === null ? null : s.entriesAdded - read
}
