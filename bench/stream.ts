/**
 * `npm run bench:stream`: BENCH_STREAM_CLIENTS (1,000) keyed WebSocket clients on `/api/v1/stream` (keys of
 * BENCH_STREAM_ACCOUNTS accounts; a quarter with no filter, a quarter `tokens: [WETH]`, a quarter `min_usd: 50000`,
 * a quarter `side: buy`), then the same number of console hub clients on `/ws` (`feed:trades`), in one run. Each
 * gets worst-case blocks: BENCH_STREAM_BLOCK (500) trades appended to `chain.tx` at once, BENCH_STREAM_BLOCKS (3)
 * times. Per block: frames delivered per second (all clients, from append to the last arrival) and the p95 time from
 * the block stored (appended) to a frame's arrival. The clients run in this process beside the server (the figures
 * include their cost, for both feeds alike). Prints, never asserts.
 */
import { Effect } from "effect"
import { loadavg } from "node:os"
import WebSocket from "ws"
import { STREAMS } from "../schema/streams"
import { Bus } from "../server/platform/infra/Bus"
import { startBenchApp } from "./live-support"
import { trade } from "./ws-support"

const CLIENTS = Number(process.env.BENCH_STREAM_CLIENTS ?? 1_000)
const ACCOUNTS = Number(process.env.BENCH_STREAM_ACCOUNTS ?? 10)
const BLOCK = Number(process.env.BENCH_STREAM_BLOCK ?? 500)
const BLOCKS = Number(process.env.BENCH_STREAM_BLOCKS ?? 3)
const WETH = "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"

const app = await startBenchApp("stream", { WS_MAX_CONNECTIONS_PER_IP: String(CLIENTS * 2), STREAM_MAX_QUEUE: "100000", WS_MAX_BACKPRESSURE_BYTES: "16777216" })
const keys = await Promise.all(Array.from({ length: ACCOUNTS }, () => app.whaleKey()))

interface Client { readonly ws: WebSocket; arrivals: Array<number>; expected: number }
const open = (url: string, headers: Record<string, string>, subscribe: unknown, isData: (m: any) => boolean) =>
  new Promise<Client>((resolve, reject) => {
    const ws = new WebSocket(url, { headers })
    const c: Client = { ws, arrivals: [], expected: 0 }
    ws.on("error", reject)
    ws.on("message", (raw) => {
      const m = JSON.parse(raw.toString())
      if (m.type === "welcome") ws.send(JSON.stringify(subscribe))
      else if (m.type === "subscribed") resolve(c)
      else if (isData(m)) c.arrivals.push(performance.now())
    })
  })

const filters = (i: number) => [undefined, { tokens: [WETH] }, { min_usd: 50_000 }, { side: "buy" }][i % 4]
const blockOf = () => Array.from({ length: BLOCK }, (_, i) => ({ ...trade(), ...(i % 2 === 0 ? { token: WETH, symbol: "WETH" } : { token: "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984", symbol: "UNI" }), usd: (i * 997) % 100_000, category: i % 3 === 0 ? "dex_sell" as const : "dex_buy" as const }))
const matches = (f: ReturnType<typeof filters>, t: ReturnType<typeof blockOf>[number]) =>
  f === undefined || ("tokens" in f ? t.token === WETH : "min_usd" in f ? (t.usd ?? 0) >= (f.min_usd ?? 0) : t.category === "dex_buy")

const run = async (name: string, clients: ReadonlyArray<Client>, expectOf: (i: number, block: ReturnType<typeof blockOf>) => number) => {
  const results: Array<{ delivered: number; perSec: number; p95: number; missing: number }> = []
  for (let b = 0; b < BLOCKS; b++) {
    const block = blockOf()
    clients.forEach((c, i) => {
      c.arrivals = []
      c.expected = expectOf(i, block)
    })
    const total = clients.reduce((n, c) => n + c.expected, 0)
    const t0 = performance.now()
    await app.runtime.runPromise(Effect.flatMap(Bus, (bus) => bus.publishMany(STREAMS.chainTx, block)))
    const deadline = Date.now() + 60_000
    while (clients.some((c) => c.arrivals.length < c.expected) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5))
    const all = clients.flatMap((c) => c.arrivals.map((t) => t - t0)).sort((a, b) => a - b)
    const last = all[all.length - 1] ?? 0
    results.push({ delivered: all.length, perSec: Math.round(all.length / (last / 1000)), p95: all[Math.floor(all.length * 0.95)] ?? Number.NaN, missing: total - all.length })
    await new Promise((r) => setTimeout(r, 500))
  }
  const mid = [...results].sort((a, b) => a.perSec - b.perSec)[Math.floor(results.length / 2)]!
  console.log(`${name.padEnd(40)} ${String(mid.delivered).padStart(7)} frames/block  ${String(mid.perSec).padStart(8)} delivered/s  p95 ${mid.p95.toFixed(0).padStart(5)} ms  missing ${mid.missing}`)
  return mid
}

const streamUrl = `ws://127.0.0.1:${app.port}/api/v1/stream`
const keyed: Array<Client> = []
for (let i = 0; i < CLIENTS; i += 50) {
  keyed.push(...await Promise.all(Array.from({ length: Math.min(50, CLIENTS - i) }, (_, j) =>
    open(streamUrl, { "x-api-key": keys[(i + j) % ACCOUNTS]!.key }, { type: "subscribe", topic: "trades", filters: filters(i + j) }, (m) => m.topic === "trades"))))
}
const ours = await run(`keyed /api/v1/stream (${CLIENTS}, filtered)`, keyed, (i, block) => block.filter((t) => matches(filters(i), t)).length)
for (const c of keyed) c.ws.close()

const hubUrl = `ws://127.0.0.1:${app.port}/ws`
const hub: Array<Client> = []
for (let i = 0; i < CLIENTS; i += 50) {
  hub.push(...await Promise.all(Array.from({ length: Math.min(50, CLIENTS - i) }, () =>
    open(hubUrl, { authorization: `Bearer ${keys[0]!.token}` }, { type: "subscribe", topic: "feed:trades" }, (m) => m.topic === "feed:trades"))))
}
const theirs = await run(`console hub /ws (${CLIENTS}, feed:trades)`, hub, () => BLOCK)
for (const c of hub) c.ws.close()
await app.close()
console.log(`keyed / hub: ${(ours.perSec / theirs.perSec).toFixed(2)}× delivered/s, p95 ${ours.p95.toFixed(0)} vs ${theirs.p95.toFixed(0)} ms; block ${BLOCK} trades; load ${loadavg().map((l) => l.toFixed(2)).join(" ")}`)
process.exit(0)
