/**
 * `npm run bench:ws`, the clients: N WebSocket connections in one process on raw TCP (a minimal client: handshake,
 * one masked subscribe frame, then frames are counted by their headers, so the client costs little per message).
 * Every SAMPLE_EVERY-th connection reads each data frame's `ts` to measure delivery time.
 * argv: <host> <port> <connections>. stdin: `keep <n>` (close all but n), `start` / `stop`, `exit`.
 * stdout: `BENCH <json>` lines.
 */
import { randomBytes } from "node:crypto"
import { connect, type Socket } from "node:net"
import { createInterface } from "node:readline"
import { reply } from "./ws-support"

const [host = "127.0.0.1", portArg = "0", countArg = "100"] = process.argv.slice(2)
const port = Number(portArg)
const count = Number(countArg)
const SAMPLE_EVERY = 10
const TS = Buffer.from('"ts":"')

let frames = 0
let closed = 0
let measuring = false
let startedAt = 0
let lastFrameAt = 0
const delays: Array<number> = []
/** Connections this process closed itself (not counted as closed by the server). */
const dropped = new WeakSet<Socket>()

/** A masked client frame (RFC 6455 §5.3). */
const clientFrame = (opcode: number, payload: Buffer) => {
  const mask = randomBytes(4)
  const head = payload.length < 126 ? Buffer.from([0x80 | opcode, 0x80 | payload.length]) : Buffer.from([0x80 | opcode, 0x80 | 126, payload.length >> 8, payload.length & 0xff])
  const body = Buffer.from(payload)
  for (let i = 0; i < body.length; i++) body[i]! ^= mask[i % 4]!
  return Buffer.concat([head, mask, body])
}
const SUBSCRIBE = Buffer.from(JSON.stringify({ type: "subscribe", topic: "feed:trades" }))

const sampleDelay = (buf: Buffer, start: number, end: number) => {
  const at = buf.indexOf(TS, start)
  if (at < 0 || at >= end) return
  const t = Date.parse(buf.toString("latin1", at + TS.length, at + TS.length + 24))
  if (Number.isFinite(t) && delays.length < 500_000) delays.push(Date.now() - t)
}

const open = (index: number) =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect(port, host)
    socket.setNoDelay(true)
    const sample = index % SAMPLE_EVERY === 0
    let upgraded = false
    let welcomed = false
    let buf: Buffer = Buffer.alloc(0)
    socket.on("connect", () => {
      socket.write(`GET /ws HTTP/1.1\r\nHost: ${host}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`)
    })
    socket.on("error", reject)
    socket.on("close", () => {
      if (upgraded && !dropped.has(socket)) closed++
    })
    socket.on("data", (chunk: Buffer) => {
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk])
      if (!upgraded) {
        const end = buf.indexOf("\r\n\r\n")
        if (end < 0) return
        if (!buf.toString("latin1", 0, 16).includes(" 101")) return reject(new Error(buf.toString("latin1", 0, end)))
        upgraded = true
        buf = buf.subarray(end + 4)
        socket.write(clientFrame(1, SUBSCRIBE))
      }
      let off = 0
      while (buf.length - off >= 2) {
        const b0 = buf[off]!
        let len = buf[off + 1]! & 0x7f
        let h = 2
        if (len === 126) {
          if (buf.length - off < 4) break
          len = buf.readUInt16BE(off + 2)
          h = 4
        } else if (len === 127) {
          if (buf.length - off < 10) break
          len = Number(buf.readBigUInt64BE(off + 2))
          h = 10
        }
        if (buf.length - off < h + len) break
        const opcode = b0 & 0x0f
        const start = off + h
        if (opcode === 1) {
          // Data frames start with {"topic"; control frames with {"type".
          if (buf[start + 3] === 0x6f) {
            if (measuring) {
              frames++
              lastFrameAt = performance.now()
              if (sample) sampleDelay(buf, start, start + len)
            }
          } else if (!welcomed && buf.indexOf("subscribed", start) >= 0 && buf.indexOf("subscribed", start) < start + len) {
            welcomed = true
            resolve(socket)
          }
        } else if (opcode === 9) socket.write(clientFrame(10, buf.subarray(start, start + len)))
        off = start + len
      }
      buf = off >= buf.length ? Buffer.alloc(0) : buf.subarray(off)
    })
  })

const sockets: Array<Socket> = []
const percentile = (sorted: ReadonlyArray<number>, p: number) => (sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!)

for (let i = 0; i < count; i += 200) {
  sockets.push(...(await Promise.all(Array.from({ length: Math.min(200, count - i) }, (_, k) => open(i + k)))))
}
reply({ connected: sockets.length })

createInterface({ input: process.stdin }).on("line", (line) => {
  if (line.startsWith("keep ")) {
    const keep = Number(line.slice(5))
    for (const s of sockets.splice(keep)) {
      dropped.add(s)
      s.destroy()
    }
    reply({ kept: sockets.length })
  } else if (line.trim() === "start") {
    frames = 0
    delays.length = 0
    measuring = true
    startedAt = lastFrameAt = performance.now()
    reply({ started: true })
  } else if (line.trim() === "stop") {
    // The server has handed out the step's messages: wait until they have all arrived (500 ms without a frame).
    const settled = () => {
      if (performance.now() - lastFrameAt < 500 && performance.now() - startedAt < 60_000) return void setTimeout(settled, 100)
      measuring = false
      const sorted = [...delays].sort((a, b) => a - b)
      const seconds = (lastFrameAt - startedAt) / 1000
      reply({ frames, seconds, closed, samples: sorted.length, p50: percentile(sorted, 0.5), p95: percentile(sorted, 0.95), p99: percentile(sorted, 0.99) })
    }
    settled()
  } else if (line.trim() === "exit") {
    for (const s of sockets) s.destroy()
    process.exit(0)
  }
})
