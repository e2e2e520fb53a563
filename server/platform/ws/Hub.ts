/**
 * The WebSocket hub at `/ws` (protocol: schema/ws.ts).
 *
 * Fan-out: one relay per source stream per process reads the bus (`tail` at start, then `rangeAfter` — on Redis
 * every `pollMs`, no consumer group to leak; on the in-process bus as soon as an entry is appended) and publishes
 * each entry once per audience through uWS pub/sub, so any number of `http` processes each serve their own clients
 * from the shared streams, with the same seq everywhere.
 *
 * Connections: authenticated in `upgrade` (see Credentials.ts; invalid or expired credentials connect anonymously
 * and the welcome frame says so), upgraded inside `cork`, limited per client address; explicit limits on payload,
 * idle time (the server pings), and backpressure (a slow client is closed, the others and the server go on).
 * Shutdown closes every connection with 1001 after HTTP has stopped listening.
 */
import { Duration, Effect, Runtime } from "effect"
import uWS from "uWebSockets.js"
import { INSTANCE } from "../Instance"
import { USER_TOPIC, WS_PATH, type WsUser } from "../../../schema/ws"
import { AppConfig } from "../Config"
import { clientAddressOf } from "../http/ClientAddress"
import { Bus } from "../infra/Bus"
import { Metrics } from "../ops/Metrics"
import { Principals } from "../http/Principals"
import { IpSlots, presented } from "./Credentials"
import { endpointOptions } from "./Endpoint"
import { Relay } from "./Relay"
import { Connections, encode, type Conn } from "./Connections"
import { PLATFORM_TOPICS, TopicTable, type TopicDef } from "./Topics"

export interface WsHub {
  /** Registers `/ws` on the uWS app (an `HttpServerOptions.configure` entry). */
  readonly configure: (app: uWS.TemplatedApp) => void
  readonly connections: () => number
  /** The relay of a source stream (tests and the ops routes read its state). */
  readonly relay: (stream: string) => Relay | undefined
}

/** Entries read per round trip. */
const BATCH = 1_000
/** State topics keep fewer entries: only the newest per key is ever sent. */
const STATE_HISTORY = 200

type Resolved = { readonly user: WsUser | null; readonly auth: Conn["auth"] }

/** A channel as a metric label: every `user:<id>` counts as `user` (/metrics must not list who gets events). */
const channelLabel = (channel: string) => (USER_TOPIC.test(channel) ? "user" : channel)

