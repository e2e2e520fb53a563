/**
 * `npm run bench:backtest`: one backtest over 10,000 graded picks and two years of prices, as `POST /api/backtest/run`
 * computes it (the Backtest service: one query for the picks with their first priced exit, one for the ETH closes,
 * the pure engine in memory), against a naive per-pick query loop that fetches each pick's prices, its first exit and
 * the ETH price at its entry one query at a time and then runs the same engine. Both must give the same result
 * (checked). Prints the median and p95 of each and the ratio of medians; never asserts times. Uses DATABASE_URL (a
 * throw-away database beside it, dropped after) or the embedded PostgreSQL. BENCH_PICKS (10000), BENCH_RUNS (15),
 * BENCH_NAIVE_RUNS (3).
 */
import { throwawayDatabase } from "./support"
import { SqlClient } from "@effect/sql"
import { ConfigProvider, Effect, Layer, Logger, LogLevel, ManagedRuntime } from "effect"
import Pg from "pg"
import { Backtest } from "../server/domains/backtest/Backtest"
import { type BacktestPick, runBacktest } from "../server/domains/backtest/Engine"
import { Chain } from "../server/domains/chain/Chain"
import { ChainSourceLive } from "../server/domains/chain/SourceLive"
import { DAY_MS, marks } from "../server/domains/picks/Rules"
import { AppConfig } from "../server/platform/Config"
import { BusMemory } from "../server/platform/infra/BusMemory"
import { SqlLive } from "../server/platform/infra/Sql"
import type { BacktestRequest } from "../schema/http/backtest"

const PICKS = Number(process.env.BENCH_PICKS ?? 10_000)
const RUNS = Number(process.env.BENCH_RUNS ?? 15)
const NAIVE_RUNS = Number(process.env.BENCH_NAIVE_RUNS ?? 3)
const START = Date.parse("2024-01-01T00:00:00Z")
const SPAN_DAYS = 730

const admin = async (url: string, statement: string) => {
  const client = new Pg.Client({ connectionString: url })
  await client.connect()
  await client.query(statement)
  await client.end()
}
// A database of its own: never the one DATABASE_URL names.
const db = await throwawayDatabase("backtest")
const databaseUrl = db.databaseUrl
const env = { ...db.env, DB_POOL_SIZE: "4", PICKS_CACHE_SECONDS: "0" }
const config = AppConfig.Default.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env) as Array<[string, string]>)))))
const runtime = ManagedRuntime.make(
  Backtest.Default.pipe(
    Layer.provideMerge(Chain.Default.pipe(Layer.provide(ChainSourceLive))),
    Layer.provideMerge(Layer.mergeAll(SqlLive(), BusMemory.layer)),
    Layer.provideMerge(config),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env) as Array<[string, string]>)))),
    Layer.provideMerge(Logger.minimumLogLevel(LogLevel.Warning))
  )
)
const sql = <T extends object>(text: string, params: ReadonlyArray<unknown> = []) =>
  runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (s) => s.unsafe<T>(text, params as Array<never>)).pipe(Effect.map((r) => [...r])))

