/**
 * `npm run bench:playbook`: 1,000,000 whale records over 120 days and 200 events (BENCH_RECORDS, BENCH_EVENTS), then
 *   - the metric computation of an event (its window, halves, 7-day baseline slots and 8 matched weeks: every span
 *     of Engine.compute) from the hourly roll-ups plus edge hours, against the same spans summed straight from the
 *     records — p50/p95 of each and their ratio, and a check that both give the same figures;
 *   - p50/p95 of each playbook read at the service level (HTTP overhead is bench:api's subject); the running-window
 *     reads (live, positioning) both computed (a new cache slot) and served within a slot.
 * Uses DATABASE_URL (a throw-away database beside it, dropped after), else the embedded PostgreSQL in memory.
 * Times are printed, never asserted. BENCH_ROUNDS (samples per read, default 20), BENCH_SAMPLE (events whose metrics are timed, 20).
 */
import { throwawayDatabase } from "./support"
import { SqlClient } from "@effect/sql"
import { Clock, ConfigProvider, Effect, Layer, Logger, LogLevel, ManagedRuntime } from "effect"
import { HIGH_SEVERITY } from "../schema/http/playbook"
import { Chain } from "../server/domains/chain/Chain"
import { ChainSourceLive } from "../server/domains/chain/SourceLive"
import { Engine } from "../server/domains/playbook/Engine"
import { FlowRepo } from "../server/domains/playbook/FlowRepo"
import { PlaybookLive } from "../server/domains/playbook/Layer"
import { Playbook } from "../server/domains/playbook/Playbook"
import { PlaybookReads } from "../server/domains/playbook/Reads"
import { PlaybookRepo } from "../server/domains/playbook/Repo"
import { baselineSlots, clip, eventWindow, matchedWeeks, shift, type Span, spanLength, WEEK_MS, windowSize } from "../server/domains/playbook/Spans"
import { AppConfig } from "../server/platform/Config"
import { SqlLive } from "../server/platform/infra/Sql"
import { BusAndKvLive } from "../server/platform/infra/BusAndKv"

const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000)
const EVENTS = Number(process.env.BENCH_EVENTS ?? 200)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20)
const DAYS = 120
const HOUR = 3_600_000

// A database of its own: never the one DATABASE_URL names.
const db = await throwawayDatabase("playbook")
const databaseUrl = db.databaseUrl
const env = {
  ...db.env, DB_POOL_SIZE: "4", PLAYBOOK_CALENDAR_FILE: "",
}
delete (env as Record<string, string | undefined>).REDIS_URL
const provider = Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env).filter((e): e is [string, string] => typeof e[1] === "string"))))
const Infra = Layer.mergeAll(SqlLive(), BusAndKvLive).pipe(Layer.provideMerge(AppConfig.Default))
const runtime = ManagedRuntime.make(
  PlaybookLive.pipe(Layer.provideMerge(Chain.Default.pipe(Layer.provide(ChainSourceLive))), Layer.provideMerge(Infra), Layer.provideMerge(Logger.minimumLogLevel(LogLevel.Warning)), Layer.provide(provider))
)
const run = <A, E>(e: Effect.Effect<A, E, any>) => runtime.runPromise(e as Effect.Effect<A, E, never>)

const now = Math.floor(Date.now() / HOUR) * HOUR + 17 * 60_000
const start = now - DAYS * 24 * HOUR

const percentile = (xs: Array<number>, q: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!
}
const time = async (f: () => Promise<unknown>, rounds = ROUNDS) => {
  const xs: Array<number> = []
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now()
    await f()
    xs.push(performance.now() - t0)
  }
  return { p50: percentile(xs, 0.5), p95: percentile(xs, 0.95) }
}
const ms = (x: number) => `${x.toFixed(1)} ms`.padStart(10)

