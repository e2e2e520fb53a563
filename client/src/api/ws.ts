/**
 * The console's WebSocket client (protocol: schema/ws.ts). It reconnects with capped exponential back-off and
 * jitter, resumes every topic from the last seq it has (the server replays what was missed, without gaps or
 * duplicates; a `truncated` resume tells the topic to reload), drops any frame at or below that seq, and sends a
 * `ping` every 15 s: no answer within 10 s means the connection is dead, and it is replaced. Several handlers may
 * follow one topic (the pages sharing `user:<id>`, each for its kind): one subscription, every frame to each; the
 * topic is left when the last one stops (a handler that joins later gets no backlog, only what comes next).
 */
import { ControlFrame, DataFrame, type ErrorFrame, type SubscribedFrame, type WelcomeFrame } from "../../../schema/ws"

export type ConnectionStatus = "connecting" | "live" | "reconnecting"

export interface TopicHandler {
  readonly onData: (data: unknown, seq: number) => void
  /** After every (re)subscription: `truncated` means messages were missed for good; reload a snapshot. */
  readonly onSubscribed?: (frame: SubscribedFrame, resumed: boolean) => void
  readonly onError?: (frame: ErrorFrame) => void
  /** Messages to start with on the first subscription (log topics). */
  readonly backlog?: number
}

export interface WsClientOptions {
  readonly url: string
  readonly onStatus: (status: ConnectionStatus, attempt: number) => void
  readonly onWelcome: (frame: WelcomeFrame) => void
}

const PING_EVERY_MS = 15_000
const PONG_WITHIN_MS = 10_000
const MAX_BACKOFF_MS = 15_000

interface Subscription {
  readonly handlers: Set<TopicHandler>
  lastSeq: number | undefined
}

export const createWsClient = (options: WsClientOptions) => {
  const subs = new Map<string, Subscription>()
  let ws: WebSocket | null = null
  let attempt = 0
  let retry: ReturnType<typeof setTimeout> | undefined
  let heartbeat: ReturnType<typeof setInterval> | undefined
  let awaitingPong: ReturnType<typeof setTimeout> | undefined
  let stopped = false

  const send = (message: unknown) => {
    if (ws?.readyState === WebSocket.OPEN) ws.send(JSON.stringify(message))
  }

  const backlogOf = (s: Subscription) => {
    const backlog = Math.max(0, ...[...s.handlers].map((h) => h.backlog ?? 0))
    return backlog > 0 ? { backlog } : {}
  }
  const subscribeFrame = (topic: string, s: Subscription) =>
    s.lastSeq !== undefined
      ? { type: "subscribe", topic, since_seq: s.lastSeq }
      : { type: "subscribe", topic, ...backlogOf(s) }

  const onFrame = (raw: string) => {
    let json: unknown
    try {
      json = JSON.parse(raw)
    } catch {
      return
    }
    if (typeof json === "object" && json !== null && "type" in json) {
      const control = ControlFrame.safeParse(json)
      if (!control.success) return
      const f = control.data
      if (f.type === "pong") clearTimeout(awaitingPong)
      else if (f.type === "welcome") {
        attempt = 0
        options.onStatus("live", 0)
        options.onWelcome(f)
        for (const [topic, s] of subs) send(subscribeFrame(topic, s))
      } else if (f.type === "subscribed") {
        const s = subs.get(f.topic)
        if (s) for (const h of [...s.handlers]) h.onSubscribed?.(f, s.lastSeq !== undefined)
      } else if (f.type === "error" && f.topic) for (const h of [...(subs.get(f.topic)?.handlers ?? [])]) h.onError?.(f)
      return
    }
    const data = DataFrame.safeParse(json)
    if (!data.success) return
    const s = subs.get(data.data.topic)
    if (!s || (s.lastSeq !== undefined && data.data.seq <= s.lastSeq)) return
    s.lastSeq = data.data.seq
    for (const h of [...s.handlers]) h.onData(data.data.data, data.data.seq)
  }

  const stopTimers = () => {
    clearInterval(heartbeat)
    clearTimeout(awaitingPong)
  }

  const connect = () => {
    clearTimeout(retry)
    if (stopped) return
    options.onStatus(attempt === 0 ? "connecting" : "reconnecting", attempt)
    const socket = new WebSocket(options.url, ["whale.v1"])
    ws = socket
    socket.onmessage = (e) => {
      if (ws === socket) onFrame(typeof e.data === "string" ? e.data : "")
    }
    socket.onopen = () => {
      heartbeat = setInterval(() => {
        send({ type: "ping" })
        clearTimeout(awaitingPong)
        awaitingPong = setTimeout(() => socket.close(4000, "no pong"), PONG_WITHIN_MS)
      }, PING_EVERY_MS)
    }
    socket.onclose = () => {
      if (ws !== socket) return
      stopTimers()
      ws = null
      if (stopped) return
      attempt++
      options.onStatus("reconnecting", attempt)
      const backoff = Math.min(MAX_BACKOFF_MS, 500 * 2 ** Math.min(attempt - 1, 5))
      retry = setTimeout(connect, backoff / 2 + Math.random() * (backoff / 2))
    }
  }

  /** Replace the connection now (after signing in or out: the identity is fixed at the upgrade). */
  const reconnect = () => {
    const old = ws
    ws = null
    stopTimers()
    old?.close(1000, "reconnect")
    attempt = 0
    connect()
  }

  // Back online: reconnect at once instead of waiting for the back-off.
  const online = () => {
    if (ws === null && !stopped) reconnect()
  }
  window.addEventListener("online", online)

  return {
    start: connect,
    reconnect,
    /** Follow a topic until the returned function is called (beside any other handler of the topic). */
    subscribe: (topic: string, handler: TopicHandler) => {
      // A handler object of its own: the same one given twice is two followers.
      const own: TopicHandler = { ...handler }
      let s = subs.get(topic)
      if (s) s.handlers.add(own)
      else {
        s = { handlers: new Set([own]), lastSeq: undefined }
        subs.set(topic, s)
        send(subscribeFrame(topic, s))
      }
      const mine = s
      return () => {
        if (!mine.handlers.delete(own) || mine.handlers.size > 0 || subs.get(topic) !== mine) return
        subs.delete(topic)
        send({ type: "unsubscribe", topic })
      }
    },
    stop: () => {
      stopped = true
      window.removeEventListener("online", online)
      stopTimers()
      ws?.close(1000, "bye")
    }
  }
}

export type WsClient = ReturnType<typeof createWsClient>
