/**
 * A fan-out process killed (SIGKILL) mid-block with the subscription index in four shards (ALERT_SHARDS=4, issue 30
 * §5): four processes of the real program run the alert-shards actor, one shard each, on a fresh database and Redis
 * prefix. Every record of a block matches exactly one alert (alert j watches token j), so the block's deliveries are
 * known. The first half of the block is published; once the victim's shard has recorded some of its deliveries it is
 * killed (no clean release: its lease has to run out) and the second half is published. Afterwards: the victim's shard
 * went to a live process within the lease time, every shard's groups settled (its fan-out on chain.tx and its notifier
 * on notify.<k>, the dead consumer's pending entries taken over), and every matching delivery is recorded exactly once.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { recordId } from "../../schema/records"
import { shardOf } from "../../server/domains/alerts/matching/Shard"
import { realRedisUrl, skipWithout } from "../support/env"
import { waitFor } from "../support/wait"
import { closeFaultWorld, openFaultWorld, type FaultWorld } from "./support/world"
import { alertPathSettled, blockRecords, publish, seedAlerts, shardHolders, spawnActors, type ActorsProcess } from "./support/shards"

const skip = skipWithout("DATABASE_URL") || skipWithout("REDIS_URL") || Boolean(process.env.WHALE_TEST_EMBEDDED)
const SHARDS = 4
/** Short, so the test is quick; the product default is 15 s (ACTOR_LEASE_TTL_MS). */
const LEASE_MS = Number(process.env.FAULT_LEASE_MS ?? 3_000)
/** What the takeover may take beyond the dead holder's lease: a round of the sharded lease loop and a loaded machine. */
const REACTION_ALLOWANCE_MS = 3_000
const USERS = 400
const PER_USER = 10
const prefix = `fault-shards:${randomBytes(3).toString("hex")}:`
const dataDir = mkdtempSync(join(tmpdir(), "whale-fault-shards-"))
const procs: Array<ActorsProcess> = []
let db: FaultWorld["db"]
let pg: FaultWorld["pg"]
let redis: FaultWorld["redis"]

const env = (url = db.url) => ({
  DATABASE_URL: url, REDIS_URL: realRedisUrl, REDIS_PREFIX: prefix, DATA_DIR: dataDir, LOG_LEVEL: "warn", MIGRATE_ON_START: "false",
  WHALE_ACTORS: "alert-shards", ALERT_SHARDS: String(SHARDS), ACTOR_LEASE_TTL_MS: String(LEASE_MS), ACTOR_CLAIM_IDLE_MS: "1000",
  ACTOR_BLOCK_MS: "100", OPS_REPORT_MS: "1000", ALERTS_BUDGET_PER_HOUR: "100000"
}) as NodeJS.ProcessEnv

beforeAll(async () => {
  if (skip) return
  ;({ db, pg, redis } = await openFaultWorld(env))
}, 90_000)
afterAll(async () => {
  for (const { child } of procs) child.kill("SIGKILL")
  await closeFaultWorld({ db, pg, redis }, prefix)
  rmSync(dataDir, { recursive: true, force: true })
}, 30_000)

const diagnostics = async () =>
  `holders ${JSON.stringify(await shardHolders(redis, prefix, SHARDS))}\n` + procs.map((p) => `--- ${p.child.pid} ---\n${p.output()}`).join("\n")
const fail = (what: string) => async (e: unknown) => {
  throw new Error(`${what}: ${e}: ${await diagnostics()}`)
}

