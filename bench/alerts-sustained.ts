/**
 * bench:alerts with BENCH_BLOCKS=N (N > 1): N worst-case blocks stored and published one block interval apart, as a
 * node would hand them over, against the same subscriptions and sinks as the one-block run (bench/alerts.ts). Prints
 * per block the record alerts' p50/p95 (block stored → sent, console and webhook) and the event alerts' p95, the
 * backlog when the next block came (deliveries owed on console and webhook: messenger is paced by the Bot API's limits
 * by design and is shown apart), per channel over all blocks, and the CPU per block (app, PostgreSQL, Redis; the
 * sinks stand for other people's servers) against the budget: two thirds of (block interval × cores).
 * Ends with `alerts-sustained: blocks <N>, cpu per block <s> of budget <s>, backlog at end <n>, record p95 <ms>`.
 */
import { availableParallelism } from "node:os"
import { Effect } from "effect"
import { STREAMS, type ChainTxMessage } from "../schema/streams"
import { ChainRepo } from "../server/domains/chain/Repo"
import type { WhaleRecord } from "../server/domains/chain/Types"
import { Bus } from "../server/platform/infra/Bus"
import type { startApp } from "../test/support/harness"
import { causedCpu, cpuMeter, idleRates, pidsOf, ratesText } from "./cpu"

type App = Awaited<ReturnType<typeof startApp>>
const BLOCKS = Math.max(1, Number(process.env.BENCH_BLOCKS ?? 1))
const BLOCK_MS = Number(process.env.BENCH_BLOCK_MS ?? 12_000)
const RECORD_TYPES = new Set(["whale_trade", "exchange_flow", "wallet_activity", "convergence"])
const OWED = "('pending', 'sending', 'retrying')"

