/**
 * The hub's limits: a slow consumer is closed while the others keep receiving everything, connections per client
 * address are capped at the upgrade, oversized and too frequent client frames close the connection, an idle client
 * is pinged and kept while it answers, closed when it does not, and shutdown closes every connection with 1001.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { seqOfId } from "../../schema/ws"
import { createUser, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { chainTx, openSocket, publishTrades, type TestSocket } from "../support/ws"

const PER_IP = 6
let app: TestApp
let auth: Record<string, string>
beforeAll(async () => {
  app = await startApp({
    env: {
      WHALE_ROLES: "http", WS_POLL_MS: "20", WS_MAX_CONNECTIONS_PER_IP: String(PER_IP), WS_MAX_BACKPRESSURE_BYTES: "262144",
      WS_MAX_PAYLOAD_BYTES: "1024", WS_MAX_MESSAGES_PER_10S: "20", WS_HISTORY: "100", WS_IDLE_TIMEOUT_SECONDS: "8"
    }
  })
  await createUser(app, { email: "fast@example.com" })
  auth = { authorization: `Bearer ${(await login(app, "fast@example.com")).token}` }
})
afterAll(async () => {
  await app?.close()
})

const metric = async (line: RegExp) => {
  const text = await (await fetch(`${app.metricsUrl}/metrics`)).text()
  return Number(line.exec(text)?.[1] ?? "0")
}
const subscribed = async (s: TestSocket, topic: string) => {
  s.send({ type: "subscribe", topic })
  await s.waitFor((f) => f.type === "subscribed" && f.topic === topic)
}

describe("backpressure", () => {
  it("closes a client that does not read, without slowing the others", async () => {
    const slow = await openSocket(app, { headers: auth })
    const healthy = await openSocket(app, { headers: auth })
    await subscribed(slow, "feed:trades")
    await subscribed(healthy, "feed:trades")
    // The slow client stops reading: kernel buffers fill (several MB on loopback), then the server's queue for
    // it passes 256 kB. Trades of ~650 bytes, as the feed carries them.
    ;(slow.ws as unknown as { _socket: { pause: () => void } })._socket.pause()
    const total = 30_000
    const ids: Array<string> = []
    const started = Date.now()
    for (let i = 0; i < total; i += 1_000) {
      ids.push(...(await publishTrades(app, Array.from({ length: 1_000 }, (_, k) => chainTx(i + k)))))
    }
    console.info(`published ${total} in ${((Date.now() - started) / 1000).toFixed(1)} s`)
    const last = seqOfId(ids.at(-1)!)
    await healthy.waitFor((f) => f.seq === last, 60_000)
    const seconds = (Date.now() - started) / 1000
    expect(healthy.data("feed:trades")).toHaveLength(total)
    await waitFor(async () => (await metric(/^ws_connections (\d+)/m)) === 1, 10_000)
    expect(await metric(/^ws_closed_total\{code="(?:\d+)"\} (\d+)/m)).toBeGreaterThanOrEqual(1)
    ;(slow.ws as unknown as { _socket: { resume: () => void } })._socket.resume()
    await slow.closed
    expect(slow.data("feed:trades").length).toBeLessThan(total)
    console.info(`healthy client received ${total} trades in ${seconds.toFixed(1)} s while the slow one was closed`)
    await healthy.close()
  }, 120_000)
})

describe("connection limits", () => {
  it("refuses upgrades beyond the per-address cap with 429, and frees the slot on close", async () => {
    const open = await Promise.all(Array.from({ length: PER_IP }, () => openSocket(app)))
    await expect(openSocket(app)).rejects.toThrow(/429/)
    await open[0]!.close()
    const again = await openSocket(app)
    expect((await again.waitFor((f) => f.type === "welcome")).type).toBe("welcome")
    await Promise.all([again, ...open.slice(1)].map((s) => s.close()))
  })

  it("closes a connection that sends a frame over the payload limit", async () => {
    const s = await openSocket(app)
    await s.waitFor((f) => f.type === "welcome")
    s.send({ type: "ping", id: "x".repeat(2_000) })
    // uWS drops the connection without a close frame: the client sees 1006.
    expect([1006, 1009]).toContain((await s.closed).code)
    expect(s.frames.some((f) => f.type === "pong")).toBe(false)
  })

  it("answers too many messages with rate_limited, then closes at twice the limit (1008)", async () => {
    const s = await openSocket(app)
    for (let i = 0; i < 25; i++) s.send({ type: "ping", id: String(i) })
    await s.waitFor((f) => f.type === "error" && f.code === "rate_limited")
    for (let i = 0; i < 20; i++) s.send({ type: "ping" })
    expect((await s.closed).code).toBe(1008)
  })
})

describe("idle connections", () => {
  it("pings an idle client: one that answers stays, one that does not is closed", async () => {
    const answering = await openSocket(app)
    const silent = await openSocket(app, { autoPong: false })
    let pings = 0
    answering.ws.on("ping", () => pings++)
    await silent.closed
    // Another idle period: the answering client is still there.
    await new Promise((r) => setTimeout(r, 10_000))
    expect(pings).toBeGreaterThanOrEqual(2)
    expect(answering.isClosed()).toBe(false)
    await answering.close()
  }, 60_000)
})

describe("shutdown", () => {
  it("closes every connection with 1001 (going away)", async () => {
    const s = await openSocket(app)
    await s.waitFor((f) => f.type === "welcome")
    await app.close()
    expect((await s.closed).code).toBe(1001)
  })
})
