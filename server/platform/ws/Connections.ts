/**
 * The protocol of one connection: parse each client frame (zod), answer `ping`, check a subscription against the
 * topic's gate, send its history and subscribe it to the uWS channel in the same synchronous step, and drop it on
 * `unsubscribe`. A resume from a seq this process has not relayed yet (the client was served by a process further
 * ahead) waits for the relay to catch up, up to `resumeWaitMs`; past that the seq is unknown and the subscription
 * starts afresh, marked `truncated`.
 */
import type uWS from "uWebSockets.js"
import { ClientMessage, type ControlFrame, type ErrorCode, type WsUser } from "../../../schema/ws"
import type { Relay } from "./Relay"
import { channelOf, type Audience, type TopicTable } from "./Topics"

export interface Conn {
  readonly id: number
  readonly ip: string
  user: WsUser | null
  auth: "none" | "ok" | "invalid" | "expired"
  /**
   * The session token still being checked (the upgrade is synchronous; the check runs after `open`), and the client
   * messages that arrived meanwhile, handled in order once it is known who is asking.
   */
  checking: { readonly token: string; readonly queue: Array<string> } | null
  /** topic → uWS channel of the subscriptions in force. */
  readonly topics: Map<string, string>
  ws: uWS.WebSocket<Conn> | null
  open: boolean
  windowStart: number
  messages: number
  /** Gives the connection's per-address slot back (idempotent). */
  readonly release: () => void
}

interface Waiter {
  readonly conn: Conn
  readonly topic: string
  readonly audience: Audience
  readonly relay: Relay
  readonly since: number
  readonly backlog: number
  readonly deadline: number
}

export interface SessionSettings {
  readonly anonDelayMs: number
  readonly maxSubscriptions: number
  readonly maxBacklog: number
  readonly maxMessagesPer10s: number
  readonly resumeWaitMs: number
}

export const encode = (frame: ControlFrame) => JSON.stringify(frame)

export class Connections {
  private readonly waiters = new Set<Waiter>()

  constructor(
    private readonly relays: ReadonlyMap<string, Relay>,
    private readonly topics: TopicTable,
    private readonly settings: SessionSettings,
    private readonly onError: (code: ErrorCode) => void = () => undefined
  ) {}

  /** One client frame. Returns false when the connection must be closed (abusive rate). */
  message(conn: Conn, text: string, now: number): boolean {
    if (now - conn.windowStart >= 10_000) {
      conn.windowStart = now
      conn.messages = 0
    }
    conn.messages++
    if (conn.messages > this.settings.maxMessagesPer10s * 2) return false
    if (conn.messages > this.settings.maxMessagesPer10s) {
      this.error(conn, "rate_limited", `At most ${this.settings.maxMessagesPer10s} messages per 10 seconds`)
      return true
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      this.error(conn, "bad_json", "Frames must be JSON text")
      return true
    }
    const parsed = ClientMessage.safeParse(json)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : ""
      this.error(conn, "bad_message", `${issue?.message ?? "Invalid message"}${where}; expected subscribe, unsubscribe or ping`)
      return true
    }
    const m = parsed.data
    if (m.type === "ping") this.send(conn, { type: "pong", ...(m.id !== undefined ? { id: m.id } : {}), ts: now })
    else if (m.type === "unsubscribe") {
      this.drop(conn, m.topic)
      this.send(conn, { type: "unsubscribed", topic: m.topic })
    } else this.subscribe(conn, m.topic, m.since_seq, m.backlog ?? 0, now)
    return true
  }

  /** A relay read new entries (or a poll went by): serve the resumes waiting for it. */
  advanced(relay: Relay, now: number) {
    for (const w of this.waiters) {
      if (w.relay !== relay) continue
      if (!w.conn.open) {
        this.waiters.delete(w)
      } else if (w.since <= relay.head(w.audience)) {
        this.waiters.delete(w)
        this.deliver(w.conn, w.topic, w.audience, relay, w.since, w.backlog, false)
      } else if (now >= w.deadline) {
        this.waiters.delete(w)
        this.error(w.conn, "seq_unknown", `since_seq ${w.since} is not a message of ${w.topic}; starting afresh`, w.topic)
        this.deliver(w.conn, w.topic, w.audience, relay, undefined, w.backlog, true)
      }
    }
  }

  closed(conn: Conn) {
    for (const w of this.waiters) if (w.conn === conn) this.waiters.delete(w)
  }

  private subscribe(conn: Conn, topic: string, since: number | undefined, backlog: number, now: number) {
    const gate = this.topics.access(topic, conn.user, this.settings.anonDelayMs)
    if (!gate.ok) return this.error(conn, gate.code, gate.message, topic, gate.requiredTier)
    this.drop(conn, topic)
    if (conn.topics.size + this.waitingOf(conn) >= this.settings.maxSubscriptions) {
      return this.error(conn, "too_many_subscriptions", `At most ${this.settings.maxSubscriptions} topics per connection`, topic)
    }
    const relay = this.relays.get(this.topics.sourceOf(topic)!.stream)!
    const wanted = Math.min(backlog, this.settings.maxBacklog)
    if (since !== undefined && since > relay.head(gate.audience)) {
      const wait = this.settings.resumeWaitMs + (gate.audience === "delayed" ? this.settings.anonDelayMs : 0)
      this.waiters.add({ conn, topic, audience: gate.audience, relay, since, backlog: wanted, deadline: now + wait })
      return
    }
    this.deliver(conn, topic, gate.audience, relay, since, wanted, false)
  }

  private deliver(conn: Conn, topic: string, audience: Audience, relay: Relay, since: number | undefined, backlog: number, truncated: boolean) {
    const ws = conn.ws
    if (!conn.open || !ws) return
    const history = relay.history(topic, audience, since, backlog)
    const channel = channelOf(topic, audience)
    ws.cork(() => {
      ws.send(encode({
        type: "subscribed", topic, kind: relay.source.kind, replayed: history.frames.length,
        truncated: truncated || history.truncated, head: history.head, delay_ms: audience === "delayed" ? this.settings.anonDelayMs : 0
      }))
      for (const frame of history.frames) ws.send(frame)
    })
    // A send over the backpressure limit may have closed it.
    if (!conn.open) return
    ws.subscribe(channel)
    conn.topics.set(topic, channel)
  }

  private drop(conn: Conn, topic: string) {
    for (const w of this.waiters) if (w.conn === conn && w.topic === topic) this.waiters.delete(w)
    const channel = conn.topics.get(topic)
    if (channel === undefined) return
    conn.topics.delete(topic)
    if (conn.open) conn.ws?.unsubscribe(channel)
  }

  private waitingOf(conn: Conn) {
    let n = 0
    for (const w of this.waiters) if (w.conn === conn) n++
    return n
  }

  private error(conn: Conn, code: ErrorCode, message: string, topic?: string, requiredTier?: WsUser["tier"]) {
    this.onError(code)
    this.send(conn, { type: "error", code, message, ...(topic !== undefined ? { topic } : {}), ...(requiredTier ? { required_tier: requiredTier } : {}) })
  }

  private send(conn: Conn, frame: ControlFrame) {
    const ws = conn.ws
    if (conn.open && ws) ws.cork(() => ws.send(encode(frame)))
  }
}
