/**
 * `npm run bench:ws`: the same broadcast to N WebSocket clients by this app's hub (bus → relay → uWS pub/sub) and by
 * a `ws` library server, in one run. Servers run on one core and the clients (one raw-TCP process) on the other
 * when `taskset` is available. For each: memory per idle subscribed connection (server RSS growth / N, measured
 * after full collections in both), then a ramp of broadcast rates, each step giving messages delivered per second
 * (all clients) and the p95 time from handing a trade to the server's fan-out to its arrival. The headline compares the highest delivered rate each
 * server sustains (≥ 90 % delivered) with p95 within the same bound. Prints, never asserts.
 * The clients are one Node process: with many connections its own event loop, not the servers, becomes the limit
 * (about 100k socket reads per second here), so the ramp uses BENCH_WS_CLIENTS connections and the memory figure
 * BENCH_WS_IDLE_CLIENTS. Settings: BENCH_WS_CLIENTS (500), BENCH_WS_IDLE_CLIENTS (5000), BENCH_WS_RATES (msgs/s
 * per step), BENCH_WS_SECONDS (4), BENCH_WS_P95_MS (100).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { cpus, loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { assertIdle, freePort, ROOT, stop } from "./support"

/** Clients of the broadcast ramp, and idle connections for the memory figure (the first N are kept for the ramp). */
const N = Number(process.env.BENCH_WS_CLIENTS ?? 500)
const IDLE = Math.max(N, Number(process.env.BENCH_WS_IDLE_CLIENTS ?? 5000))
const RATES = (process.env.BENCH_WS_RATES ?? "25,50,100,200,400,800,1600,3200").split(",").map(Number)
const SECONDS = Number(process.env.BENCH_WS_SECONDS ?? 4)
const P95_BOUND_MS = Number(process.env.BENCH_WS_P95_MS ?? 100)
const BATCH_MS = 20
const pinned = spawnSync("taskset", ["-c", "0", "true"]).status === 0

interface Proc {
  readonly child: ChildProcess
  readonly next: <T = Record<string, any>>(key: string, timeoutMs?: number) => Promise<T>
  readonly send: (line: string) => void
}

