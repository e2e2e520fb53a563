/**
 * Multi-process soak (`npm run soak`, minutes, not in CI): two `http` processes and two `actors` processes of the
 * real program on one PostgreSQL and one Redis (a fresh database and key prefix on DATABASE_URL / REDIS_URL), the
 * demo chain at 10× speed, WebSocket clients following `feed:trades` on both http processes and keyed API callers at
 * a steady rate spread over both. Prints, per process, RSS after warm-up and at the end (growth target < 10 %);
 * records stored = published on chain.tx = delivered to every subscribed client; the quota count of each key equal to
 * the requests made across both processes; p50/p95 latencies. Exit code 1 when a target is missed.
 *
 * SOAK_SECONDS (default 180), SOAK_RPS (keyed requests per second, default 40), SOAK_WS_CLIENTS (default 20),
 * SOAK_HISTORY_DAYS (generated demo history stored meanwhile, default 7). Cleans up (processes, database, key prefix) on
 * any exit.
 */
import { execFileSync, spawn, type ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import Pg from "pg"
import { createClient } from "redis"
import WebSocket from "ws"
import { recordId } from "../schema/records"

const SECONDS = Number(process.env.SOAK_SECONDS ?? 180)
const RPS = Number(process.env.SOAK_RPS ?? 40)
const WS_CLIENTS = Number(process.env.SOAK_WS_CLIENTS ?? 20)
/** Days of generated demo history stored in the background (as `npm start` does, but fewer than its 120: minutes, not hours). */
const HISTORY_DAYS = Number(process.env.SOAK_HISTORY_DAYS ?? 7)
const BASE_DB = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"
const REDIS = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"
const PREFIX = `soak:${randomBytes(3).toString("hex")}:`
const DB_NAME = `soak_${Date.now().toString(36)}`

const freePort = () => new Promise<number>((resolve) => {
  const s = createServer().listen(0, "127.0.0.1", () => {
    const p = (s.address() as { port: number }).port
    s.close(() => resolve(p))
  })
})
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const rssMb = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024
  } catch {
    return 0
  }
}
const pct = (xs: Array<number>, p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.floor(s.length * p))]!
}

const admin = new Pg.Client({ connectionString: BASE_DB })
await admin.connect()
await admin.query(`CREATE DATABASE ${DB_NAME}`)
const dbUrl = new URL(BASE_DB)
dbUrl.pathname = `/${DB_NAME}`
const common = {
  METRICS_PORT: "0", ...process.env, DATABASE_URL: dbUrl.toString(), REDIS_URL: REDIS, REDIS_PREFIX: PREFIX, LOG_LEVEL: "warn", HOST: "127.0.0.1",
  DEMO_BLOCK_MS: "1200", DEMO_HISTORY_DAYS: String(HISTORY_DAYS), WS_ANON_DELAY_MS: "0", DATA_DIR: `/tmp/${DB_NAME}`, SESSION_SECRET: randomBytes(24).toString("hex"),
  INTERNAL_SECRET: randomBytes(24).toString("hex"), INBOUND_EMAIL_SECRET: randomBytes(24).toString("hex"),
  // The soak measures counting, not the refusal: the daily limit stays above what it sends (a 30-minute run at 40/s
  // sends 72,000 keyed requests, past the default 25,000, and its final usage read was then refused). The boundary
  // itself is tested in test/dataapi (two instances, request by request).
  API_DAILY_LIMIT: String(Math.max(25_000, RPS * SECONDS * 2 + 1_000))
} as Record<string, string>
execFileSync(process.execPath, ["--import", "tsx", "server/cli/migrate.ts"], { env: common, stdio: "inherit" })

const procs: Array<{ name: string; child: ChildProcess; port?: number }> = []
const start = async (name: string, roles: string) => {
  const port = roles === "http" ? await freePort() : 0
  const child = spawn(process.execPath, ["--max-semi-space-size=32", "--import", "tsx", "server/main.ts"], {
    env: { ...common, WHALE_ROLES: roles, PORT: String(port), MIGRATE_ON_START: "false" }, stdio: ["ignore", "inherit", "inherit"]
  })
  procs.push({ name, child, ...(roles === "http" ? { port } : {}) })
}
const stopAll = async () => {
  for (const p of procs) p.child.kill("SIGINT")
  await Promise.all(procs.map((p) => (p.child.exitCode !== null ? undefined : new Promise((r) => p.child.once("exit", r)))))
}
const dropDatabase = () => admin.query(`DROP DATABASE IF EXISTS ${DB_NAME} WITH (FORCE)`).then(() => admin.end())
const dropPrefix = async () => {
  const c = createClient({ url: REDIS })
  await c.connect()
  for await (const keys of c.scanIterator({ MATCH: `${PREFIX}*`, COUNT: 500 })) if (keys.length > 0) await c.del(keys)
  await c.close()
}
/** Whatever ends the run (a failure included): the processes stopped, the database and the key prefix dropped. */
let cleaning: Promise<void> | null = null
const cleanUp = () => (cleaning ??= (async () => {
  await stopAll()
  await dropDatabase().catch((e) => console.error(`soak: could not drop ${DB_NAME}: ${e}`))
  await dropPrefix().catch((e) => console.error(`soak: could not delete ${PREFIX}*: ${e}`))
  rmSync(common.DATA_DIR!, { recursive: true, force: true })
})())
process.on("SIGINT", () => void cleanUp().then(() => process.exit(130)))
/**
 * A setup request, tried again when the connection drops: a process answers slowly on a loaded machine, and a
 * kept-alive connection can be closed by the server between two requests (undici then fails with "other side closed").
 */
