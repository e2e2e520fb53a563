/**
 * `npm run bench:echo`: simulated trades per second through the echo-portfolio actor for BENCH_USERS users (default
 * 1,000), against the same trades as direct SQL transactions with row locks (the baseline: lock the portfolio row,
 * check and move cash, upsert the holding, insert the trade — no pricing, no bus), measured in the same run on the
 * same database; prints the ratio and whether it meets the target (issue 31: ≥ 1.5×). Then `POST /api/echo/trade` over
 * HTTP, 8 at once, for one user and for BENCH_HTTP_USERS (100) users, applied in the request (`direct`, this app) and
 * through the actor (`ECHO_HTTP_TRADES=actor`, a second app): requests/s and p50/p95/p99. Asserts nothing.
 * Uses DATABASE_URL / REDIS_URL when set (a throw-away database and key prefix), else the embedded defaults.
 * BENCH_USERS, BENCH_TRADES_PER_USER (default 3), BENCH_HTTP_REQUESTS (default 400), BENCH_HTTP_CONCURRENCY (8), BENCH_HTTP_USERS (100).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { createUser, login } from "../test/support/auth"
import { startApp, type TestApp } from "../test/support/harness"
import { QUIET_CHAIN } from "../test/support/whales"
import { Bus } from "../server/platform/infra/Bus"
import { insertRecords, txHash, UNI, WETH, WHALE } from "../test/echo/support"

/** A whole number ≥ 1 from the environment, or a loud refusal (a bench that reads nonsense must not print a figure). */
const count = (name: string, fallback: number) => {
  const n = Number(process.env[name] ?? fallback)
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number ≥ 1 (got ${process.env[name]})`)
  return n
}
const USERS = count("BENCH_USERS", 1000)
const PER_USER = count("BENCH_TRADES_PER_USER", 3)
const HTTP_REQUESTS = count("BENCH_HTTP_REQUESTS", 400)
const HTTP_CONCURRENCY = count("BENCH_HTTP_CONCURRENCY", 8)
const HTTP_USERS = count("BENCH_HTTP_USERS", 100)
const SQL_CONCURRENCY = 32
/** Issue 31: the actor path must pay for itself. */
const TARGET = 1.5

// Production actor timings (the test harness shortens them: a 300 ms claim idle would redeliver entries still being handled).
const APP_ENV = { ...QUIET_CHAIN, LOG_LEVEL: "error", LOGIN_MAX_PER_IP: "100000", DB_POOL_SIZE: "10", ACTOR_CLAIM_IDLE_MS: "15000", ACTOR_BLOCK_MS: "2000", ACTOR_STATS_INTERVAL_MS: "5000" }
const seedPrices = (app: TestApp) => insertRecords(app, [
  { tx: txHash(1), log: 0, wallet: WHALE, token: WETH, symbol: "WETH", category: "dex_buy", price: 3000, usd: 30_000, block: 100 },
  { tx: txHash(2), log: 0, wallet: WHALE, token: UNI, symbol: "UNI", category: "dex_buy", price: 10, usd: 100_000, block: 100 }
])

/** POST /api/echo/trade × HTTP_REQUESTS, HTTP_CONCURRENCY at once, spread over `users` signed-in users. */
const httpLoad = async (app: TestApp, mode: string, users: number) => {
  const tokens: Array<string> = []
  for (let i = 0; i < users; i++) {
    const email = `bench-http-${mode}-${users}-${i}@example.com`
    await createUser(app, { email, tier: "whale" })
    tokens.push((await login(app, email)).token)
  }
  const latencies: Array<number> = []
  let next = 0
  let failures = 0
  const t0 = performance.now()
  await Promise.all(Array.from({ length: HTTP_CONCURRENCY }, async () => {
    while (next < HTTP_REQUESTS) {
      const token = tokens[next++ % users]!
      const s = performance.now()
      const res = await fetch(`${app.url}/api/echo/trade`, {
        method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ side: "BUY", token: UNI, usd: 10 })
      })
      await res.arrayBuffer()
      latencies.push(performance.now() - s)
      if (res.status !== 200) failures++
    }
  }))
  const seconds = (performance.now() - t0) / 1000
  latencies.sort((a, b) => a - b)
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!
  return `  POST /api/echo/trade ${mode.padEnd(6)} × ${HTTP_REQUESTS} (${HTTP_CONCURRENCY} at once, ${String(users).padStart(3)} user${users > 1 ? "s" : " "}): ` +
    `${(HTTP_REQUESTS / seconds).toFixed(0)} req/s, p50 ${q(0.5).toFixed(1)} ms, p95 ${q(0.95).toFixed(1)} ms, p99 ${q(0.99).toFixed(1)} ms${failures ? `, ${failures} non-200` : ""}`
}
const httpPhases = async (app: TestApp, mode: string) => [await httpLoad(app, mode, 1), await httpLoad(app, mode, HTTP_USERS)]
const httpRows: Array<string> = []

const app = await startApp({ env: { ...APP_ENV, ECHO_HTTP_TRADES: "direct" } })
const run = <A>(e: Effect.Effect<A, unknown, any>) => app.runtime.runPromise(e as Effect.Effect<A, unknown, never>)
try {
  await seedPrices(app)
  const ids = (await app.query<{ id: number }>(
    `INSERT INTO users (email, password_hash) SELECT 'bench' || g || '@example.com', 'x' FROM generate_series(1, $1::int) g RETURNING id`, [USERS * 2]
  )).map((r) => Number(r.id))
  const actorUsers = ids.slice(0, USERS)
  const sqlUsers = ids.slice(USERS)
  const n = USERS * PER_USER

  // ---- through the actor: commands on echo.cmd, until every trade is stored ----
  const commands = Array.from({ length: n }, (_, i) => ({
    _tag: "Trade" as const, messageId: `bench:${i}`, userId: actorUsers[i % USERS]!, side: "BUY" as const, token: UNI, usd: 100
  }))
  const t0 = performance.now()
  await run(Effect.flatMap(Bus, (bus) => Effect.forEach(
    Array.from({ length: Math.ceil(n / 500) }, (_, k) => commands.slice(k * 500, (k + 1) * 500)), (chunk) => bus.publishMany("echo.cmd", chunk), { discard: true })))
  while ((await app.query<{ c: number }>(`SELECT count(*)::int AS c FROM echo_trades WHERE command_id LIKE 'bench:%'`))[0]!.c < n) {
    if (performance.now() - t0 > 600_000) throw new Error("actor path did not finish in 10 minutes")
    await new Promise((r) => setTimeout(r, 50))
  }
  const actorSeconds = (performance.now() - t0) / 1000

  // ---- baseline: the same trades as direct SQL transactions with row locks ----
  const price = 10
  const trade = (userId: number, i: number) => Effect.flatMap(SqlClient.SqlClient, (sql) => sql.withTransaction(Effect.gen(function* () {
    yield* sql`INSERT INTO echo_portfolios (user_id, start_cash, cash) VALUES (${userId}, 100000, 100000) ON CONFLICT (user_id) DO NOTHING`
    const [p] = yield* sql<{ cash: number }>`SELECT cash FROM echo_portfolios WHERE user_id = ${userId} FOR UPDATE`
    if (p!.cash < 100) return
    yield* sql`UPDATE echo_portfolios SET cash = cash - 100, version = version + 1, updated_at = now() WHERE user_id = ${userId}`
    yield* sql`INSERT INTO echo_holdings (user_id, token, symbol, quantity, cost) VALUES (${userId}, ${UNI}, 'UNI', ${100 / price}, 100)
      ON CONFLICT (user_id, token) DO UPDATE SET quantity = echo_holdings.quantity + EXCLUDED.quantity, cost = echo_holdings.cost + EXCLUDED.cost`
    yield* sql`INSERT INTO echo_trades (user_id, command_id, origin, side, token, symbol, quantity, price, usd, market_price)
      VALUES (${userId}, ${`base:${i}`}, 'manual', 'BUY', ${UNI}, 'UNI', ${100 / price}, ${price}, 100, ${price})`
  })))
  const t1 = performance.now()
  await run(Effect.forEach(Array.from({ length: n }, (_, i) => i), (i) => trade(sqlUsers[i % USERS]!, i), { concurrency: SQL_CONCURRENCY, discard: true }))
  const sqlSeconds = (performance.now() - t1) / 1000

  // ---- HTTP: this app applies trades in the request (ECHO_HTTP_TRADES=direct); a second app sends them to the actor (the default) ----
  httpRows.push(...await httpPhases(app, "direct"))
  const actorRate = n / actorSeconds
  const sqlRate = n / sqlSeconds
  const backend = `${app.env.DATABASE_URL ? "PostgreSQL" : "embedded PGlite"} + ${app.env.REDIS_URL ? "Redis Streams" : "in-process bus"}`
  console.log(`bench:echo  ${USERS} users × ${PER_USER} trades = ${n} trades  (${backend})`)
  console.log(`  through the actor (echo.cmd → a read of many users → one transaction): ${actorRate.toFixed(0)} trades/s  (${actorSeconds.toFixed(2)} s)`)
  console.log(`  baseline, direct SQL transactions with row locks (${SQL_CONCURRENCY} at once):  ${sqlRate.toFixed(0)} trades/s  (${sqlSeconds.toFixed(2)} s)`)
  const ratio = actorRate / sqlRate
  console.log(`  ratio actor / baseline: ${ratio.toFixed(2)}x`)
  console.log(`  target actor/baseline ≥ ${TARGET}×: ${ratio >= TARGET ? "met" : "NOT met"}`)
} finally {
  await app.close()
}
const viaActor = await startApp({ env: { ...APP_ENV, ECHO_HTTP_TRADES: "actor" } })
try {
  await seedPrices(viaActor)
  httpRows.push(...await httpPhases(viaActor, "actor"))
} finally {
  await viaActor.close()
}
for (const r of httpRows) console.log(r)
