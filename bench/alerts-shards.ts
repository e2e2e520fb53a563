/**
 * bench:alerts with BENCH_SHARDS=N (issue 30 §4): the scale-out of the alert path over N actor processes. Twice, each
 * on a fresh database and Redis prefix seeded alike — BENCH_SUBS (100,000) whale_trade subscriptions of BENCH_USERS
 * (10,000) users on 300 tokens, thresholds from $100k to $12.8M — one worst-case block of BENCH_RECORDS (2,400)
 * records is published on `chain.tx`:
 *  1. one actor process, ALERT_SHARDS=1 (alert-fanout, alert-events, notifier: today's alert path);
 *  2. N actor processes, ALERT_SHARDS=N (alert-shards: each process holds one shard once they have spread).
 * Each process first handles a warm-up block (its index loaded, its hot paths compiled), then the CPU each uses (/proc, utime + stime) is
 * measured from the block published until every group of the path has handled everything (deliveries recorded and
 * sent on the console channel). Prints the CPU per process, the ratio of the busiest sharded process to the single
 * process, whether both runs recorded the same deliveries (same (alert, record) set, none missing, none doubled), the
 * p95 of block published → delivery recorded, and the machine-readable line
 * `alerts-shards: shards <N>, subscriptions <n>, per-process cpu ratio <x>, deliveries equal <yes|no>`.
 * Needs DATABASE_URL and REDIS_URL (the processes share them).
 */
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import Pg from "pg"
import { createClient } from "redis"
import { dropRedisPrefix, freshDatabase } from "../test/support/harness"
import { waitFor } from "../test/support/wait"
import { alertPathSettled, publish, shardHolders, spawnActors, type ActorsProcess } from "../test/faults/support/shards"
import { cpuMeter } from "./cpu"

const SHARDS = Number(process.env.BENCH_SHARDS ?? 4)
const SUBS = Number(process.env.BENCH_SUBS ?? 100_000)
const USERS = Number(process.env.BENCH_USERS ?? 10_000)
const RECORDS = Number(process.env.BENCH_RECORDS ?? 2400)
const TOKENS = Array.from({ length: 300 }, () => "0x" + randomBytes(20).toString("hex"))
const TS = new Date().toISOString()
const blockOf = (block: number, ts: string) => Array.from({ length: RECORDS }, (_, j) => ({
  messageId: `bench-shards-${block}-${j}`, id: null, tx_hash: "0x" + randomBytes(32).toString("hex"), log_index: j, block, ts,
  wallet: "0x" + randomBytes(20).toString("hex"), wallet_label: null, token: TOKENS[j % TOKENS.length]!, symbol: `TK${j % TOKENS.length}`,
  category: j % 2 === 0 ? "dex_buy" : "dex_sell", amount: "1000", usd: Math.round(10_000 * 2 ** (((j * 13) % 100) / 10)), price_usd: 1.5,
  counter_token: "0x" + "22".repeat(20), counter_symbol: "WETH", venue: "Uniswap V3", source: "internal"
}))

/**
 * The warm-up: a block of the same shape ten minutes of block time earlier (beyond every cooldown), so that each
 * process has loaded its index and compiled its hot paths before the measured block — the cost of a block when blocks
 * follow each other, not of a process's first one.
 */
const WARMUP = blockOf(19_499_950, new Date(Date.parse(TS) - 600_000).toISOString())
const RECORD_LIST = blockOf(19_500_000, TS)

/** The quiet window that measures each process's background rate. */
const IDLE_WINDOW_MS = 3_000
const databaseUrl = process.env.DATABASE_URL
const redisUrl = process.env.REDIS_URL

interface Run {
  /** Per process: what the block cost (gross less the process's background rate over the same time), and gross. */
  readonly cpuMs: ReadonlyArray<number>
  readonly grossMs: ReadonlyArray<number>
  readonly deliveries: ReadonlyArray<string>
  readonly p95Ms: number
  readonly wallMs: number
}

