/**
 * A small pipelining HTTP/1.1 load generator (its own process, so it does not share the server's core).
 * argv: <url> <seconds> <connections> <pipeline depth> [header:value …]
 * Prints one JSON line: { requests, seconds, rps, errors, non2xx, closed, unanswered, p50_ms, p99_ms }: `closed`
 * counts connections the server closed before the end (uWS closes a connection on a deferred reply to a pipelined
 * request, with no error on the client's side), `unanswered` the requests still waiting at the end.
 */
import { connect } from "node:net"

const [url = "", secondsArg = "5", connArg = "32", depthArg = "8", ...headerArgs] = process.argv.slice(2)
const target = new URL(url)
const seconds = Number(secondsArg)
const connections = Number(connArg)
const depth = Number(depthArg)
const extra = headerArgs.map((h) => `${h}\r\n`).join("")
const request = Buffer.from(`GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\n${extra}\r\n`)

let done = 0
let errors = 0
let non2xx = 0
let closed = 0
let unanswered = 0
const pending = new Set<{ sentAt: Array<number> }>()
const latencies: Array<number> = []
const deadline = Date.now() + seconds * 1000

const open = () => {
  const socket = connect(Number(target.port), target.hostname)
  socket.setNoDelay(true)
  const sentAt: Array<number> = []
  const state = { sentAt }
  pending.add(state)
  let buffer = Buffer.alloc(0)
  const send = (n: number) => {
    if (Date.now() >= deadline) return
    const now = performance.now()
    for (let i = 0; i < n; i++) sentAt.push(now)
    socket.write(n === 1 ? request : Buffer.concat(Array(n).fill(request)))
  }
  socket.on("connect", () => send(depth))
  socket.on("data", (chunk) => {
    buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk
    let completed = 0
    while (true) {
      const headerEnd = buffer.indexOf("\r\n\r\n")
      if (headerEnd < 0) break
      const head = buffer.subarray(0, headerEnd).toString("latin1")
      const m = /content-length: *(\d+)/i.exec(head)
      const length = m ? Number(m[1]) : 0
      if (buffer.length < headerEnd + 4 + length) break
      const status = Number(head.slice(9, 12))
      if (status < 200 || status >= 300) non2xx++
      buffer = buffer.subarray(headerEnd + 4 + length)
      const t = sentAt.shift()
      if (t !== undefined && latencies.length < 2_000_000) latencies.push(performance.now() - t)
      done++
      completed++
    }
    if (completed > 0) send(completed)
  })
  socket.on("error", () => errors++)
  socket.on("close", () => {
    if (Date.now() < deadline) closed++
  })
}

const started = performance.now()
for (let i = 0; i < connections; i++) open()
const outstanding = () => [...pending].reduce((n, p) => n + p.sentAt.length, 0)
let counted = 0
let elapsed = 0
const report = () => {
  unanswered = outstanding()
  latencies.sort((a, b) => a - b)
  const pct = (p: number) => Math.round((latencies[Math.floor(latencies.length * p)] ?? 0) * 100) / 100
  process.stdout.write(JSON.stringify({ requests: counted, seconds: elapsed, rps: Math.round(counted / elapsed), errors, non2xx, closed, unanswered, p50_ms: pct(0.5), p99_ms: pct(0.99) }) + "\n")
  process.exit(0)
}
// After the deadline nothing new is sent; what is in flight gets up to 2 s to be answered before it counts as unanswered.
setTimeout(() => {
  counted = done
  elapsed = (performance.now() - started) / 1000
  const until = Date.now() + 2_000
  const check = () => (outstanding() === 0 || Date.now() >= until ? report() : setTimeout(check, 20))
  check()
}, seconds * 1000)
