/**
 * The keyed WebSocket feed at `/api/v1/stream` (protocol: schema/dataapi-stream.ts; docs/api-keyed.md).
 *
 * Auth: the data API's key in the upgrade's `X-API-Key` header, or in the first message `{"type":"auth","key"}`
 * within STREAM_AUTH_TIMEOUT_MS; an unknown or revoked key closes with 4401, an owner below the whale tier with 4403.
 * Messages sent before the key is checked are queued (at most 32) and handled in order after `welcome`.
 *
 * Fan-out and resume reuse the console hub's mechanism: one `Relay` per source stream per process (the same stream
 * entries, the same seq `(ms − 2020-01-01) · 4096 + n` on every process, the same bounded history), so `since_seq`
 * resumes a log topic without gap or duplicate (a seq this process has not relayed yet is waited for, up to
 * WS_RESUME_WAIT_MS). Trades are filtered per subscription (tokens, wallets, min_usd, side), so frames go to each
 * matching connection instead of through uWS pub/sub.
 *
 * Connections: at most STREAM_MAX_CONNECTIONS_PER_ACCOUNT open feeds per account (all of its keys) in this process;
 * one more is closed with 4430 once its key is checked (each feed gets every frame it subscribes to, so a few are
 * all a consumer needs, and an account cannot hold the server's sockets).
 *
 * Quota: every data frame delivered counts one request of the key's account (the same daily counter as HTTP). Frames
 * of a connection wait in order for their count; the first one refused closes the connection with 4429 after the
 * frames before it. Heartbeat frames and control frames are free.
 *
 * Slow readers: a connection whose unsent bytes pass WS_MAX_BACKPRESSURE_BYTES, or whose frames waiting for their
 * count pass STREAM_MAX_QUEUE, is closed (4008); nobody else waits for it.
 */
import { Duration, Effect, Runtime } from "effect"
import uWS from "uWebSockets.js"
import { STREAM_CLOSE, STREAM_PATH, StreamClientMessage, type StreamTopic } from "../../../schema/dataapi-stream"
import { tierAtLeast } from "../../../schema/tiers"
import { ApiKeys, type KeyOwner } from "../../domains/apikeys/ApiKeys"
import { AppConfig } from "../../platform/Config"
import { INSTANCE } from "../../platform/Instance"
import { Bus } from "../../platform/infra/Bus"
import { Metrics } from "../../platform/ops/Metrics"
import { endpointOptions } from "../../platform/ws/Endpoint"
import { Relay } from "../../platform/ws/Relay"
import { DataApiConfig } from "./Config"
import { Quota } from "./Quota"
import { alertsTopic, ALL, compileFilters, STREAM_SOURCES, type Matcher } from "./StreamTopics"
import { UsageEvents } from "./UsageEvents"

interface Sub { readonly topic: string; readonly match: Matcher }
interface Waiting { readonly conn: KConn; readonly name: StreamTopic; readonly sub: Sub; readonly relay: Relay; readonly since: number; readonly deadline: number }
interface Slot { readonly frame: string; state: 0 | 1 | 2 }

interface KConn {
  ws: uWS.WebSocket<KConn> | null
  open: boolean
  owner: KeyOwner | null
  /** The key being checked, and the messages that came meanwhile. */
  checking: { readonly queue: Array<string> } | null
  /** Whether a key is being checked (from the header or the first message). */
  authing: boolean
  readonly presented: string | undefined
  readonly subs: Map<StreamTopic, Sub>
  /** Frames waiting for their quota count, in order. */
  readonly queue: Array<Slot>
  windowStart: number
  messages: number
}

const BATCH = 1_000
const MAX_QUEUED_MESSAGES = 32
const MAX_MESSAGES_PER_10S = 100