/** One run: a fresh database and prefix, `processes` actor processes with ALERT_SHARDS=`shards`, the block, its cost. */
const runOnce = async (shards: number, processes: number): Promise<Run> => {
  const db = await freshDatabase(databaseUrl!)
  const prefix = `bench-shards:${randomBytes(3).toString("hex")}:`
  const dataDir = mkdtempSync(join(tmpdir(), "whale-bench-shards-"))
  const env = {
    DATABASE_URL: db.url, REDIS_URL: redisUrl, REDIS_PREFIX: prefix, DATA_DIR: dataDir, LOG_LEVEL: "warn", MIGRATE_ON_START: "false",
    ALERT_SHARDS: String(shards), WHALE_ACTORS: shards === 1 ? "alert-fanout,alert-events,notifier" : "alert-shards",
    ALERTS_BUDGET_PER_HOUR: "100000", OPS_REPORT_MS: "5000"
  } as NodeJS.ProcessEnv
  const procs: Array<ActorsProcess> = []
  const pg = new Pg.Client({ connectionString: db.url })
  const redis = createClient({ url: redisUrl })
  try {
    await promisify(execFile)(process.execPath, ["--import", "tsx", "server/cli/migrate.ts"], { env: { ...process.env, ...env }, timeout: 120_000 })
    await pg.connect()
    await redis.connect()
    await pg.query(`INSERT INTO users (email, password_hash, email_verified_at)
      SELECT 'bench-' || g || '@example.com', 'x', now() FROM generate_series(1, $1::int) g`, [USERS])
    // Subscription g: its user, token (every tenth on any token) and threshold ($100k·2^0..7) drawn by hashing g, so that
    // none of them follows g's residue (a shard is user_id mod N: the shards get alike mixes of tokens and thresholds).
    await pg.query(`INSERT INTO alert_subscriptions (user_id, type, name, params, channels)
      SELECT first.id + abs(hashtext('u' || g)) % $3, 'whale_trade', 'bench-' || g,
             jsonb_build_object('token', CASE WHEN g % 10 = 0 THEN NULL ELSE ($2::text[])[abs(hashtext('t' || g)) % 300 + 1] END, 'side', 'any',
                                'min_usd', 100000 * (2 ^ (abs(hashtext('m' || g)) % 8))::int * CASE WHEN g % 10 = 0 THEN 8 ELSE 1 END),
             ARRAY['console']
      FROM generate_series(1, $1::int) g, (SELECT min(id) AS id FROM users) first`, [SUBS, TOKENS, USERS])
    for (let i = 0; i < processes; i++) procs.push(spawnActors(env))
    if (shards > 1) {
      await waitFor(async () => {
        const holders = await shardHolders(redis, prefix, shards)
        return holders.every((h) => h !== null) && new Set(holders).size === Math.min(shards, processes)
      }, 180_000, 200)
    }
    // Warm-up: every shard's index loaded and its path run once, every group created.
    await publish(redis, prefix, "chain.tx", WARMUP)
    await waitFor(() => alertPathSettled(redis, prefix, shards), 180_000, 200)
    // Each process's background rate (lease rounds, idle reads, reports) over a quiet window: subtracted below, as the
    // main bench does with the system's (on a loaded machine an idle process wakes more, and costs more).
    const idle = procs.map((p) => cpuMeter(() => [p.child.pid!]))
    const idleFrom = Date.now()
    await new Promise((r) => setTimeout(r, IDLE_WINDOW_MS))
    const idleRate = idle.map((m) => (m() ?? 0) / (Date.now() - idleFrom))
    const meters = procs.map((p) => cpuMeter(() => [p.child.pid!]))
    const published = Date.now()
    await publish(redis, prefix, "chain.tx", RECORD_LIST)
    await waitFor(() => alertPathSettled(redis, prefix, shards), 240_000, 100)
    const wallMs = Date.now() - published
    const grossMs = meters.map((m) => m() ?? 0)
    const cpuMs = grossMs.map((g, i) => Math.max(0, g - idleRate[i]! * wallMs))
    const rows = (await pg.query<{ alert_id: string; record_key: string; ms: number }>(
      `SELECT alert_id::text, record_key, extract(epoch FROM created_at) * 1000 - $1::float8 AS ms FROM alert_deliveries
       WHERE event_at = $2::timestamptz`, [published, TS])).rows
    const lat = rows.map((r) => Number(r.ms)).sort((a, b) => a - b)
    const p95Ms = lat.length === 0 ? 0 : lat[Math.min(lat.length - 1, Math.floor(lat.length * 0.95))]!
    return { cpuMs, grossMs, deliveries: rows.map((r) => `${r.alert_id}|${r.record_key}`), p95Ms, wallMs }
  } finally {
    for (const p of procs) p.child.kill("SIGTERM")
    await Promise.all(procs.map((p) => p.child.exitCode !== null ? undefined : new Promise((r) => p.child.once("exit", r))))
    await pg.end().catch(() => undefined)
    await redis.close().catch(() => undefined)
    await db.drop().catch(() => undefined)
    await dropRedisPrefix(redisUrl!, prefix).catch(() => undefined)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

export const benchShards = async () => {
  if (!databaseUrl || !redisUrl) throw new Error("BENCH_SHARDS needs DATABASE_URL and REDIS_URL (the processes share them)")
  if (!Number.isInteger(SHARDS) || SHARDS < 2 || SHARDS > 64) throw new Error(`BENCH_SHARDS must be an integer from 2 to 64, got ${process.env.BENCH_SHARDS}`)
  const load = () => loadavg().map((l) => l.toFixed(2)).join(" ")
  console.log(`bench:alerts BENCH_SHARDS=${SHARDS}: ${RECORDS} records × ${SUBS} subscriptions of ${USERS} users; load average ${load()}`)
  const one = await runOnce(1, 1)
  const secs = (xs: ReadonlyArray<number>) => xs.map((c) => (c / 1000).toFixed(2)).join(", ")
  console.log(`1 process, 1 shard: CPU ${secs(one.cpuMs)} s (gross ${secs(one.grossMs)} s); ${one.deliveries.length} deliveries; ` +
    `block published → delivery recorded p95 ${one.p95Ms.toFixed(0)} ms; all sent after ${one.wallMs} ms; load average ${load()}`)
  const many = await runOnce(SHARDS, SHARDS)
  const busiest = Math.max(...many.cpuMs)
  console.log(`${SHARDS} processes, ${SHARDS} shards: CPU per process ${secs(many.cpuMs)} s (gross ${secs(many.grossMs)} s) ` +
    `(sum ${(many.cpuMs.reduce((a, b) => a + b, 0) / 1000).toFixed(2)} s); ${many.deliveries.length} deliveries; ` +
    `block published → delivery recorded p95 ${many.p95Ms.toFixed(0)} ms; all sent after ${many.wallMs} ms; load average ${load()}`)
  const a = new Set(one.deliveries)
  const b = new Set(many.deliveries)
  const equal = a.size === one.deliveries.length && b.size === many.deliveries.length && a.size === b.size && [...a].every((k) => b.has(k))
  const ratio = busiest / Math.max(1, one.cpuMs[0]!)
  console.log(`busiest sharded process / single process CPU: ${ratio.toFixed(3)} (target ≤ ~1/3, i.e. 0.34: ${ratio <= 0.34 ? "met" : "NOT met"}); ` +
    `deliveries ${equal ? "equal" : `DIFFER (missing ${[...a].filter((k) => !b.has(k)).length}, extra ${[...b].filter((k) => !a.has(k)).length})`}`)
  console.log(`alerts-shards: shards ${SHARDS}, subscriptions ${SUBS}, per-process cpu ratio ${ratio.toFixed(3)}, deliveries equal ${equal ? "yes" : "no"}`)
}
