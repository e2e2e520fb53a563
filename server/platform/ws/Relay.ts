/**
 * One source stream as this process relays it: the newest entries of the stream held in memory (bounded), each
 * serialised once per audience, published to uWS pub/sub as they arrive, and the history a subscribing or resuming
 * connection is sent. Every method is synchronous: a history read and the uWS subscription that follows it happen
 * in one step, so no entry can fall between them or arrive twice.
 *
 * History is complete after `floor`: every entry of the stream with a greater seq is held (entries that do not
 * parse are skipped and never sent). A resume from before `floor` is `truncated`.
 */
import type { StreamPayload } from "../infra/Bus"
import { seqOfId } from "../../../schema/ws"
import { channelOf, type Audience, type TopicSource } from "./Topics"

export interface RelayItem {
  readonly seq: number
  /** When the entry was appended (from its id). */
  readonly ms: number
  readonly topic: string
  readonly key: string
  /** The data frames, serialised. */
  readonly live: string
  readonly delayed: string | null
}

export interface History {
  readonly frames: ReadonlyArray<string>
  readonly truncated: boolean
  readonly head: number | null
}

export type Publish = (channel: string, frame: string) => void
export type Entry = { readonly id: string; readonly payload: StreamPayload }

const frame = (topic: string, seq: number, data: unknown) => JSON.stringify({ topic, seq, data })

export class Relay {
  private items: Array<RelayItem> = []
  private start = 0
  private floor = 0
  /** The newest entry read from the stream (relayed or skipped). */
  lastId = "0-0"
  private lastSeq = 0
  /** The newest seq published to the delayed audience. */
  private delayedSeq = 0
  skipped = 0

  constructor(
    readonly source: TopicSource,
    readonly capacity: number,
    readonly delayMs: number,
    private readonly publish: Publish
  ) {}

  get size() {
    return this.items.length - this.start
  }

  /** Start from the stream's newest entries (`capacity + 1` asked for; nothing is published). */
  init(entries: ReadonlyArray<Entry>, now: number) {
    const complete = entries.length <= this.capacity
    const held = complete ? entries : entries.slice(1)
    if (!complete) this.floor = seqOfId(entries[0]!.id) ?? 0
    for (const e of held) this.add(e)
    this.advance(entries)
    this.delayedSeq = this.floor
    for (let i = this.start; i < this.items.length; i++) {
      const item = this.items[i]!
      if (item.ms + this.delayMs <= now) this.delayedSeq = item.seq
    }
  }

  /**
   * New entries from the stream, in order: held and published to the live audience, until about `budget` bytes
   * went out (a client's burst stays under its backpressure limit). Returns how many entries were taken.
   */
  ingest(entries: ReadonlyArray<Entry>, budget = Infinity): number {
    let bytes = 0
    let taken = 0
    while (taken < entries.length && bytes < budget) {
      const item = this.add(entries[taken]!)
      taken++
      if (item) {
        this.publish(channelOf(item.topic, "live"), item.live)
        bytes += item.live.length
      }
    }
    this.advance(entries.slice(0, taken))
    return taken
  }

  /** Publishes to the delayed audience what has become due. */
  tick(now: number) {
    if (!this.source.delayedForAnon) return
    for (let i = this.start; i < this.items.length; i++) {
      const item = this.items[i]!
      if (item.seq <= this.delayedSeq) continue
      if (item.ms + this.delayMs > now) break
      this.delayedSeq = item.seq
      this.publish(channelOf(item.topic, "delayed"), item.delayed!)
    }
  }

  /** The newest seq an audience has been (or would have been) sent. */
  head(audience: Audience) {
    return audience === "live" || !this.source.delayedForAnon ? this.lastSeq : this.delayedSeq
  }

  /**
   * What a subscriber of `topic` is sent before live messages: for a log topic every held message after
   * `since` (or the newest `backlog` without `since`); for a state topic the newest message of each key.
   */
  history(topic: string, audience: Audience, since: number | undefined, backlog: number): History {
    const upTo = this.head(audience)
    const delayed = audience === "delayed" && this.source.delayedForAnon
    const held: Array<RelayItem> = []
    for (let i = this.start; i < this.items.length; i++) {
      const item = this.items[i]!
      if (item.seq > upTo) break
      if (item.topic === topic) held.push(item)
    }
    const head = held.length > 0 ? held[held.length - 1]!.seq : null
    const pick = (items: ReadonlyArray<RelayItem>) => items.map((i) => (delayed ? i.delayed! : i.live))
    if (this.source.kind === "state") {
      const latest = new Map<string, RelayItem>()
      for (const item of held) if (since === undefined || item.seq > since) latest.set(item.key, item)
      return { frames: pick([...latest.values()].sort((a, b) => a.seq - b.seq)), truncated: false, head }
    }
    if (since === undefined) return { frames: pick(backlog > 0 ? held.slice(-backlog) : []), truncated: false, head }
    return { frames: pick(held.filter((i) => i.seq > since)), truncated: since < this.floor, head }
  }

  private add(e: Entry): RelayItem | null {
    const seq = seqOfId(e.id)
    const routed = seq === null ? null : this.source.route(e.payload)
    if (seq === null || routed === null) {
      this.skipped++
      return null
    }
    const item: RelayItem = {
      seq,
      ms: Math.min(Number(e.id.slice(0, e.id.indexOf("-"))), routed.happenedAt ?? Infinity),
      topic: routed.topic,
      key: routed.key,
      live: frame(routed.topic, seq, routed.live),
      delayed: this.source.delayedForAnon ? frame(routed.topic, seq, routed.delayed ?? routed.live) : null
    }
    this.items.push(item)
    while (this.size > this.capacity) this.floor = this.items[this.start++]!.seq
    if (this.start > 1024 && this.start * 2 > this.items.length) {
      this.items = this.items.slice(this.start)
      this.start = 0
    }
    return item
  }

  private advance(entries: ReadonlyArray<Entry>) {
    const last = entries[entries.length - 1]
    if (!last) return
    this.lastId = last.id
    this.lastSeq = Math.max(this.lastSeq, seqOfId(last.id) ?? this.lastSeq)
  }
}