try {
  // ---- data: 10,000 graded picks over two years on 200 tokens, 4 prices a day in each pick's 7 days, first exits for
  // two picks in three, and 760 daily ETH closes. Deterministic formulas, no randomness.
  const t0 = Date.now()
  const step = (SPAN_DAYS * 86_400) / PICKS
  await sql(`INSERT INTO picks (token, symbol, flagged_at, flag_record, entry_price, whales, flaggers, flag_usd, conviction, inputs, status,
      close_price, close_return, peak_return, max_adverse, day_closes, exited_before_close, graded_at, published_at)
    SELECT '0x' || lpad(to_hex(i % 200), 40, '0'), 'T' || (i % 200), $1::timestamptz + make_interval(secs => i * $2::float8), 'bench:' || i,
      1 + (i % 17) / 10.0, 3 + i % 5, ARRAY['0xa', '0xb', '0xc'], 100000, (i * 37) % 100, '{}'::jsonb, 'GRADED',
      (1 + (i % 17) / 10.0) * (1 + ((i * 7 + 91) % 41 - 20) / 100.0), ((i * 7 + 91) % 41 - 20) / 100.0, 0.3, -0.1,
      ARRAY(SELECT (1 + (i % 17) / 10.0) * (1 + ((i * 7 + d * 13) % 41 - 20) / 100.0) FROM generate_series(1, 7) d),
      i % 3 <> 0, $1::timestamptz + make_interval(secs => i * $2::float8) + interval '7 days', now()
    FROM generate_series(0, ${PICKS - 1}) i`, [new Date(START), step])
  // Price points: at flag + k × 6 h, k = 1..28, the day's close at each whole day (so both paths see the same closes).
  await sql(`INSERT INTO pick_records (tx_hash, log_index, wallet, token, symbol, category, amount, usd, price_usd, ts)
    SELECT 'bench:' || p.id || ':' || k, 0, '0xa', p.token, p.symbol, 'dex_buy', 1, p.day_closes[ceil(k / 4.0)::int],
      p.day_closes[ceil(k / 4.0)::int], p.flagged_at + make_interval(hours => (k * 6)::int)
    FROM picks p CROSS JOIN generate_series(1, 28) k`)
  await sql(`INSERT INTO pick_exits (pick_id, wallet, ts, day_offset, hours, price, move, route, record)
    SELECT id, '0xa', flagged_at + make_interval(hours => ((id % 6 + 1) * 20)::int), ((id % 6 + 1) * 20) / 24, (id % 6 + 1) * 20,
      entry_price * 1.05, 0.05, 'dex_sell', 'bench'
    FROM picks WHERE id % 3 <> 0`)
  await sql(`INSERT INTO pick_eth_daily (day, close, close_ts)
    SELECT ($1::date + d), 2000 + 500 * sin(d / 40.0), ($1::date + d)::timestamptz + interval '23 hours'
    FROM generate_series(0, ${SPAN_DAYS + 30}) d`, [new Date(START).toISOString().slice(0, 10)])
  await sql("ANALYZE")
  const [{ n }] = (await sql<{ n: number }>("SELECT count(*)::int AS n FROM pick_records")) as [{ n: number }]
  console.log(`data: ${PICKS} graded picks, ${n} price records, ${SPAN_DAYS} days (${((Date.now() - t0) / 1000).toFixed(1)} s to load)`)

  const request: BacktestRequest = {
    from: "2024-01-01", to: "2025-12-30", min_flaggers: 3, min_conviction: 0, tokens: [], exit: { rule: "first_exit", max_days: 7 },
    sizing: { mode: "fixed", usd: 1000 }, initial_capital: 1_000_000, costs: { fee_bps: 30, slippage_bps: 50, gas_usd: 5 }
  }
  const from = Date.parse(`${request.from}T00:00:00Z`)
  const to = Date.parse(`${request.to}T00:00:00Z`) + DAY_MS
  const params = {
    from, to, minWhales: 3, minConviction: 0, tokens: [], exit: request.exit, sizing: request.sizing, initialCapital: request.initial_capital,
    feeBps: 30, slippageBps: 50, gasUsd: 5
  }

  const ours = () => runtime.runPromise(Effect.flatMap(Backtest, (b) => b.run(request)))

  // The naive loop: the list of picks, then per pick its prices, its first exit and the ETH price at its entry.
  const naive = async () => {
    const list = await sql<{ id: number; token: string; symbol: string; flagged_at: Date; whales: number; conviction: number; entry_price: number }>(
      "SELECT id, token, symbol, flagged_at, whales, conviction, entry_price FROM picks WHERE status = 'GRADED' AND flagged_at >= $1 AND flagged_at < $2 ORDER BY flagged_at, id",
      [new Date(from), new Date(to)])
    const picks: Array<BacktestPick> = []
    const eth: Array<{ ts: number; price: number }> = []
    for (const p of list) {
      const f = p.flagged_at.getTime()
      const points = await sql<{ ts: Date; price_usd: number }>(
        "SELECT ts, price_usd FROM pick_records WHERE token = $1 AND ts > $2 AND ts <= $3 AND price_usd > 0 ORDER BY ts",
        [p.token, p.flagged_at, new Date(f + 7 * DAY_MS)])
      const [exit] = await sql<{ ts: Date; price: number }>("SELECT ts, price FROM pick_exits WHERE pick_id = $1 AND price > 0 ORDER BY ts, wallet LIMIT 1", [p.id])
      const [e] = await sql<{ close_ts: Date; close: number }>("SELECT close_ts, close FROM pick_eth_daily WHERE close_ts <= $1 ORDER BY day DESC LIMIT 1", [p.flagged_at])
      if (e) eth.push({ ts: e.close_ts.getTime(), price: e.close })
      const m = marks(f, points.map((x) => ({ ts: x.ts.getTime(), price: x.price_usd })), f + 7 * DAY_MS)
      picks.push({ id: p.id, symbol: p.symbol, flaggedAt: f, whales: p.whales, conviction: p.conviction, entryPrice: p.entry_price,
        dayCloses: m.dayCloses, firstExit: exit ? { ts: exit.ts.getTime(), price: exit.price } : null })
    }
    const closes = await sql<{ close_ts: Date; close: number }>("SELECT close_ts, close FROM pick_eth_daily ORDER BY day")
    return runBacktest(picks, params, closes.map((c) => ({ ts: c.close_ts.getTime(), price: c.close })))
  }

  const time = async <A>(f: () => Promise<A>) => {
    const t = performance.now()
    const a = await f()
    return { ms: performance.now() - t, a }
  }
  const stats = (xs: ReadonlyArray<number>) => {
    const s = [...xs].sort((a, b) => a - b)
    return { median: s[Math.floor((s.length - 1) / 2)]!, p95: s[Math.min(s.length - 1, Math.ceil(0.95 * s.length) - 1)]! }
  }

  await ours() // warm-up
  const oursMs: Array<number> = []
  let result: Awaited<ReturnType<typeof ours>> | undefined
  for (let i = 0; i < RUNS; i++) {
    const r = await time(ours)
    oursMs.push(r.ms)
    result = r.a
  }
  const naiveMs: Array<number> = []
  let naiveResult: Awaited<ReturnType<typeof naive>> | undefined
  for (let i = 0; i < NAIVE_RUNS; i++) {
    const r = await time(naive)
    naiveMs.push(r.ms)
    naiveResult = r.a
  }
  const same = result!.metrics.total_return === naiveResult!.metrics.total_return && result!.trades.length === naiveResult!.trades.length &&
    result!.metrics.max_drawdown === naiveResult!.metrics.max_drawdown
  const o = stats(oursMs)
  const nv = stats(naiveMs)
  console.log(`trades: ${result!.trades.length}, total return ${result!.metrics.total_return}, same result in both paths: ${same ? "yes" : "NO"}`)
  console.log(`ours  (${RUNS} runs): median ${o.median.toFixed(1)} ms, p95 ${o.p95.toFixed(1)} ms`)
  console.log(`naive (${NAIVE_RUNS} runs): median ${nv.median.toFixed(1)} ms, p95 ${nv.p95.toFixed(1)} ms`)
  console.log(`ratio (naive / ours, medians): ${(nv.median / o.median).toFixed(1)}×   targets: ≥ 20× ${nv.median / o.median >= 20 ? "met" : "NOT met"}, p95 ≤ 2 s ${o.p95 <= 2000 ? "met" : "NOT met"}`)
} finally {
  await runtime.dispose()
  await db.drop()
}
