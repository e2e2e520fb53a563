/**
 * `npm run bench:api`: this server against Fastify serving the same JSON, in one run, with the same load generator
 * in its own process (bench/load.ts):
 *  - cached `GET /api/v1/public/stats`, pipelined (both sides answer it synchronously from memory);
 *  - keyed `GET /api/v1/whale-index` with a whale-tier key: ours resolves the key (in-process cache), counts the
 *    request in Redis, queues a usage event and builds the envelope; Fastify runs @fastify/rate-limit on Redis.
 *    Not pipelined (uWS does not take deferred replies to pipelined requests; no client pipelines): many
 *    connections, one request in flight each.
 * Our server runs in this process (roles `http` only, embedded PostgreSQL unless DATABASE_URL is set); both use the
 * Redis at REDIS_URL (default redis://127.0.0.1:6379) under a throw-away prefix. BENCH_ROUNDS (default 3) rounds
 * alternate the servers; the median of each target is compared. Prints rates and ratios; asserts nothing. The daily
 * limit is lifted for the run (it measures speed, not the quota).
 */
import { randomBytes } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Effect, Layer, ManagedRuntime } from "effect"
import { createClient } from "redis"
import { AppInfo, AppLive } from "../server/App"
import { createUser } from "../server/domains/accounts/AdminCommands"
import { Entitlements } from "../server/domains/accounts/Entitlements"
import { AccountsRepo } from "../server/domains/accounts/Repo"
import { assertIdle, BenchInvalid, freePort, load, stop, throwawayDatabase, tsx, waitForUrl, type LoadResult } from "./support"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
const DEPTH = Number(process.env.BENCH_PIPELINE ?? 8)
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3)
const KEYED_CONNECTIONS = Number(process.env.BENCH_KEYED_CONNECTIONS ?? 64)
const redisUrl = process.env.REDIS_URL ?? "redis://127.0.0.1:6379"
await assertIdle("bench:api")
const prefix = `bench:${randomBytes(4).toString("hex")}:`
// A database of its own (beside DATABASE_URL, or the embedded one in memory): the bench writes records and a user.
const db = await throwawayDatabase("api")
const dir = db.env.DATA_DIR!

const env: Record<string, string> = {
  PORT: String(await freePort()), METRICS_PORT: "0", HOST: "127.0.0.1", DATA_DIR: dir, EMBEDDED_DB_DIR: "memory://", WHALE_ROLES: "http",
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "warn", REDIS_URL: redisUrl, REDIS_PREFIX: prefix, API_DAILY_LIMIT: "1000000000",
  // As deployed: answers are not checked against their schemas (RESPONSE_CHECK's default outside production is
  // `warn`, which validates every answer: it halved this benchmark's public throughput).
  RESPONSE_CHECK: "off",
  ...(db.databaseUrl ? { DATABASE_URL: db.databaseUrl } : {})
}
const runtime = ManagedRuntime.make(AppLive.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))))
const port = (await runtime.runPromise(AppInfo)).port!
const base = `http://127.0.0.1:${port}`
const sql = (text: string, params: ReadonlyArray<unknown> = []) =>
  runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (s) => s.unsafe(text, params as Array<never>)))

// Some whale activity, so the bodies have their real shape: 400 records over the last day.
const now = Date.now()
await sql(`INSERT INTO whale_tx (tx_hash, log_index, wallet, token, symbol, category, amount, amount_raw, usd, block_number, block_hash, ts, source)
  SELECT 'bench' || i, 0, w.address, t.address, t.symbol, (ARRAY['dex_buy','dex_sell','exchange_withdraw','exchange_deposit'])[1 + i % 4],
    1, 1, 1000 + i * 37 % 5000, 20000000 + i, 'h' || i, to_timestamp(($1::float8 - i * 200000) / 1000), 'demo'
  FROM generate_series(1, 400) i,
    LATERAL (SELECT address FROM tracked_wallets ORDER BY address OFFSET i % 20 LIMIT 1) w,
    LATERAL (SELECT address, symbol FROM tokens WHERE NOT stable ORDER BY address OFFSET i % 15 LIMIT 1) t`, [now])

// A whale-tier user and a key, through the API.
const email = `bench-${randomBytes(3).toString("hex")}@example.com`
const password = "bench password long enough"
await runtime.runPromise(createUser({ email, password, tier: "whale" }).pipe(Effect.provide(Entitlements.Default), Effect.provide(AccountsRepo.Default)) as Effect.Effect<unknown, unknown, never>)
const session = await (await fetch(`${base}/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password }) })).json() as { access_token: string }
const created = await (await fetch(`${base}/api/keys/create`, {
  method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${session.access_token}` }, body: JSON.stringify({ name: "bench" })
})).json() as { key: string }
const keyHeader = `X-API-Key: ${created.key}`

const publicUrl = `${base}/api/v1/public/stats`
const keyedUrl = `${base}/api/v1/whale-index`
const publicJson = await (await fetch(publicUrl)).text()
const keyedJson = await (await fetch(keyedUrl, { headers: { "x-api-key": created.key } })).text()
writeFileSync(join(dir, "public.json"), publicJson)
writeFileSync(join(dir, "keyed.json"), keyedJson)
const fastifyPort = await freePort()
const fastify = tsx("bench/fastify-api.ts", [String(fastifyPort), join(dir, "public.json"), join(dir, "keyed.json"), redisUrl, prefix])
await waitForUrl(`http://127.0.0.1:${fastifyPort}/api/v1/public/stats`)
const theirPublic = `http://127.0.0.1:${fastifyPort}/api/v1/public/stats`
const theirKeyed = `http://127.0.0.1:${fastifyPort}/api/v1/whale-index`