const start = (script: string, args: ReadonlyArray<string>, env: Record<string, string>, cpu: number): Proc => {
  const cmd = [process.execPath, "--expose-gc", "--import", "tsx", script, ...args]
  const child = spawn(pinned ? "taskset" : cmd[0]!, pinned ? ["-c", String(cpu), ...cmd] : cmd.slice(1), {
    cwd: ROOT, env: { METRICS_PORT: "0", ...process.env, ...env }, stdio: ["pipe", "pipe", "inherit"]
  })
  const seen: Array<Record<string, any>> = []
  const waiters = new Set<() => void>()
  createInterface({ input: child.stdout! }).on("line", (line) => {
    if (!line.startsWith("BENCH ")) return
    seen.push(JSON.parse(line.slice(6)))
    for (const w of waiters) w()
  })
  const next = <T,>(key: string, timeoutMs = 120_000) =>
    new Promise<T>((resolve, reject) => {
      const check = () => {
        const i = seen.findIndex((v) => key in v)
        if (i < 0) return
        waiters.delete(check)
        clearTimeout(timer)
        resolve(seen.splice(i, 1)[0] as T)
      }
      const timer = setTimeout(() => reject(new Error(`${script}: no "${key}" within ${timeoutMs} ms`)), timeoutMs)
      waiters.add(check)
      check()
    })
  return { child, next, send: (line) => child.stdin!.write(`${line}\n`) }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

interface Step {
  rate: number; offered: number; delivered: number; p50: number | null; p95: number | null; closed: number; finished: boolean
  /** Server CPU time (user + system) per message delivered, µs. */
  cpuPerDelivery: number
}
interface Result { name: string; bytesPerConn: number; steps: Array<Step> }

const run = async (name: string, server: (port: number) => Proc): Promise<Result> => {
  const port = await freePort()
  const s = server(port)
  await s.next("ready")
  await sleep(2_000)
  const rss = async () => {
    s.send(JSON.stringify({ op: "rss" }))
    return (await s.next<{ rss: number }>("rss")).rss
  }
  const before = await rss()
  const clients = start("bench/ws-clients.ts", ["127.0.0.1", String(port), String(IDLE)], {}, 1)
  await clients.next("connected", 180_000)
  await sleep(3_000)
  const bytesPerConn = ((await rss()) - before) / IDLE
  clients.send(`keep ${N}`)
  await clients.next("kept")
  await sleep(1_000)
  const cpu = async () => {
    s.send(JSON.stringify({ op: "cpu" }))
    return (await s.next<{ cpu: number }>("cpu")).cpu
  }
  const broadcast = async (rate: number, seconds: number): Promise<Step> => {
    const cpuBefore = await cpu()
    clients.send("start")
    await clients.next("started")
    s.send(JSON.stringify({ op: "broadcast", rate, seconds, batchMs: BATCH_MS }))
    // A server that cannot hand out the messages in time is saturated: what arrived by then is what it delivered.
    const finished = await s.next("done", seconds * 3_000 + 5_000).then(() => true, () => false)
    clients.send("stop")
    const r = await clients.next<{ frames: number; seconds: number; p50: number | null; p95: number | null; closed: number }>("frames", 90_000)
    const cpuMicros = finished ? (await cpu()) - cpuBefore : Number.NaN
    // Delivered per second from the first message to the last one's arrival (a lagging server stretches it).
    const delivered = Math.round(r.frames / Math.max(seconds, r.seconds))
    return { rate, offered: rate * N, delivered, p50: r.p50, p95: r.p95, closed: r.closed, finished, cpuPerDelivery: cpuMicros / r.frames }
  }
  await broadcast(10, 2)
  const steps: Array<Step> = []
  const withinBound = (st: Step) => st.finished && st.delivered >= 0.9 * st.offered && st.closed === 0 && st.p95 !== null && st.p95 <= P95_BOUND_MS
  for (const rate of RATES) {
    let step = await broadcast(rate, SECONDS)
    // A step that misses its bound is run once more before it counts: one hiccup of the machine must not end a ramp.
    if (!withinBound(step)) {
      await sleep(1_000)
      const again = await broadcast(rate, SECONDS)
      if (withinBound(again) || again.delivered > step.delivered) step = again
    }
    steps.push(step)
    console.error(`  ${name.padEnd(22)} ${String(rate).padStart(5)} msg/s → ${String(step.delivered).padStart(9)} delivered/s of ${step.offered}, p50 ${step.p50} ms, p95 ${step.p95} ms, ${step.cpuPerDelivery.toFixed(2)} µs CPU each${step.closed ? `, ${step.closed} closed` : ""}${step.finished ? "" : ", saturated"}`)
    if (!step.finished || step.delivered < 0.9 * step.offered || step.closed > 0) break
    await sleep(500)
  }
  clients.send("exit")
  await Promise.all([stop(clients.child), stop(s.child)])
  return { name, bytesPerConn, steps }
}

const best = (r: Result) =>
  r.steps.filter((s) => s.finished && s.delivered >= 0.9 * s.offered && s.p95 !== null && s.p95 <= P95_BOUND_MS && s.closed === 0).sort((a, b) => b.delivered - a.delivered)[0]

await assertIdle("bench:ws")
const [load] = loadavg() as [number]
console.error(`bench:ws — ${IDLE} idle connections, then ${N} clients, rates ${RATES.join("/")} msg/s, ${SECONDS}s per step, p95 bound ${P95_BOUND_MS} ms, ${pinned ? "servers on cpu0, clients on cpu1" : "no taskset: processes not pinned"}`)
const dir = mkdtempSync(join(tmpdir(), "whale-bench-ws-"))
const ours = await run("uWS hub (this app)", (port) =>
  start("bench/ws-app.ts", [], {
    PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dir, EMBEDDED_DB_DIR: "memory://", LOG_LEVEL: "error", WHALE_ROLES: "http",
    WS_ANON_DELAY_MS: "0", WS_MAX_CONNECTIONS_PER_IP: "1000000", WS_POLL_MS: "100", WS_MAX_BACKPRESSURE_BYTES: String(64 * 1024 * 1024), WS_HISTORY: "100"
  }, 0))
const theirs = await run("ws library", (port) => start("bench/ws-baseline.ts", [String(port)], {}, 0))

/** Server CPU per delivered message over the finished steps (the figure least moved by a busy machine). */
const cpuCost = (r: Result) => {
  const steps = r.steps.filter((s) => s.finished && Number.isFinite(s.cpuPerDelivery))
  return steps.reduce((sum, s) => sum + s.cpuPerDelivery * s.delivered, 0) / Math.max(1, steps.reduce((sum, s) => sum + s.delivered, 0))
}
const row = (r: Result) => {
  const b = best(r)
  const sustained = b ? `${String(b.delivered).padStart(9)} msg/s delivered, p95 ${String(b.p95).padStart(4)} ms (${b.rate} msg/s × ${N})` : `${"none".padStart(9)} within p95 ${P95_BOUND_MS} ms           `
  return `${r.name.padEnd(20)} ${sustained}   ${cpuCost(r).toFixed(2).padStart(6)} µs CPU per delivery (${Math.round(1e6 / cpuCost(r)).toLocaleString("en-US")}/s per core)   ${(r.bytesPerConn / 1024).toFixed(1).padStart(5)} KiB per idle connection`
}
const [l0] = loadavg()
console.log(`bench:ws — ${N} clients (${IDLE} idle for memory), load average ${load.toFixed(1)} → ${l0!.toFixed(1)} on ${cpus().length} cores${load > 1.5 ? " (machine busy: wall-clock figures are noisy)" : ""}`)
console.log(row(ours))
console.log(row(theirs))
const [a, b] = [best(ours), best(theirs)]
// Refuse figures that cannot be right rather than print a wrong ratio.
const invalid = [
  !a && "the hub sustained no step within the p95 bound",
  ours.bytesPerConn <= 0 && "the hub's memory per connection read ≤ 0",
  theirs.bytesPerConn <= 0 && "the ws server's memory per connection read ≤ 0",
  // CPU per delivery is the figure a busy machine moves least; a throughput ratio far from it was measured on a busy machine.
  a && b && cpuCost(theirs) / cpuCost(ours) > 1.5 && a.delivered < b.delivered &&
    `throughput says the hub is slower (${a.delivered} vs ${b.delivered}/s) while it uses ${(cpuCost(theirs) / cpuCost(ours)).toFixed(1)}× less CPU per delivery`
].filter(Boolean)
if (invalid.length > 0) {
  console.error(`bench:ws INVALID, no ratio printed: ${invalid.join("; ")}`)
  process.exit(1)
}
// When the baseline sustained no step, its most delivered in any step bounds what it could sustain.
const ceiling = Math.max(0, ...theirs.steps.map((s) => s.delivered))
const ratio = a && b ? `${(a.delivered / b.delivered).toFixed(2)}x` : a && ceiling > 0 ? `≥ ${(a.delivered / ceiling).toFixed(2)}x (ws sustained no step; it delivered at most ${ceiling}/s)` : "n/a"
console.log(`ratio throughput at p95 ≤ ${P95_BOUND_MS} ms (uWS hub / ws): ${ratio}   (target ≥ 2x)`)
console.log(`ratio CPU per delivery (ws / uWS hub): ${(cpuCost(theirs) / cpuCost(ours)).toFixed(2)}x   (the throughput a dedicated core would give)`)
console.log(`ratio memory per idle connection (uWS hub / ws): ${(ours.bytesPerConn / theirs.bytesPerConn).toFixed(2)}   (target ≤ 0.33)`)
