/**
 * Bad WebSocket frames (issue 18 §3): binary, oversize, malformed, wrong-typed and flooding clients, seeded. Every
 * answer is a documented error frame or a documented close code; the server keeps serving other clients.
 */
import { afterAll, beforeAll, expect, it } from "vitest"
import WebSocket from "ws"
import { ErrorCode } from "../../schema/ws"
import { startApp, type TestApp } from "../support/harness"
import { QUIET_CHAIN } from "../support/whales"
import { openSocket, wsUrl } from "../support/ws"
import { BAD_VALUES, Rng } from "./generator"

const SEED = Number(process.env.FUZZ_SEED ?? 18)
const CLIENTS = Number(process.env.FUZZ_WS_CLIENTS ?? 40)
const MAX_PAYLOAD = 4_096
/** Close codes a misbehaving client may get: normal, going away, unsupported data, policy (rate), too big. */
const DOCUMENTED_CLOSES = new Set([1000, 1001, 1003, 1006, 1007, 1008, 1009])

let app: TestApp
beforeAll(async () => {
  app = await startApp({ env: { ...QUIET_CHAIN, WS_MAX_PAYLOAD_BYTES: String(MAX_PAYLOAD), WS_MAX_MESSAGES_PER_10S: "50", WS_MAX_CONNECTIONS_PER_IP: "1000" } })
})
afterAll(async () => {
  await app?.close()
})

const badFrame = (rng: Rng): string | Buffer => {
  switch (rng.int(9)) {
    case 0: return Buffer.from(Array.from({ length: 1 + rng.int(64) }, () => rng.int(256)))
    case 1: return "x".repeat(MAX_PAYLOAD + 1 + rng.int(10_000))
    case 2: return rng.pick(["{", "nul", "[]", "\u0000", '{"type":', "1e999", '"subscribe"', "{}"])
    case 3: return JSON.stringify({ type: "subscribe", topic: rng.pick(BAD_VALUES) })
    case 4: return JSON.stringify({ type: "subscribe", topic: rng.pick(["index", "feed:trades", "ops:actors", "user:1", "user:999999999999999", "user:-1", "x".repeat(65), "playbook:live"]), since_seq: rng.pick(BAD_VALUES), backlog: rng.pick(BAD_VALUES) })
    case 5: return JSON.stringify({ type: rng.pick(BAD_VALUES), topic: "index" })
    case 6: return JSON.stringify({ type: "ping", id: rng.pick(BAD_VALUES) })
    case 7: return "[".repeat(3_000) + "]".repeat(3_000)
    default: return JSON.stringify({ type: "unsubscribe", topic: rng.pick(BAD_VALUES), extra: rng.pick(BAD_VALUES) })
  }
}

interface Outcome { frames: Array<Record<string, unknown>>; close: number; binaryFrames: number }

const abuse = (rng: Rng, flood: boolean): Promise<Outcome> =>
  new Promise((resolve) => {
    const ws = new WebSocket(wsUrl(app))
    const out: Outcome = { frames: [], close: -1, binaryFrames: 0 }
    ws.on("message", (raw, isBinary) => {
      if (isBinary) out.binaryFrames++
      else out.frames.push(JSON.parse(raw.toString()))
    })
    ws.on("error", () => undefined)
    ws.on("close", (code) => {
      out.close = code
      resolve(out)
    })
    ws.on("open", () => {
      const n = flood ? 200 + rng.int(300) : 1 + rng.int(8)
      for (let i = 0; i < n && ws.readyState === WebSocket.OPEN; i++) ws.send(badFrame(rng))
      // A polite close after the burst; the server may have closed first.
      setTimeout(() => ws.readyState === WebSocket.OPEN && ws.close(1000), 300)
    })
  })

it(`survives ${CLIENTS} abusive WebSocket clients with documented answers only (seed ${SEED})`, async () => {
  const rng = new Rng(SEED)
  const outcomes: Array<Outcome> = []
  for (let batch = 0; batch < CLIENTS; batch += 8) {
    outcomes.push(...(await Promise.all(Array.from({ length: Math.min(8, CLIENTS - batch) }, (_, i) => abuse(new Rng(rng.int(2 ** 31)), (batch + i) % 5 === 0)))))
  }
  const closes: Record<number, number> = {}
  const errorCodes: Record<string, number> = {}
  const undocumented: Array<string> = []
  for (const o of outcomes) {
    closes[o.close] = (closes[o.close] ?? 0) + 1
    if (!DOCUMENTED_CLOSES.has(o.close)) undocumented.push(`close ${o.close}`)
    if (o.binaryFrames > 0) undocumented.push(`${o.binaryFrames} binary frames`)
    for (const f of o.frames) {
      if (f.type !== "error") continue
      errorCodes[String(f.code)] = (errorCodes[String(f.code)] ?? 0) + 1
      if (!ErrorCode.safeParse(f.code).success || f.code === "internal_error") undocumented.push(`error ${JSON.stringify(f)}`)
    }
  }
  console.log(`[fuzz ws] seed ${SEED} · ${outcomes.length} clients · closes ${JSON.stringify(closes)} · error frames ${JSON.stringify(errorCodes)} · undocumented ${undocumented.length}`)
  expect(undocumented).toEqual([])
  // The server still serves: health, and a polite client gets its welcome and its subscription.
  expect((await fetch(`${app.url}/healthz`)).status).toBe(200)
  const polite = await openSocket(app)
  await polite.waitFor((f) => f.type === "welcome")
  polite.send({ type: "subscribe", topic: "index" })
  await polite.waitFor((f) => f.type === "subscribed" && f.topic === "index")
  await polite.close()
}, 120_000)