try {
  console.log(`bench:playbook — ${databaseUrl ? "PostgreSQL (DATABASE_URL)" : "embedded PGlite"}, ${RECORDS.toLocaleString()} records over ${DAYS} days, ${EVENTS} events`)
  const t0 = performance.now()
  const CHUNK = 100_000
  for (let done = 0; done < RECORDS; done += CHUNK) {
    const n = Math.min(CHUNK, RECORDS - done)
    await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
      INSERT INTO whale_tx (tx_hash, log_index, wallet, token, symbol, category, amount, amount_raw, usd, price_usd, block_number, block_hash, ts, source)
      SELECT '0x' || lpad(to_hex(${done} + g), 64, '0'), 0, '0x' || lpad(to_hex(((${done} + g) * 7919) % 2000), 40, '0'),
        '0x' || lpad(to_hex(((${done} + g) * 104729) % 100), 40, '0'), 'T' || (((${done} + g) * 104729) % 100),
        (ARRAY['dex_buy','dex_sell','exchange_deposit','exchange_withdraw'])[1 + ((${done} + g) * 31) % 4],
        1, 1000000000000000000, round((random() * 50000)::numeric, 2), 1, 20000000 + (${done} + g) / 20, '0xb',
        to_timestamp((${start} + ((${done} + g)::float8 / ${RECORDS}) * ${now - start}) / 1000.0), 'replay'
      FROM generate_series(0::bigint, ${n - 1}::bigint) AS g`))
  }
  console.log(`  loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s (roll-up triggers included)`)
  // Statistics as autovacuum would have them after such a load (fresh tables without them get poor plans).
  await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ANALYZE whale_tx, whale_flow_hourly, whale_flow_daily, playbook_flow_hourly, playbook_wallet_numbers`))

  // 200 events: categories round-robin, minutes on the hour and at :30 or :37, from 9 weeks in to 30 days ahead.
  const cats = ["fomc", "cpi", "jobs", "etf", "unlock", "upgrade", "listing", "exploit", "other"] as const
  const from = start + 9 * WEEK_MS
  const to = now + 30 * 24 * HOUR
  const events = await run(Effect.flatMap(Playbook, (pb) =>
    Effect.forEach(Array.from({ length: EVENTS }, (_, i) => i), (i) => {
      const ts = Math.floor((from + ((to - from) * i) / EVENTS) / HOUR) * HOUR + [0, 30, 37][i % 3]! * 60_000
      return pb.create({ title: `Event ${i}`, category: cats[i % cats.length]!, timestamp: new Date(ts).toISOString(), severity: 1 + (i % 5), tokens: i % 4 === 0 ? ["T7"] : [] })
    })))
  const past = events.filter((e) => Date.parse(e.timestamp) + 48 * HOUR < now)
  // Half of the past events completed by an admin (final metrics cached).
  for (const e of past.filter((_, i) => i % 2 === 0)) {
    await run(Effect.flatMap(Playbook, (pb) => Effect.zipRight(pb.setStatus(e.id, "LIVE", "bench"), pb.setStatus(e.id, "COMPLETED", "bench"))))
  }
  console.log(`  ${events.length} events, ${past.length} past, ${Math.ceil(past.length / 2)} completed`)

  // Metric computation: every span Engine.compute reads, from the roll-ups and straight from the records.
  const spansOf = async (e: (typeof events)[number]) => {
    const w = eventWindow(Date.parse(e.timestamp), windowSize(e.category))
    const dataSince = await run(Effect.flatMap(FlowRepo, (f) => f.dataSince))
    const others = await run(Effect.flatMap(PlaybookRepo, (r) => r.highSeverityTimestamps(new Date(w.whole.from - 8 * WEEK_MS), new Date(w.whole.to), e.id, HIGH_SEVERITY)))
    const m = matchedWeeks(w.whole, others, dataSince)
    const spans: Array<Span> = []
    for (const p of [w.whole, w.pre, w.post].map((s) => clip(s, now)!)) {
      spans.push(p, ...baselineSlots(w.whole.from, spanLength(p), dataSince), ...m.weeks.map((k) => shift(p, -k * WEEK_MS)))
    }
    return spans
  }
  const sample = past.slice(0, Number(process.env.BENCH_SAMPLE ?? 20))
  const spanSets = await Promise.all(sample.map(spansOf))
  let i = 0
  const rollup = await time(() => run(Effect.flatMap(FlowRepo, (f) => f.figures(spanSets[i++ % spanSets.length]!))), spanSets.length)
  i = 0
  const records = await time(() => run(Effect.flatMap(FlowRepo, (f) => f.figures(spanSets[i++ % spanSets.length]!, null, "records"))), spanSets.length)
  let same = true
  for (const spans of spanSets.slice(0, 5)) {
    const [a, b] = await run(Effect.all([Effect.flatMap(FlowRepo, (f) => f.figures(spans)), Effect.flatMap(FlowRepo, (f) => f.figures(spans, null, "records"))]))
    a.forEach((x, k) => {
      const y = b[k]!
      if (x.records !== y.records || x.whales_active !== y.whales_active) same = false
      for (const f of ["dex_buy_usd", "dex_sell_usd", "exchange_deposit_usd", "exchange_withdraw_usd"] as const) if (Math.abs(x[f] - y[f]) > 0.01) same = false
    })
  }
  console.log(`\nmetric computation (${spanSets[0]!.length} spans per event, ${spanSets.length} events)`)
  console.log(`  roll-ups + edges   p50 ${ms(rollup.p50)}  p95 ${ms(rollup.p95)}`)
  console.log(`  straight records   p50 ${ms(records.p50)}  p95 ${ms(records.p95)}`)
  console.log(`  ratio (records / roll-ups): p50 ${(records.p50 / rollup.p50).toFixed(1)}×  p95 ${(records.p95 / rollup.p95).toFixed(1)}×   same figures: ${same ? "yes" : "NO"}`)

  const completed = past.filter((_, k) => k % 2 === 0)
  const open = past.filter((_, k) => k % 2 === 1)
  const at = <A, E>(e: Effect.Effect<A, E, any>, ms = now) => run(Effect.withClock(e, clockAt(ms)))
  // The event whose window holds `now` goes LIVE (the live panel's metrics are a running window).
  const running = events.find((e) => Date.parse(e.timestamp) - 24 * HOUR <= now && now < Date.parse(e.timestamp) + 48 * HOUR)
  if (running) await at(Effect.flatMap(Playbook, (pb) => pb.setStatus(running.id, "LIVE", "bench")))
  // Running computations are shared per slot of PLAYBOOK_RUNNING_CACHE_SECONDS (5): each "new slot" sample moves the
  // clock to the next slot (one computation), each "same slot" sample asks again within it (served from the memo).
  let slot = 0
  const nextSlot = () => now + ++slot * 5_000
  const pick = <T>(xs: ReadonlyArray<T>) => xs[Math.floor(Math.random() * xs.length)]!
  await at(Effect.flatMap(PlaybookReads, (r) => r.patterns())) // warms the metrics cache of past events
  const reads: Array<[string, () => Promise<unknown>]> = [
    ["GET events", () => at(Effect.flatMap(Playbook, (p) => p.list({ limit: 50 })))],
    ["GET past-events", () => at(Effect.flatMap(Playbook, (p) => p.past({ limit: 200, offset: 0 })))],
    ["GET events/{id} (completed)", () => at(Effect.flatMap(Playbook, (p) => p.detail(pick(completed).id)))],
    ["GET events/{id} (past, cached)", () => at(Effect.flatMap(Playbook, (p) => p.detail(pick(open).id)))],
    ["GET events/{id}/flow?bucket=60", () => at(Effect.flatMap(PlaybookReads, (r) => r.flow(pick(past).id, 60)))],
    ["GET events/{id}/flow?bucket=5", () => at(Effect.flatMap(PlaybookReads, (r) => r.flow(pick(past).id, 5)))],
    ["GET live (new slot: computed)", () => at(Effect.flatMap(PlaybookReads, (r) => r.live()), nextSlot())],
    ["GET live (same slot: memo)", () => at(Effect.flatMap(PlaybookReads, (r) => r.live()), now + slot * 5_000)],
    ["GET patterns", () => at(Effect.flatMap(PlaybookReads, (r) => r.patterns()))],
    ["GET impact", () => at(Effect.flatMap(PlaybookReads, (r) => r.impact(20)))],
    ["GET positioning (new slot: computed)", () => at(Effect.flatMap(PlaybookReads, (r) => r.positioning(30)), nextSlot())],
    ["GET positioning (same slot: memo)", () => at(Effect.flatMap(PlaybookReads, (r) => r.positioning(30)), now + slot * 5_000)],
    ["GET confluence", () => at(Effect.flatMap(PlaybookReads, (r) => r.confluence(14)))],
    ["GET search?q&sort=impact", () => at(Effect.flatMap(PlaybookReads, (r) => r.search({ q: "event", sort: "impact", limit: 20 })))],
    ["GET compare", () => at(Effect.flatMap(PlaybookReads, (r) => r.compare(pick(completed).id, pick(open).id)))],
    ["GET events/{id}/recovery", () => at(Effect.flatMap(PlaybookReads, (r) => r.recovery(pick(past).id)))],
    ["GET events/{id}/signals", () => at(Effect.flatMap(PlaybookReads, (r) => r.signals(pick(past).id)))],
    ["GET events/{id}/fastest", () => at(Effect.flatMap(PlaybookReads, (r) => r.fastest(pick(past).id, 10)))],
    ["Engine.compute (one event, uncached)", () => {
      const e = pick(past)
      return at(Effect.flatMap(Engine, (en) => en.compute({ id: e.id, ts: Date.parse(e.timestamp), category: e.category }, now, {})))
    }]
  ]
  console.log(`\nreads (service level, ${ROUNDS} samples each; live: ${running ? `event ${running.id} LIVE` : "no running window"})`)
  for (const [name, f] of reads) {
    const r = await time(f)
    console.log(`  ${name.padEnd(36)} p50 ${ms(r.p50)}  p95 ${ms(r.p95)}`)
  }
} finally {
  await runtime.dispose()
  await db.drop()
}

function clockAt(ms: number): Clock.Clock {
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => ms,
    currentTimeMillis: Effect.sync(() => ms),
    unsafeCurrentTimeNanos: () => BigInt(ms) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => BigInt(ms) * 1_000_000n),
    sleep: () => Effect.void
  }
}
