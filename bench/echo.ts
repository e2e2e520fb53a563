/**
 * `npm run bench:echo`: simulated trades per second through the echo-portfolio actor for BENCH_USERS users (default
 * 1,000), against the same trades as direct SQL transactions with row locks (the baseline: lock the portfolio row,
 * check and move cash, upsert the holding, insert the trade — no pricing, no bus), measured in the same run on the
 * same database; then the p50/p95 latency of `POST /api/echo/trade` over HTTP. Prints ratios, asserts nothing.
 * Uses DATABASE_URL / REDIS_URL when set (a throw-away database and key prefix), else the embedded defaults.
 * BENCH_USERS, BENCH_TRADES_PER_USER (default 3), BENCH_HTTP_REQUESTS (default 400), BENCH_HTTP_CONCURRENCY (8).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { createUser, login } from "../test/support/auth"
import { startApp } from "../test/support/harness"
import { QUIET_CHAIN } from "../test/support/whales"
import { Bus } from "../server/platform/infra/Bus"
import { insertRecords, txHash, UNI, WETH, WHALE } from "../test/echo/support"

const USERS = Number(process.env.BENCH_USERS ?? 1000)
const PER_USER = Number(process.env.BENCH_TRADES_PER_USER ?? 3)
const HTTP_REQUESTS = Number(process.env.BENCH_HTTP_REQUESTS ?? 400)
const HTTP_CONCURRENCY = Number(process.env.BENCH_HTTP_CONCURRENCY ?? 8)
const SQL_CONCURRENCY = 32
/** Issue 31: the actor path must pay for itself. */
const TARGET = 1.5

// Production actor timings (the test harness shortens them: a 300 ms claim idle would redeliver entries still being handled).
const app = await startApp({ env: { ...QUIET_CHAIN, LOG_LEVEL: "error", DB_POOL_SIZE: "10", ACTOR_CLAIM_IDLE_MS: "15000", ACTOR_BLOCK_MS: "2000", ACTOR_STATS_INTERVAL_MS: "5000" } })
const run = <A>(e: Effect.Effect<A, unknown, any>) => app.runtime.runPromise(e as Effect.Effect<A, unknown, never>)
try {
  await insertRecords(app, [
    { tx: txHash(1), log: 0, wallet: WHALE, token: WETH, symbol: "WETH", category: "dex_buy", price: 3000, usd: 30_000, block: 100 },
    { tx: txHash(2), log: 0, wallet: WHALE, token: UNI, symbol: "UNI", category: "dex_buy", price: 10, usd: 100_000, block: 100 }
  ])
  const ids = (await app.query<{ id: number }>(
    `INSERT INTO users (email, password_hash) SELECT 'bench' || g || '@example.com', 'x' FROM generate_series(1, $1::int) g RETURNING id`, [USERS * 2]
  )).map((r) => Number(r.id))
  const actorUsers = ids.slice(0, USERS)
  const sqlUsers = ids.slice(USERS)
  const n = USERS * PER_USER

  // ---- through the actor: commands on echo.cmd, until every trade is stored ----
  const commands = Array.from({ length: n }, (_, i) => ({
    _tag: "Trade", messageId: `bench:${i}`, userId: actorUsers[i % USERS]!, side: "BUY", token: UNI, usd: 100
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

  // ---- HTTP: latency of a trade request ----
  await createUser(app, { email: "bench-http@example.com", tier: "whale" })
  const token = (await login(app, "bench-http@example.com")).token
  const latencies: Array<number> = []
  let next = 0
  let failures = 0
  await Promise.all(Array.from({ length: HTTP_CONCURRENCY }, async () => {
    while (next < HTTP_REQUESTS) {
      next++
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
  latencies.sort((a, b) => a - b)
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!

  const actorRate = n / actorSeconds
  const sqlRate = n / sqlSeconds
  const backend = `${app.env.DATABASE_URL ? "PostgreSQL" : "embedded PGlite"} + ${app.env.REDIS_URL ? "Redis Streams" : "in-process bus"}`
  console.log(`bench:echo  ${USERS} users × ${PER_USER} trades = ${n} trades  (${backend})`)
  console.log(`  through the actor (echo.cmd → entity → priced → row-locked transaction): ${actorRate.toFixed(0)} trades/s  (${actorSeconds.toFixed(2)} s)`)
  console.log(`  baseline, direct SQL transactions with row locks (${SQL_CONCURRENCY} at once):  ${sqlRate.toFixed(0)} trades/s  (${sqlSeconds.toFixed(2)} s)`)
  const ratio = actorRate / sqlRate
  console.log(`  ratio actor / baseline: ${ratio.toFixed(2)}x`)
  console.log(`  target actor/baseline ≥ ${TARGET}×: ${ratio >= TARGET ? "met" : "NOT met"}`)
  console.log(`  POST /api/echo/trade × ${HTTP_REQUESTS} (${HTTP_CONCURRENCY} at once): p50 ${q(0.5).toFixed(1)} ms, p95 ${q(0.95).toFixed(1)} ms, p99 ${q(0.99).toFixed(1)} ms${failures ? `, ${failures} non-200` : ""}`)
} finally {
  await app.close()
}
