/**
 * Helpers of the sharded alert path's fault test and benchmark (test/faults/shard-kill.test.ts, bench/alerts-shards.ts):
 * a scenario seeded straight into the database (users, one whale_trade alert per token), a block of records on
 * `chain.tx` (XADD, as the bus writes them: one field `p`, the JSON payload), real `actors` processes of the program,
 * and what Redis says of the shards' leases and groups.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import type Pg from "pg"
import type { createClient } from "redis"

type Redis = ReturnType<typeof createClient>

const hex = (n: number) => "0x" + randomBytes(n).toString("hex")

/**
 * `users` free-tier users with `perUser` whale_trade alerts each, alert j on token j (min_usd 0): record j of a block
 * on token j matches exactly alert j. Returns the tokens, in alert order.
 */
export const seedAlerts = async (pg: Pg.Client, users: number, perUser: number): Promise<ReadonlyArray<string>> => {
  const tokens = Array.from({ length: users * perUser }, () => hex(20))
  await pg.query(`INSERT INTO users (email, password_hash, email_verified_at)
    SELECT 'shard-' || g || '@example.com', 'x', now() FROM generate_series(1, $1::int) g`, [users])
  const ids = (await pg.query<{ id: string }>("SELECT id::text FROM users WHERE email LIKE 'shard-%' ORDER BY id")).rows.map((r) => r.id)
  for (let from = 0; from < tokens.length; from += 5_000) {
    const part = tokens.slice(from, from + 5_000)
    await pg.query(`INSERT INTO alert_subscriptions (user_id, type, name, params, channels)
      SELECT u, 'whale_trade', 'token-' || t, jsonb_build_object('token', t, 'side', 'any', 'min_usd', 0), ARRAY['console']
      FROM unnest($1::bigint[], $2::text[]) AS x(u, t)`, [part.map((_, i) => ids[Math.floor((from + i) / perUser)]), part])
  }
  return tokens
}

/** A block's records (one block time), record j a buy of token j. */
export const blockRecords = (tokens: ReadonlyArray<string>, block: number) => {
  const ts = new Date().toISOString()
  return tokens.map((token, j) => ({
    messageId: `shard-${block}-${j}`, id: null, tx_hash: hex(32), log_index: j, block, ts, wallet: hex(20), wallet_label: null,
    token, symbol: `TK${j}`, category: j % 2 === 0 ? "dex_buy" : "dex_sell", amount: "1000", usd: 50_000 + j, price_usd: 1.5,
    counter_token: "0x" + "22".repeat(20), counter_symbol: "WETH", venue: "Uniswap V3", source: "internal"
  }))
}

/** Publishes payloads on a stream as the bus does (a pipeline of XADDs). */
export const publish = async (redis: Redis, prefix: string, stream: string, payloads: ReadonlyArray<unknown>) => {
  for (let i = 0; i < payloads.length; i += 1_000) {
    const multi = redis.multi()
    for (const p of payloads.slice(i, i + 1_000)) multi.xAdd(`${prefix}${stream}`, "*", { p: JSON.stringify(p) })
    await multi.exec()
  }
}

export interface ActorsProcess {
  readonly child: ChildProcess
  readonly output: () => string
}

/** A process of the real program with the `actors` role (the extra environment wins). */
export const spawnActors = (env: NodeJS.ProcessEnv): ActorsProcess => {
  const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], { env: { ...process.env, WHALE_ROLES: "actors", ...env }, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  child.stdout!.on("data", (d) => (output = (output + d.toString()).slice(-20_000)))
  child.stderr!.on("data", (d) => (output = (output + d.toString()).slice(-20_000)))
  return { child, output: () => output.slice(-3_000) }
}

/** The pid holding each shard's lease (null: free), from the holder's instance name (`host-pid-random`). */
export const shardHolders = async (redis: Redis, prefix: string, shards: number): Promise<Array<number | null>> => {
  const out: Array<number | null> = []
  for (let k = 0; k < shards; k++) {
    const holder = await redis.get(`${prefix}lease:lease:alert-fanout:${k}`)
    const pid = holder === null ? null : /-(\d+)-[0-9a-f]+$/.exec(holder)?.[1]
    out.push(pid == null ? null : Number(pid))
  }
  return out
}

/** The groups of a sharded alert path: each shard's fan-out (chain.tx, domain.events) and notifier (notify.<k>). */
export const shardGroups = (shards: number): ReadonlyArray<readonly [string, string]> =>
  Array.from({ length: shards }, (_, k) => shards === 1
    ? [["chain.tx", "alert-fanout"], ["domain.events", "alert-events"], ["notify", "notifier"]] as const
    : [["chain.tx", `alert-fanout.${k}`], ["domain.events", `alert-events.${k}`], [`notify.${k}`, "notifier"]] as const).flat()

/** Lag and pending of a group (null when the stream or the group does not exist yet). */
export const groupState = async (redis: Redis, prefix: string, stream: string, group: string) => {
  const groups = (await redis.sendCommand(["XINFO", "GROUPS", `${prefix}${stream}`]).catch(() => [])) as Array<Array<unknown>>
  for (const g of groups) {
    const fields = new Map<string, unknown>()
    for (let i = 0; i < g.length; i += 2) fields.set(String(g[i]), g[i + 1])
    if (fields.get("name") === group) return { lag: Number(fields.get("lag") ?? 0), pending: Number(fields.get("pending") ?? 0) }
  }
  return null
}

/** Whether every group of the chain.tx/notify path has handled all that was published (the event groups may not exist). */
export const alertPathSettled = async (redis: Redis, prefix: string, shards: number) => {
  for (const [stream, group] of shardGroups(shards)) {
    const s = await groupState(redis, prefix, stream, group)
    if (stream === "domain.events") continue
    if (s === null || s.lag > 0 || s.pending > 0) return false
  }
  return true
}