/** The hub, serving the platform's topics and those the modules register. */
export const makeWsHub = (topicDefs: ReadonlyArray<TopicDef>) => Effect.gen(function* () {
  const topics = new TopicTable([...PLATFORM_TOPICS, ...topicDefs])
  const config = yield* AppConfig
  const clientAddress = clientAddressOf(config.trustProxy)
  const settings = config.ws
  const principals = yield* Principals
  const bus = yield* Bus
  const metrics = yield* Metrics
  const runtime = yield* Effect.runtime<never>()
  const runCallback = (effect: Effect.Effect<Resolved>, onDone: (r: Resolved | null) => void) =>
    Runtime.runCallback(runtime)(effect.pipe(Effect.tapErrorCause((cause) => Effect.logWarning("ws upgrade: could not check credentials", cause))), {
      onExit: (exit) => onDone(exit._tag === "Success" ? exit.value : null)
    })
  const logError = (message: string, e: unknown) => void Runtime.runFork(runtime)(Effect.logError(message, e))

  const gauge = metrics.gauge("ws_connections", "Open WebSocket connections")
  const upgrades = metrics.counter("ws_upgrades_total", "WebSocket upgrade requests by outcome")
  const closes = metrics.counter("ws_closed_total", "WebSocket connections closed, by close code")
  const published = metrics.counter("ws_published_total", "Frames published to uWS pub/sub, by channel (user topics as `user`)")
  const errors = metrics.counter("ws_errors_total", "Error frames sent, by code")

  let app: uWS.TemplatedApp | undefined
  let stopping = false
  let nextId = 0
  const conns = new Set<Conn>()
  const slots = new IpSlots(settings.maxConnectionsPerIp)
  const relays = new Map(topics.sources.map((s) => [s.stream, new Relay(s, s.kind === "state" ? Math.min(STATE_HISTORY, settings.history) : settings.history, settings.anonDelayMs, (channel, frame) => {
    if (app && app.publish(channel, frame)) published.inc({ channel: channelLabel(channel) })
  })]))
  const protocol = new Connections(relays, topics, settings, (code) => errors.inc({ code }))

  // ---- fan-out: one reader per source stream --------------------------------------------------------------------
  const burstBytes = Math.max(16_384, settings.maxBackpressureBytes / 4)
  // With the in-process bus, a consumer group of this process wakes a relay as soon as an entry is appended; groups
  // in Redis would outlive the process, so there each relay reads every `pollMs`.
  const wakeGroup = bus.kind === "memory" ? `ws-relay:${INSTANCE}` : null
  const relayLoop = (relay: Relay) => {
    const stream = relay.source.stream
    const waitForNews = wakeGroup === null
      ? Effect.sleep(Duration.millis(settings.pollMs))
      : bus.read({ stream, group: wakeGroup, consumer: "relay", count: BATCH, blockMs: settings.pollMs }).pipe(
          Effect.flatMap((entries) => bus.ack(stream, wakeGroup, entries.map((e) => e.id)))
        )
    let ready = false
    const step = Effect.gen(function* () {
      if (!ready) {
        if (wakeGroup !== null) yield* bus.ensureGroup(stream, wakeGroup, "$")
        const newest = yield* bus.tail(stream, relay.capacity + 1)
        relay.init(newest, Date.now())
        ready = true
      }
      let batch = yield* bus.rangeAfter(stream, relay.lastId, BATCH)
      const full = batch.length === BATCH
      // Everything read is published now, a quarter of a client's backpressure limit at a time; between two
      // parts, a turn of the event loop lets uWS write what was published.
      while (batch.length > 0) {
        batch = batch.slice(relay.ingest(batch, burstBytes))
        if (batch.length > 0) yield* Effect.sleep(Duration.millis(1))
      }
      const now = Date.now()
      relay.tick(now)
      protocol.advanced(relay, now)
      if (!full) yield* waitForNews
    }).pipe(
      Effect.catchAllCause((cause) =>
        Effect.logWarning(`ws relay of ${stream} failed; retrying in 1 s`, cause).pipe(Effect.zipRight(Effect.sleep(Duration.seconds(1))))
      )
    )
    return Effect.forever(step).pipe(Effect.annotateLogs({ relay: stream }))
  }
  yield* Effect.forEach(relays.values(), (relay) => Effect.forkScoped(relayLoop(relay)), { discard: true })

  // ---- connections ---------------------------------------------------------------------------------------------
  const resolve = (token: string): Effect.Effect<Resolved> =>
    principals.resolveToken(token).pipe(
      Effect.map((u): Resolved => ({ user: { id: u.id, tier: u.tier, admin: u.admin }, auth: "ok" })),
      Effect.catchAll((e) => Effect.succeed<Resolved>({ user: null, auth: e._tag === "Unauthorized" && e.code === "token_expired" ? "expired" : "invalid" })),
      Effect.timeout(Duration.seconds(10)),
      Effect.orDie
    )

  const refuse = (res: uWS.HttpResponse, status: string, body: string, outcome: string) => {
    upgrades.inc({ result: outcome })
    res.cork(() => res.writeStatus(status).writeHeader("content-type", "text/plain; charset=utf-8").end(body, true))
  }

  const upgrade = (res: uWS.HttpResponse, req: uWS.HttpRequest, context: uWS.us_socket_context_t) => {
    // Everything needed from `req`, copied before anything asynchronous.
    const key = req.getHeader("sec-websocket-key")
    const extensions = req.getHeader("sec-websocket-extensions")
    const credentials = presented({
      host: req.getHeader("host"), origin: req.getHeader("origin"), cookie: req.getHeader("cookie"),
      authorization: req.getHeader("authorization"), protocols: req.getHeader("sec-websocket-protocol"), query: req.getQuery() ?? ""
    }, config.publicBaseUrl)
    const ip = clientAddress.of(Buffer.from(res.getRemoteAddressAsText()).toString("latin1"), clientAddress.usesHeader ? req.getHeader("x-forwarded-for") : "")
    if (stopping) return refuse(res, "503 Service Unavailable", "Shutting down", "stopping")
    if (!slots.take(ip)) return refuse(res, "429 Too Many Requests", `At most ${settings.maxConnectionsPerIp} connections per address`, "ip_cap")
    let released = false
    const release = () => {
      if (released) return
      released = true
      slots.release(ip)
    }
    // Always upgraded at once, inside uWS's own upgrade callback. An upgrade made later (after an asynchronous
    // credential check) had to run in `res.cork`, and this uWS build (v20.4x) then closed the new WebSocket now and
    // again (1006, right after its open handler): the session token is checked after `open` instead (`welcome`
    // waits for it, and client messages are queued until then).
    // An anonymous upgrade is counted here; one presenting a token once its check decides (`checkCredentials`).
    if (credentials.token === undefined) upgrades.inc({ result: "anonymous" })
    const conn: Conn = {
      id: ++nextId, ip, user: null, auth: "none", topics: new Map(), ws: null, open: false, windowStart: 0, messages: 0, release,
      checking: credentials.token === undefined ? null : { token: credentials.token, queue: [] }
    }
    res.upgrade<Conn>(conn, key, credentials.protocol, extensions, context)
  }

  /** Sends `welcome`; then the messages that waited for the credential check, in order. */
  const welcome = (ws: uWS.WebSocket<Conn>, conn: Conn) => {
    ws.cork(() => ws.send(encode({
      type: "welcome", user: conn.user, auth: conn.auth, anon_delay_ms: settings.anonDelayMs,
      limits: { max_payload_bytes: settings.maxPayloadBytes, max_subscriptions: settings.maxSubscriptions, max_backlog: settings.maxBacklog, idle_timeout_seconds: settings.idleTimeoutSeconds }
    })))
  }
  const MAX_QUEUED = 32
  const checkCredentials = (ws: uWS.WebSocket<Conn>, conn: Conn, token: string) =>
    runCallback(resolve(token), (resolved) => {
      if (!conn.open) return upgrades.inc({ result: "closed_before_check" })
      const queue = conn.checking?.queue ?? []
      conn.checking = null
      if (resolved === null) {
        upgrades.inc({ result: "auth_unavailable" })
        return ws.end(1011, "could not check credentials")
      }
      conn.user = resolved.user
      conn.auth = resolved.auth
      upgrades.inc({ result: resolved.auth === "ok" ? "user" : `anonymous_${resolved.auth}` })
      welcome(ws, conn)
      for (const text of queue) {
        if (!conn.open) return
        if (!protocol.message(conn, text, Date.now())) return ws.end(1008, "too many messages")
      }
    })

  const guarded = <A extends ReadonlyArray<unknown>>(name: string, f: (ws: uWS.WebSocket<Conn>, ...args: A) => void) =>
    (ws: uWS.WebSocket<Conn>, ...args: A) => {
      try {
        f(ws, ...args)
      } catch (e) {
        // Never let an exception escape into the native callback.
        logError(`ws ${name} handler threw`, e)
        if (ws.getUserData().open) ws.end(1011, "internal error")
      }
    }

  const configure = (target: uWS.TemplatedApp) => {
    app = target
    target.ws<Conn>(WS_PATH, {
      ...endpointOptions(settings, settings.maxPayloadBytes),
      upgrade: (res, req, context) => {
        try {
          upgrade(res, req, context)
        } catch (e) {
          logError("ws upgrade handler threw", e)
          refuse(res, "500 Internal Server Error", "Internal server error", "error")
        }
      },
      open: guarded("open", (ws) => {
        const conn = ws.getUserData()
        conn.ws = ws
        conn.open = true
        conns.add(conn)
        gauge.set({}, conns.size)
        if (conn.checking === null) welcome(ws, conn)
        else checkCredentials(ws, conn, conn.checking.token)
      }),
      message: guarded("message", (ws, message: ArrayBuffer, isBinary: boolean) => {
        const conn = ws.getUserData()
        const text = isBinary ? "\u0000binary" : Buffer.from(message).toString("utf8")
        if (conn.checking !== null) {
          if (conn.checking.queue.length >= MAX_QUEUED) return ws.end(1008, "too many messages")
          conn.checking.queue.push(text)
          return
        }
        if (!protocol.message(conn, text, Date.now())) ws.end(1008, "too many messages")
      }),
      close: (ws, code) => {
        try {
          const conn = ws.getUserData()
          conn.open = false
          conn.ws = null
          conn.release()
          conns.delete(conn)
          protocol.closed(conn)
          gauge.set({}, conns.size)
          closes.inc({ code })
        } catch (e) {
          logError("ws close handler threw", e)
        }
      }
    })
  }

  // Runs after HTTP's own finalizer (registered later, released earlier): no new upgrades, then close the rest.
  yield* Effect.addFinalizer(() =>
    Effect.sync(() => {
      stopping = true
      for (const conn of [...conns]) if (conn.open) conn.ws?.end(1001, "server shutting down")
    })
  )

  return {
    configure,
    connections: () => conns.size,
    relay: (stream: string) => relays.get(stream)
  } satisfies WsHub
})
