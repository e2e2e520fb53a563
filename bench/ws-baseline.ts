/**
 * `npm run bench:ws`, the baseline: the same broadcast with the `ws` library — a WebSocketServer whose clients
 * subscribe with the same frame, and the idiomatic broadcast (serialise each message once, `send` it to every
 * subscriber). No compression, as on our side. argv: <port>
 */
import { WebSocketServer, type WebSocket } from "ws"
import { onCommands, paced, reply, rssAfterGc, trade } from "./ws-support"

const port = Number(process.argv[2])
const subscribers = new Set<WebSocket>()
const wss = new WebSocketServer({ port, host: "127.0.0.1", path: "/ws", perMessageDeflate: false, maxPayload: 4096 })
let seq = 0

wss.on("connection", (ws) => {
  ws.send(JSON.stringify({ type: "welcome", user: null, auth: "none" }))
  ws.on("message", (raw) => {
    const m = JSON.parse(raw.toString()) as { type?: string; topic?: string }
    if (m.type === "subscribe" && m.topic === "feed:trades") {
      subscribers.add(ws)
      ws.send(JSON.stringify({ type: "subscribed", topic: "feed:trades" }))
    }
  })
  ws.on("close", () => subscribers.delete(ws))
  ws.on("error", () => subscribers.delete(ws))
})

onCommands((c) => {
  if (c.op === "rss") return void rssAfterGc().then((rss) => reply({ rss }))
  void paced(c, (count) => {
    for (let i = 0; i < count; i++) {
      const { messageId: _id, ...data } = trade()
      const frame = JSON.stringify({ topic: "feed:trades", seq: ++seq, data })
      for (const ws of subscribers) ws.send(frame)
    }
  }).then((sent) => reply({ done: sent }))
})
wss.on("listening", () => reply({ ready: true }))