it.skipIf(skip)(`moves a killed process's shard to a live one within the lease time (${LEASE_MS} ms) and records every matching delivery exactly once`, async () => {
  const tokens = await seedAlerts(pg, USERS, PER_USER)
  const ownerOf = new Map((await pg.query<{ id: string; user_id: string; name: string }>("SELECT id::text, user_id::text, name FROM alert_subscriptions")).rows
    .map((r) => [r.name.slice("token-".length), { alert: r.id, user: Number(r.user_id) }]))
  for (let i = 0; i < SHARDS; i++) procs.push(spawnActors(env()))
  // The shards spread: each process holds one.
  await waitFor(async () => {
    const holders = await shardHolders(redis, prefix, SHARDS)
    return holders.every((h) => h !== null) && new Set(holders).size === SHARDS
  }, 90_000, 100).catch(fail("the shards did not spread over the four processes"))
  const holders = await shardHolders(redis, prefix, SHARDS)
  const victimShard = 1
  const victim = procs.find((p) => p.child.pid === holders[victimShard])!
  const survivors = procs.filter((p) => p !== victim).map((p) => p.child.pid!)
  const victimAlerts = tokens.filter((t) => shardOf(ownerOf.get(t)!.user, SHARDS) === victimShard).map((t) => ownerOf.get(t)!.alert)
  const victimRecorded = async () => Number((await pg.query<{ n: string }>(
    "SELECT count(*)::text AS n FROM alert_deliveries WHERE alert_id = ANY($1::bigint[])", [victimAlerts])).rows[0]!.n)

  // The first half of the block; the victim killed once its shard has recorded some of it.
  const records = blockRecords(tokens, 19_000_001)
  const half = Math.floor(records.length / 2)
  await publish(redis, prefix, "chain.tx", records.slice(0, half))
  await waitFor(async () => (await victimRecorded()) > 0, 60_000, 10).catch(fail("the victim's shard recorded nothing"))
  const exited = new Promise((r) => victim.child.once("exit", r))
  victim.child.kill("SIGKILL")
  const killedAt = performance.now()
  await exited
  const recordedAtKill = await victimRecorded()
  await publish(redis, prefix, "chain.tx", records.slice(half))

  // Its shard goes to a live process once its lease runs out.
  await waitFor(async () => survivors.includes((await shardHolders(redis, prefix, SHARDS))[victimShard] ?? -1), LEASE_MS + 30_000, 20)
    .catch(fail("the victim's shard was not taken over"))
  const takeoverMs = Math.round(performance.now() - killedAt)
  // Everything handled: every shard's fan-out and notifier groups (the dead consumer's pending entries taken over).
  await waitFor(() => alertPathSettled(redis, prefix, SHARDS), 120_000, 200).catch(fail("the alert path did not settle"))

  const rows = (await pg.query<{ alert_id: string; record_key: string; n: string }>(
    "SELECT alert_id::text, record_key, count(*)::text AS n FROM alert_deliveries GROUP BY 1, 2")).rows
  const got = new Map(rows.map((r) => [`${r.alert_id}|${r.record_key}`, Number(r.n)]))
  const expected = records.map((r) => `${ownerOf.get(r.token)!.alert}|tx:${recordId(r)}`)
  const missing = expected.filter((k) => !got.has(k)).length
  const doubled = [...got.values()].filter((n) => n > 1).length
  const expectedSet = new Set(expected)
  const unexpected = [...got.keys()].filter((k) => !expectedSet.has(k)).length
  console.log(`[fault shard-kill] ${SHARDS} shards, ${USERS * PER_USER} alerts, block of ${records.length} records · shard ${victimShard} killed ` +
    `(pid ${victim.child.pid}) with ${recordedAtKill} of its ${victimAlerts.length} deliveries recorded · taken over ${takeoverMs} ms after the kill ` +
    `· deliveries ${rows.length} (expected ${expected.length}), missing ${missing}, doubled ${doubled}, unexpected ${unexpected}`)
  expect(recordedAtKill).toBeLessThan(victimAlerts.length)
  expect(missing).toBe(0)
  expect(doubled).toBe(0)
  expect(unexpected).toBe(0)
  expect(rows.length).toBe(records.length)
  expect(takeoverMs).toBeLessThanOrEqual(LEASE_MS + REACTION_ALLOWANCE_MS)
}, 240_000)