export const makeKeyedStream = Effect.gen(function* () {
  const app = yield* AppConfig
  const settings = app.ws
  const config = yield* DataApiConfig
  const keys = yield* ApiKeys
  const quota = yield* Quota
  const usage = yield* UsageEvents
  const bus = yield* Bus
  const metrics = yield* Metrics
  const runtime = yield* Effect.runtime<never>()
  const runFork = Runtime.runFork(runtime)
  const delivered = metrics.counter("api_stream_frames_total", "Data frames delivered on the keyed WebSocket feed").cell()
  const closes = metrics.counter("api_stream_closed_total", "Keyed WebSocket connections closed, by close code")
  const gauge = metrics.gauge("api_stream_connections", "Open keyed WebSocket connections")

  const conns = new Set<KConn>()
  /** Open, welcomed feeds per account (user id). */
  const perAccount = new Map<number, number>()
  const subscribers = new Map<string, Set<KConn>>()
  const waiters = new Set<Waiting>()

  const close = (c: KConn, code: number, reason: string) => {
    if (!c.open || !c.ws) return
    c.open = false
    c.ws.end(code, reason)
  }

  /** Sends the frames whose count is in, in order; the first refused closes the connection (4429). */
  const drain = (c: KConn) => {
    const ws = c.ws
    if (!c.open || !ws) return
    let refused = false
    ws.cork(() => {
      while (c.queue.length > 0 && c.queue[0]!.state !== 0) {
        const slot = c.queue.shift()!
        if (slot.state === 2) {
          refused = true
          break
        }
        ws.send(slot.frame)
        delivered.value++
        if (!c.open) return
      }
    })
    if (refused) {
      c.queue.length = 0
      close(c, STREAM_CLOSE.quotaExceeded, "daily_limit_reached")
    } else if (c.open && ws.getBufferedAmount() > settings.maxBackpressureBytes) {
      close(c, STREAM_CLOSE.tooSlow, "too slow")
    }
  }

  /** One data frame for a connection: counted against the quota, sent when its turn comes. */
  const deliver = (c: KConn, frame: string, now: number) => {
    const owner = c.owner
    if (!c.open || owner === null) return
    if (c.queue.length >= config.streamMaxQueue) return close(c, STREAM_CLOSE.tooSlow, "too slow")
    const slot: Slot = { frame, state: 0 }
    c.queue.push(slot)
    quota.count(owner.userId, owner.keyId, now, (q) => {
      usage.unsafeRecord(owner, STREAM_PATH, q)
      slot.state = q.allowed ? 1 : 2
      drain(c)
    })
  }

  const send = (c: KConn, frame: Record<string, unknown>) => {
    const ws = c.ws
    if (c.open && ws) ws.cork(() => ws.send(JSON.stringify(frame)))
  }

  /** An alert's frame as its owner gets it: topic `alerts` (the relay's is `alerts:<user id>`). */
  const outward = (topic: string, frame: string) =>
    topic.startsWith("alerts:") ? `{"topic":"alerts"${frame.slice(`{"topic":${JSON.stringify(topic)}`.length)}` : frame

  /** A relay published an entry: the frame to every subscriber of its topic whose filters match. */
  const fanOut = (topic: string, frame: string) => {
    const subs = subscribers.get(topic)
    if (subs === undefined || subs.size === 0) return
    const data = topic === "trades" ? (JSON.parse(frame) as { data: Record<string, unknown> }).data : null
    const now = Date.now()
    frame = outward(topic, frame)
    for (const c of subs) {
      const sub = c.subs.get(topic === "trades" ? "trades" : topic === "index" ? "index" : "alerts")
      if (sub === undefined || (data !== null && !sub.match.test(data))) continue
      deliver(c, frame, now)
    }
  }

  const relays = new Map(STREAM_SOURCES.map((s) => [s.stream, new Relay(s, s.kind === "state" ? 200 : settings.history, 0, fanOut)]))
  const relayOf: Record<StreamTopic, Relay> = {
    trades: relays.get(STREAM_SOURCES[0]!.stream)!, index: relays.get(STREAM_SOURCES[1]!.stream)!, alerts: relays.get(STREAM_SOURCES[2]!.stream)!
  }

  /** History after `since` (filtered), then live: one synchronous step, so nothing falls between or comes twice. */
  const start = (c: KConn, name: StreamTopic, sub: Sub, relay: Relay, since: number | undefined, backlog: number, truncated: boolean) => {
    if (!c.open) return
    const history = relay.history(sub.topic, "live", since, backlog)
    const frames = sub.match === ALL ? history.frames : history.frames.filter((f) => sub.match.test((JSON.parse(f) as { data: Record<string, unknown> }).data))
    send(c, { type: "subscribed", topic: name, replayed: frames.length, truncated: truncated || history.truncated, head: history.head })
    const now = Date.now()
    for (const f of frames) deliver(c, outward(sub.topic, f), now)
    c.subs.set(name, sub)
    let set = subscribers.get(sub.topic)
    if (set === undefined) subscribers.set(sub.topic, (set = new Set()))
    set.add(c)
  }

  const unsubscribe = (c: KConn, name: StreamTopic) => {
    for (const w of waiters) if (w.conn === c && w.name === name) waiters.delete(w)
    const sub = c.subs.get(name)
    if (sub === undefined) return
    c.subs.delete(name)
    subscribers.get(sub.topic)?.delete(c)
  }

  const advanced = (relay: Relay, now: number) => {
    for (const w of waiters) {
      if (w.relay !== relay) continue
      if (!w.conn.open) waiters.delete(w)
      else if (w.since <= relay.head("live")) {
        waiters.delete(w)
        start(w.conn, w.name, w.sub, relay, w.since, 0, false)
      } else if (now >= w.deadline) {
        waiters.delete(w)
        send(w.conn, { type: "error", code: "seq_unknown", topic: w.name, message: `since_seq ${w.since} is not a message of ${w.name}; starting afresh` })
        start(w.conn, w.name, w.sub, relay, undefined, 0, true)
      }
    }
  }

  const message = (c: KConn, text: string, now: number): void => {
    if (now - c.windowStart >= 10_000) {
      c.windowStart = now
      c.messages = 0
    }
    if (++c.messages > MAX_MESSAGES_PER_10S) return close(c, 1008, "too many messages")
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      return send(c, { type: "error", code: "bad_json", message: "Frames must be JSON text" })
    }
    const parsed = StreamClientMessage.safeParse(json)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      return send(c, { type: "error", code: "bad_message", message: `${issue?.message ?? "Invalid message"}${issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : ""}` })
    }
    const m = parsed.data
    if (m.type === "auth") return send(c, { type: "error", code: "already_authenticated", message: "The key is already known" })
    if (m.type === "ping") return send(c, { type: "pong", ...(m.id !== undefined ? { id: m.id } : {}), ts: now })
    if (m.type === "unsubscribe") {
      unsubscribe(c, m.topic)
      return send(c, { type: "unsubscribed", topic: m.topic })
    }
    unsubscribe(c, m.topic)
    const sub: Sub = { topic: m.topic === "alerts" ? alertsTopic(c.owner!.userId) : m.topic, match: m.topic === "trades" ? compileFilters(m.filters) : ALL }
    const relay = relayOf[m.topic]
    if (m.since_seq !== undefined && m.since_seq > relay.head("live")) {
      waiters.add({ conn: c, name: m.topic, sub, relay, since: m.since_seq, deadline: now + settings.resumeWaitMs })
      return
    }
    start(c, m.topic, sub, relay, m.since_seq, Math.min(m.backlog ?? 0, settings.maxBacklog), false)
  }

  /** Checks a key; then `welcome` (with the quota as it stands) and the queued messages, or a close. */
  const authenticate = (c: KConn, key: string) => {
    c.checking ??= { queue: [] }
    c.authing = true
    Runtime.runCallback(runtime)(keys.resolve(key).pipe(Effect.timeout(Duration.seconds(10)), Effect.option), {
      onExit: (exit) => {
        if (!c.open) return
        const owner = exit._tag === "Success" && exit.value._tag === "Some" ? exit.value.value : null
        if (owner === null) return close(c, STREAM_CLOSE.unauthorized, "invalid_api_key")
        if (!tierAtLeast(owner.tier, "whale")) return close(c, STREAM_CLOSE.tierRequired, "tier_required")
        const held = perAccount.get(owner.userId) ?? 0
        if (held >= config.streamMaxConnectionsPerAccount) return close(c, STREAM_CLOSE.tooManyConnections, "too_many_connections")
        perAccount.set(owner.userId, held + 1)
        const queue = c.checking?.queue ?? []
        c.checking = null
        c.owner = owner
        send(c, { type: "welcome", tier: owner.tier, topics: ["trades", "index", "alerts"], heartbeat_ms: config.streamHeartbeatMs, quota: { limit: quota.limit, counts: "one request per data frame" } })
        for (const text of queue) if (c.open) message(c, text, Date.now())
      }
    })
  }

  // ---- relays: one reader per source stream (as the console hub's) ----------------------------------------------
  const wakeGroup = bus.kind === "memory" ? `api-stream:${INSTANCE}` : null
  const relayLoop = (relay: Relay) => {
    const stream = relay.source.stream
    const waitForNews = wakeGroup === null
      ? Effect.sleep(Duration.millis(settings.pollMs))
      : bus.read({ stream, group: wakeGroup, consumer: "relay", count: BATCH, blockMs: settings.pollMs }).pipe(
          Effect.flatMap((entries) => bus.ack(stream, wakeGroup, entries.map((e) => e.id))))
    let ready = false
    const step = Effect.gen(function* () {
      if (!ready) {
        if (wakeGroup !== null) yield* bus.ensureGroup(stream, wakeGroup, "$")
        relay.init(yield* bus.tail(stream, relay.capacity + 1), Date.now())
        ready = true
      }
      const batch = yield* bus.rangeAfter(stream, relay.lastId, BATCH)
      relay.ingest(batch)
      advanced(relay, Date.now())
      if (batch.length < BATCH) yield* waitForNews
    }).pipe(Effect.catchAllCause((cause) => Effect.logWarning(`api stream relay of ${stream} failed; retrying in 1 s`, cause).pipe(Effect.zipRight(Effect.sleep(Duration.seconds(1))))))
    return Effect.forever(step).pipe(Effect.annotateLogs({ relay: stream, feed: "api-stream" }))
  }
  yield* Effect.forEach(relays.values(), (relay) => Effect.forkScoped(relayLoop(relay)), { discard: true })

  // Heartbeats (free): every connection, every STREAM_HEARTBEAT_MS.
  yield* Effect.forkScoped(Effect.forever(Effect.sleep(Duration.millis(config.streamHeartbeatMs)).pipe(Effect.zipRight(Effect.sync(() => {
    const frame = JSON.stringify({ type: "heartbeat", ts: Date.now() })
    for (const c of conns) if (c.open && c.owner !== null && c.ws) c.ws.send(frame)
  })))))

  yield* Effect.addFinalizer(() => Effect.sync(() => {
    for (const c of [...conns]) close(c, 1001, "server shutting down")
  }))

  const guarded = <A extends ReadonlyArray<unknown>>(name: string, f: (ws: uWS.WebSocket<KConn>, ...args: A) => void) =>
    (ws: uWS.WebSocket<KConn>, ...args: A) => {
      try {
        f(ws, ...args)
      } catch (e) {
        runFork(Effect.logError(`api stream ${name} handler threw`, e))
        close(ws.getUserData(), 1011, "internal error")
      }
    }

  const configure = (target: uWS.TemplatedApp) => {
    target.ws<KConn>(STREAM_PATH, {
      ...endpointOptions(settings, 16 * 1024),
      upgrade: (res, req, context) => {
        const presented = req.getHeader("x-api-key").trim() || undefined
        const conn: KConn = { ws: null, open: false, owner: null, checking: null, authing: false, presented, subs: new Map(), queue: [], windowStart: 0, messages: 0 }
        res.upgrade<KConn>(conn, req.getHeader("sec-websocket-key"), req.getHeader("sec-websocket-protocol"), req.getHeader("sec-websocket-extensions"), context)
      },
      open: guarded("open", (ws) => {
        const c = ws.getUserData()
        c.ws = ws
        c.open = true
        conns.add(c)
        gauge.set({}, conns.size)
        if (c.presented !== undefined) return authenticate(c, c.presented)
        c.checking = { queue: [] }
        setTimeout(() => {
          if (c.open && c.owner === null && !c.authing) close(c, STREAM_CLOSE.unauthorized, "no api key")
        }, config.streamAuthTimeoutMs)
      }),
      message: guarded("message", (ws, data: ArrayBuffer, isBinary: boolean) => {
        const c = ws.getUserData()
        const text = isBinary ? "\u0000" : Buffer.from(data).toString("utf8")
        if (c.owner !== null) return message(c, text, Date.now())
        if (!c.authing) {
          let json: unknown = null
          try {
            json = JSON.parse(text)
          } catch { /* refused below */ }
          const first = StreamClientMessage.safeParse(json)
          if (!first.success || first.data.type !== "auth") return close(c, STREAM_CLOSE.unauthorized, "first message must be auth")
          return authenticate(c, first.data.key)
        }
        if ((c.checking?.queue.length ?? 0) >= MAX_QUEUED_MESSAGES) return close(c, 1008, "too many messages")
        c.checking?.queue.push(text)
      }),
      drain: guarded("drain", (ws) => drain(ws.getUserData())),
      close: (ws, code) => {
        const c = ws.getUserData()
        c.open = false
        c.ws = null
        conns.delete(c)
        if (c.owner !== null) {
          const held = (perAccount.get(c.owner.userId) ?? 1) - 1
          if (held > 0) perAccount.set(c.owner.userId, held)
          else perAccount.delete(c.owner.userId)
        }
        for (const name of [...c.subs.keys()]) unsubscribe(c, name)
        for (const w of waiters) if (w.conn === c) waiters.delete(w)
        gauge.set({}, conns.size)
        closes.inc({ code })
      }
    })
  }

  return { configure, connections: () => conns.size } as const
})
