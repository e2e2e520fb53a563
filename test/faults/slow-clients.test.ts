/**
 * Slow and abusive HTTP clients (issue 18 §4): a slowloris trickling headers, one trickling a body, a request line
 * the parser cannot read, hundreds of idle connections. Each is bounded: the server drops the connection within
 * its timeout (uWS closes an HTTP connection idle for 10 s; a body must arrive within BODY_TIMEOUT_MS), and serves
 * everyone else meanwhile. Figures: how long each bad connection was kept.
 */
import { connect, type Socket } from "node:net"
import { afterAll, beforeAll, expect, it } from "vitest"
import { startApp, type TestApp } from "../support/harness"
import { QUIET_CHAIN } from "../support/whales"

const BODY_TIMEOUT_MS = 3_000
/** uWS's own idle timeout for HTTP connections (not configurable): 10 s, checked every 4 s. */
const UWS_IDLE_BOUND_MS = 16_000

let app: TestApp
beforeAll(async () => {
  app = await startApp({ env: { ...QUIET_CHAIN, BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS) } })
})
afterAll(async () => {
  await app?.close()
})

/** Opens a connection, runs `feed` on it, and resolves with how long the server kept it open and what it said. */
const held = (feed: (s: Socket) => void, giveUpMs = 30_000) =>
  new Promise<{ ms: number; said: string }>((resolve) => {
    const t0 = Date.now()
    const s = connect({ host: "127.0.0.1", port: app.port })
    let said = ""
    const timers: Array<NodeJS.Timeout> = []
    const done = () => {
      for (const t of timers) clearInterval(t)
      resolve({ ms: Date.now() - t0, said: said.split("\r\n")[0] ?? "" })
    }
    s.on("data", (d) => (said += d.toString("latin1")))
    s.on("error", () => undefined)
    s.on("close", done)
    s.on("connect", () => feed(s))
    timers.push(setTimeout(() => s.destroy(), giveUpMs))
    ;(s as Socket & { timers?: Array<NodeJS.Timeout> }).timers = timers
  })

const trickle = (s: Socket, text: string, everyMs: number) => {
  let i = 0
  const t = setInterval(() => {
    if (s.destroyed) return clearInterval(t)
    s.write(text[i % text.length]!)
    i++
  }, everyMs)
  s.once("close", () => clearInterval(t))
}

// Independent of the database: runs once, in the run against PostgreSQL and Redis (not again in test:embedded).
it.skipIf(Boolean(process.env.WHALE_TEST_EMBEDDED))("drops a slowloris (headers one byte at a time), a trickled body, a malformed request line and idle connections within bounds, serving others meanwhile", async () => {
  const idle = Array.from({ length: 200 }, () => held(() => undefined))
  const slowHeaders = held((s) => {
    s.write("GET /healthz HTTP/1.1\r\nHost: x\r\n")
    trickle(s, "X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 500)
  })
  const slowBody = held((s) => {
    s.write("POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
    trickle(s, "a", 500)
  })
  const badLine = held((s) => s.write(Buffer.concat([Buffer.from("GET /healthz"), Buffer.from([0xff, 0x00]), Buffer.from(" HTTP/1.1\r\nHost: x\r\n\r\n")])))

  // Everyone else is served meanwhile.
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`${app.url}/healthz`)
    expect(res.status).toBe(200)
    await new Promise((r) => setTimeout(r, 200))
  }
  const [h, b, l] = await Promise.all([slowHeaders, slowBody, badLine])
  const idles = await Promise.all(idle)
  const idleMax = Math.max(...idles.map((x) => x.ms))
  console.log(`[fault slow-clients] slowloris headers dropped after ${h.ms} ms (${h.said || "no answer"}) · trickled body after ${b.ms} ms (${b.said || "no answer"}) · ` +
    `malformed request line after ${l.ms} ms (${l.said || "no answer"}) · 200 idle connections, longest kept ${idleMax} ms`)
  expect(h.ms).toBeLessThan(UWS_IDLE_BOUND_MS)
  expect(b.ms).toBeLessThan(BODY_TIMEOUT_MS + 2_000)
  expect(b.said).toMatch(/^HTTP\/1\.1 408/)
  expect(l.ms).toBeLessThan(UWS_IDLE_BOUND_MS)
  expect(idleMax).toBeLessThan(UWS_IDLE_BOUND_MS)
}, 60_000)