const setupFetch = async (url: string, init?: RequestInit): Promise<Response> => {
  for (let attempt = 1; ; attempt++) {
    try {
      const r = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) })
      if (r.status < 500 || attempt >= 5) return r
    } catch (e) {
      if (attempt >= 5) throw e
    }
    await sleep(500 * attempt)
  }
}

const main = async () => {
  await start("actors-1", "actors")
  await start("actors-2", "actors")
  await start("http-1", "http")
  await start("http-2", "http")
  const https = procs.filter((p) => p.port !== undefined).map((p) => `http://127.0.0.1:${p.port}`)
  for (const url of https) {
    for (let i = 0; i < 600; i++) {
      if (await fetch(`${url}/healthz`).then((r) => r.ok, () => false)) break
      await sleep(250)
    }
  }

  // The listener's first block (chain_blocks keeps the last 256: read it before any is pruned).
  let listenerFirst: number | null = null
  const probe = new Pg.Client({ connectionString: dbUrl.toString() })
  await probe.connect()
  for (let i = 0; i < 600 && listenerFirst === null; i++) {
    const r = await probe.query<{ n: string | null }>("SELECT min(number)::text AS n FROM chain_blocks")
    if (r.rows[0]?.n != null) listenerFirst = Number(r.rows[0].n)
    else await sleep(250)
  }
  await probe.end()
  if (listenerFirst === null) throw new Error("the block listener stored no block within 150 s")

  // A whale with two keys (the quota is per key).
  execFileSync(process.execPath, ["--import", "tsx", "server/cli/admin.ts", "create-user", "--email", "soak@example.com", "--password", "soak password 123", "--tier", "whale"], { env: common })
  const login = await (await setupFetch(`${https[0]}/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "soak@example.com", password: "soak password 123" }) })).json() as { access_token: string }
  const keys: Array<string> = []
  for (let i = 0; i < 2; i++) {
    const r = await (await setupFetch(`${https[i % 2]}/api/keys/create`, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${login.access_token}` }, body: JSON.stringify({ name: `soak ${i}` }) })).json() as { key: string }
    keys.push(r.key)
  }

  // WebSocket clients on both http processes, following the trade feed.
  const delivered: Array<Set<string>> = []
  const sockets: Array<WebSocket> = []
  for (let i = 0; i < WS_CLIENTS; i++) {
    const seen = new Set<string>()
    delivered.push(seen)
    const ws = new WebSocket(`${https[i % 2]!.replace("http", "ws")}/ws`, { headers: { authorization: `Bearer ${login.access_token}` } })
    ws.on("open", () => ws.send(JSON.stringify({ type: "subscribe", topic: "feed:trades" })))
    ws.on("message", (raw) => {
      const f = JSON.parse(raw.toString()) as { topic?: string; data?: Parameters<typeof recordId>[0] }
      if (f.topic === "feed:trades" && f.data) seen.add(recordId(f.data))
    })
    ws.on("error", () => undefined)
    sockets.push(ws)
  }

  await sleep(2_000)
  // The stream position when every client is subscribed: everything published after it must reach every client.
  const marker = createClient({ url: REDIS })
  await marker.connect()
  const startId = ((await marker.sendCommand(["XREVRANGE", `${PREFIX}chain.tx`, "+", "-", "COUNT", "1"])) as Array<[string, unknown]>)[0]?.[0] ?? "0-0"
  await marker.close()
  const startedAt = Date.now()
  const latencies: Array<number> = []
  const made = keys.map(() => 0)
  const statuses: Record<number, number> = {}
  const paths = ["/api/v1/whale-index", "/api/v1/top-tokens?tf=24H", "/api/v1/transactions?limit=20", "/api/v1/stats", "/api/v1/flows?tf=24H"]
  const rss: Record<string, Array<number>> = Object.fromEntries(procs.map((p) => [p.name, []]))
  let stop = false
  const inFlight = new Set<Promise<unknown>>()
  const caller = (async () => {
    let n = 0
    while (!stop) {
      const due = startedAt + (n * 1000) / RPS
      if (due > Date.now()) await sleep(due - Date.now())
      // Each key goes to both http processes in turn (its count must add up across them).
      const k = Math.floor(n / 2) % keys.length
      const url = `${https[n % 2]}${paths[n % paths.length]}`
      n++
      made[k]!++
      const t = performance.now()
      const call = fetch(url, { headers: { "x-api-key": keys[k]! } }).then(async (r) => {
        await r.arrayBuffer()
        latencies.push(performance.now() - t)
        statuses[r.status] = (statuses[r.status] ?? 0) + 1
      }, () => (statuses[0] = (statuses[0] ?? 0) + 1))
      inFlight.add(call)
      void call.finally(() => inFlight.delete(call))
    }
  })()
  while (Date.now() - startedAt < SECONDS * 1000) {
    for (const p of procs) rss[p.name]!.push(rssMb(p.child.pid!))
    await sleep(5_000)
  }
  stop = true
  await caller
  await Promise.all(inFlight)
  await sleep(3_000)

  // Figures.
  const db = new Pg.Client({ connectionString: dbUrl.toString() })
  // Dropping the database at clean-up ends this connection if it is still open: not a crash of the soak.
  db.on("error", () => undefined)
  await db.connect()
  // What the block listener stored (the generated history, below its first block, is stored without being published).
  const rows = (await db.query<{ tx_hash: string; log_index: number; wallet: string; token: string }>(
    "SELECT tx_hash, log_index, wallet, token FROM whale_tx WHERE block_number >= $1", [listenerFirst])).rows
  const stored = new Set(rows.map(recordId))
  const redis = createClient({ url: REDIS })
  await redis.connect()
  const entries = (await redis.sendCommand(["XRANGE", `${PREFIX}chain.tx`, "-", "+"])) as Array<[string, Array<string>]>
  const published = new Set(entries.map(([, f]) => (JSON.parse(f[1]!) as { messageId: string }).messageId))
  const idOrder = (id: string) => id.split("-").map(Number) as [number, number]
  const after = (a: string, b: string) => {
    const [x, y] = idOrder(a)
    const [u, v] = idOrder(b)
    return x > u || (x === u && y > v)
  }
  const live = [...new Set(entries.filter(([id]) => after(id, startId)).map(([, f]) => (JSON.parse(f[1]!) as { messageId: string }).messageId))]
  const wsMissing = delivered.map((seen) => live.filter((id) => !seen.has(id)).length)
  // The quota is the account's (both keys together), with each key's own count beside it; this request counts too. A
  // request that failed at the socket (status 0) may or may not have been counted: the comparison needs none.
  const usageAnswer = await fetch(`${https[1]}/api/v1/usage`, { headers: { "x-api-key": keys[0]! } })
  if (!usageAnswer.ok) throw new Error(`the usage read answered ${usageAnswer.status}: ${(await usageAnswer.text()).slice(0, 200)}`)
  const usage = (await usageAnswer.json()) as { data: { used: number; keys: Array<{ name: string; requests: number }> } }
  made[0]!++
  const quota = [`account: made ${made[0]! + made[1]!}, counted ${usage.data.used}`,
    ...keys.map((_, k) => `key ${k + 1}: made ${made[k]}, counted ${usage.data.keys.find((x) => x.name === `soak ${k}`)?.requests}`)]
  const quotaExact = (statuses[0] ?? 0) === 0 && usage.data.used === made[0]! + made[1]! &&
    keys.every((_, k) => usage.data.keys.find((x) => x.name === `soak ${k}`)?.requests === made[k])
  const warm = Math.max(1, Math.floor(rss[procs[0]!.name]!.length / 5))
  const growth = procs.map((p) => {
    const xs = rss[p.name]!
    const atWarm = xs[warm] ?? xs[0] ?? 0
    const last = xs[xs.length - 1] ?? 0
    return { name: p.name, warm: atWarm, last, growth: atWarm > 0 ? (last - atWarm) / atWarm : 0 }
  })
  for (const s of sockets) s.close()
  await db.end()
  await redis.close()
  await cleanUp()

  const missingPublished = [...stored].filter((id) => !published.has(id)).length
  console.log(`\nsoak: ${SECONDS} s · 2 http + 2 actors processes · demo chain at 10× (1.2 s blocks) · ${RPS} keyed req/s · ${WS_CLIENTS} WebSocket clients`)
  for (const g of growth) console.log(`  RSS ${g.name.padEnd(9)} after warm-up ${g.warm.toFixed(1)} MB → end ${g.last.toFixed(1)} MB (${(g.growth * 100).toFixed(1)} %)`)
  console.log(`  records stored ${stored.size} · published on chain.tx ${published.size} (stored but not published ${missingPublished}) · ` +
    `published during the run ${live.length}, missing at a client: max ${Math.max(...wsMissing)}`)
  console.log(`  quota: ${quota.join(" · ")} (${quotaExact ? "exact" : "NOT exact"})`)
  console.log(`  keyed API: ${latencies.length} answers ${JSON.stringify(statuses)} · p50 ${pct(latencies, 0.5).toFixed(1)} ms · p95 ${pct(latencies, 0.95).toFixed(1)} ms`)
  const ok = growth.every((g) => g.growth < 0.1) && missingPublished === 0 && Math.max(...wsMissing) === 0 && quotaExact && Object.keys(statuses).every((code) => code === "200")
  console.log(ok ? "  targets met" : "  TARGET MISSED")
  process.exit(ok ? 0 : 1)
}
await main().catch(async (e) => {
  console.error("soak failed:", e)
  await cleanUp()
  process.exit(2)
})