/** Console and webhook sends owed for deliveries after `after` (messenger: paced by design, not counted). */
export const owedNow = async (app: App, after: number) => {
  const [r] = await app.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM alert_delivery_channels WHERE delivery_id > $1 AND status IN ${OWED} AND channel <> 'messenger'`, [after])
  return r!.n
}

const quantile = (xs: ReadonlyArray<number>, q: number) => {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!
}
const ms = (x: number) => (Number.isNaN(x) ? "—" : `${x.toFixed(0)} ms`)
const sleepUntil = (at: number) => new Promise((r) => setTimeout(r, Math.max(0, at - Date.now())))

export interface SustainedInput {
  readonly app: App
  readonly run: <A>(e: Effect.Effect<A, unknown, any>) => Promise<A>
  readonly blockOf: (b: number) => { readonly ts: Date; readonly records: Array<WhaleRecord>; readonly messages: Array<ChainTxMessage> }
  readonly first: { readonly ts: Date; readonly records: Array<WhaleRecord>; readonly messages: Array<ChainTxMessage> }
  /** The last delivery id before the first block. */
  readonly lastBefore: number
  readonly alertPid: number | null
}

export const sustained = async ({ app, run, blockOf, first, lastBefore, alertPid }: SustainedInput) => {
  const blocks = [first, ...Array.from({ length: BLOCKS - 1 }, (_, i) => blockOf(i + 1))]
  const ownBefore = process.cpuUsage()
  const meters = { alert: alertPid ? cpuMeter(() => [alertPid]) : () => 0, postgres: cpuMeter(() => pidsOf("postgres")), redis: cpuMeter(() => pidsOf("redis-server")) }
  /** CPU ms of the app (this process and the alert process, if any). */
  const cpuApp = () => {
    const own = process.cpuUsage(ownBefore)
    return (own.user + own.system) / 1000 + (meters.alert() ?? 0)
  }
  const cpuNow = () => (cpuApp() + (meters.postgres() ?? 0) + (meters.redis() ?? 0)) / 1000
  // The system's background CPU with no block, to subtract from what the blocks' time used.
  const idleParts = await idleRates(() => ({ app: cpuApp(), PostgreSQL: meters.postgres() ?? 0, Redis: meters.redis() ?? 0 }))
  const idle = idleParts.app + idleParts.PostgreSQL + idleParts.Redis
  const cpuStart = cpuNow()
  console.log(`sustained: ${BLOCKS} blocks of ${first.records.length} records, one every ${BLOCK_MS / 1000} s`)
  const t0 = Date.now() + 200
  const storedAt: Array<number> = []
  const backlog: Array<number> = []
  for (let b = 0; b < blocks.length; b++) {
    await sleepUntil(t0 + b * BLOCK_MS)
    if (b > 0) backlog.push(await owedNow(app, lastBefore))
    const block = blocks[b]!
    await run(Effect.flatMap(ChainRepo, (repo) => repo.insertRecords(block.records, "demo")).pipe(Effect.provide(ChainRepo.Default)))
    storedAt.push(Date.now())
    await run(Effect.flatMap(Bus, (bus) => bus.publishMany(STREAMS.chainTx, block.messages)))
  }
  await sleepUntil(t0 + blocks.length * BLOCK_MS)
  const backlogEnd = await owedNow(app, lastBefore)
  const cpuAtEnd = cpuNow() - cpuStart
  // Then until everything is sent (messenger's pacing included), for the per-channel figures.
  const deadline = Date.now() + 300_000
  while (Date.now() < deadline) {
    const [r] = await app.query<{ owed: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM alert_delivery_channels WHERE delivery_id > $1 AND status IN ${OWED}) AS owed`, [lastBefore])
    if (!r!.owed) break
    await new Promise((res) => setTimeout(res, 1000))
  }
  const cpuAll = cpuNow() - cpuStart
  const allSentAt = Date.now()

  // Each send: its delivery's type and event time (the block's time for the record alerts), its channel, when sent.
  const rows = await app.query<{ type: string; event_ms: number; channel: string; sent_ms: number }>(
    `SELECT d.type, (extract(epoch FROM d.event_at) * 1000)::float8 AS event_ms, c.channel, (extract(epoch FROM c.delivered_at) * 1000)::float8 AS sent_ms
     FROM alert_deliveries d JOIN alert_delivery_channels c ON c.delivery_id = d.id WHERE d.id > $1 AND c.status = 'sent'`, [lastBefore])
  const blockTimes = blocks.map((b) => b.ts.getTime())
  /** The block a send belongs to: the last block whose time is at or before its event. */
  const blockOfEvent = (at: number) => {
    let k = 0
    for (let i = 0; i < blockTimes.length; i++) if (blockTimes[i]! <= at + 1) k = i
    return k
  }
  const per = blocks.map(() => ({ record: [] as Array<number>, event: [] as Array<number> }))
  const perChannel = new Map<string, Array<number>>()
  for (const r of rows) {
    const k = blockOfEvent(r.event_ms)
    const latency = r.sent_ms - storedAt[k]!
    if (r.channel !== "messenger") (RECORD_TYPES.has(r.type) ? per[k]!.record : per[k]!.event).push(latency)
    const key = `${r.channel}${RECORD_TYPES.has(r.type) ? " record" : " event"}`
    perChannel.set(key, [...(perChannel.get(key) ?? []), latency])
  }
  console.log("block   record p50   record p95   event p95   sends   backlog at the next block")
  per.forEach((p, k) => {
    const next = k < backlog.length ? String(backlog[k]) : `${backlogEnd} (end)`
    console.log(`  ${String(k + 1).padStart(3)}  ${ms(quantile(p.record, 0.5)).padStart(10)}  ${ms(quantile(p.record, 0.95)).padStart(10)}  ${ms(quantile(p.event, 0.95)).padStart(10)}  ${String(p.record.length + p.event.length).padStart(6)}   ${next}`)
  })
  console.log("per channel, all blocks        p50        p95     count")
  for (const [key, xs] of [...perChannel.entries()].sort()) {
    console.log(`  ${key.padEnd(24)} ${ms(quantile(xs, 0.5)).padStart(9)}  ${ms(quantile(xs, 0.95)).padStart(9)}  ${String(xs.length).padStart(8)}`)
  }
  const budget = (BLOCK_MS / 1000) * availableParallelism() * (2 / 3)
  // Everything the blocks caused, until the last send: the work a block costs, wherever it fell (a backlog's too),
  // less the background the system uses with no block over the same time.
  const windowS = (allSentAt - t0) / 1000
  const caused = causedCpu(cpuAll, windowS, idle)
  const perBlock = caused.seconds / blocks.length
  console.log(`CPU (app, PostgreSQL, Redis) until all was sent: ${caused.text} (background by part: ${ratesText(idleParts)}); ${perBlock.toFixed(2)} s a block (budget ${budget.toFixed(2)} s = 2/3 × ${BLOCK_MS / 1000} s × ${availableParallelism()} cores: ${perBlock <= budget ? "met" : "NOT met"}); ${cpuAtEnd.toFixed(1)} s used within the ${blocks.length} intervals`)
  const recordAll = per.flatMap((p) => p.record)
  console.log(`alerts-sustained: blocks ${blocks.length}, cpu per block ${perBlock.toFixed(2)} s of budget ${budget.toFixed(2)} s, backlog at end ${backlogEnd}, record p95 ${quantile(recordAll, 0.95).toFixed(0)} ms`)
}