// Rounds alternate the two servers (ours, theirs, ours, theirs, …), so a disturbance of the machine (another
// process waking up) falls on both; each target's MEDIAN over the rounds is compared.
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
console.error(`bodies: public ${publicJson.length} B, keyed ${keyedJson.length} B; ${ROUNDS} rounds × ${SECONDS}s per target, alternating`)
console.error(`public: ${CONNECTIONS} connections × pipeline ${DEPTH}; keyed: ${KEYED_CONNECTIONS} connections × 1`)
type Target = { readonly name: string; readonly url: string; readonly connections: number; readonly depth: number; readonly headers: ReadonlyArray<string> }
const targets: Array<Target> = []
// BENCH_ONLY=public|keyed runs one half (for profiling one path; the ratio of the other half prints as NaN).
const only = process.env.BENCH_ONLY
if (only !== "keyed") {
  targets.push({ name: "uWS app   public/stats", url: publicUrl, connections: CONNECTIONS, depth: DEPTH, headers: [] })
  targets.push({ name: "Fastify   public/stats", url: theirPublic, connections: CONNECTIONS, depth: DEPTH, headers: [] })
}
if (only !== "public") {
  targets.push({ name: "uWS app   whale-index (key)", url: keyedUrl, connections: KEYED_CONNECTIONS, depth: 1, headers: [keyHeader] })
  targets.push({ name: "Fastify   whale-index (rate-limit)", url: theirKeyed, connections: KEYED_CONNECTIONS, depth: 1, headers: [keyHeader] })
}
const runs = new Map<string, Array<LoadResult>>(targets.map((t) => [t.name, []]))
/** One plain request first: a cache that expired between rounds is filled before pipelined requests arrive. */
const prime = async (t: Target) => {
  const headers = Object.fromEntries(t.headers.map((h) => [h.slice(0, h.indexOf(":")), h.slice(h.indexOf(":") + 1).trim()]))
  const res = await fetch(t.url, { headers })
  if (!res.ok) throw new BenchInvalid(`${t.url} answered ${res.status} before the round`)
  await res.arrayBuffer()
}
/**
 * The median is the figure, so one disturbed round does not change it; but when fewer than a majority of a target's
 * rounds lie within 1.5× of their median, there is no steady figure to report (something else ran, or the warm-up,
 * BENCH_WARMUP_SECONDS, was too short).
 */
const checkSpread = (t: Target) => {
  const rates = runs.get(t.name)!.map((r) => r.rps)
  const mid = [...rates].sort((a, b) => a - b)[Math.floor(rates.length / 2)]!
  const steady = rates.filter((r) => r >= mid / 1.5 && r <= mid * 1.5).length
  if (steady < Math.floor(rates.length / 2) + 1) {
    throw new BenchInvalid(`${t.name}: only ${steady} of ${rates.length} rounds within 1.5× of their median (${rates.join(", ")} req/s)`)
  }
  if (steady < rates.length) console.error(`${t.name}: ${rates.length - steady} round(s) beyond 1.5× of the median, which is kept`)
}
let failure: unknown
try {
  for (const t of targets) {
    await prime(t)
    await load(t.url, WARMUP_SECONDS, t.connections, t.depth, t.headers) // warm-up (JIT, pools, caches)
  }
  for (let round = 1; round <= ROUNDS; round++) {
    for (const t of targets) {
      await prime(t)
      const r = await load(t.url, SECONDS, t.connections, t.depth, t.headers)
      runs.get(t.name)!.push(r)
      console.error(`round ${round}  ${t.name.padEnd(36)} ${String(r.rps).padStart(9)} req/s`)
    }
  }
  for (const t of targets) checkSpread(t)
} catch (e) {
  failure = e
}
const median = (name: string): LoadResult => {
  const sorted = [...(runs.get(name) ?? [])].sort((a, b) => a.rps - b.rps)
  return sorted[Math.floor(sorted.length / 2)] ?? { requests: 0, seconds: 0, rps: Number.NaN, errors: 0, non2xx: 0, closed: 0, unanswered: 0, p50_ms: 0, p99_ms: 0 }
}

await stop(fastify)
await runtime.dispose()
await db.drop()
const redis = createClient({ url: redisUrl })
await redis.connect()
for await (const keys of redis.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) if (keys.length > 0) await redis.del(keys)
await redis.close()

if (failure !== undefined) {
  console.error(`bench:api INVALID, no ratio printed: ${failure instanceof Error ? failure.message : String(failure)}`)
  process.exit(1)
}
for (const t of targets) {
  const r = median(t.name)
  const errors = runs.get(t.name)!.reduce((n, x) => n + x.errors + x.non2xx, 0)
  console.log(`${t.name.padEnd(36)} ${String(r.rps).padStart(9)} req/s (median of ${ROUNDS})   p50 ${r.p50_ms} ms   p99 ${r.p99_ms} ms   errors + non-2xx ${errors}`)
}
const ratio = (ours: string, theirs: string) => (median(ours).rps / median(theirs).rps).toFixed(2)
console.log(`ratio public (uWS app / Fastify): ${ratio("uWS app   public/stats", "Fastify   public/stats")}x   (target ≥ 2x)`)
console.log(`ratio keyed  (uWS app / Fastify + rate-limit on Redis): ${ratio("uWS app   whale-index (key)", "Fastify   whale-index (rate-limit)")}x   (target ≥ 1.5x)`)
process.exit(0)
