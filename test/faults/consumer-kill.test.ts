/**
 * A consumer process killed (SIGKILL) between read and ack, repeatedly (issue 18 §2): two processes of the real actor
 * runtime share a consumer group; one of them is killed every few hundred milliseconds and started again. At the end:
 * produced = handled + dead-lettered, each side effect exactly once (keyed by messageId), and the figures printed.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import Pg from "pg"
import { createClient } from "redis"
import { afterAll, beforeAll, expect, it } from "vitest"
import { dropRedisPrefix, freshDatabase, realDatabaseUrl, realRedisUrl, skipWithout } from "../support/env"
import { waitFor } from "../support/wait"

const skip = skipWithout("DATABASE_URL") || skipWithout("REDIS_URL") || Boolean(process.env.WHALE_TEST_EMBEDDED)
const N = Number(process.env.FAULT_MESSAGES ?? 1_500)
const POISON = 15
const KILLS = Number(process.env.FAULT_KILLS ?? 6)
const prefix = `fault:${randomBytes(3).toString("hex")}:`
let db: { url: string; drop: () => Promise<void> }
let pg: Pg.Client
const children = new Set<ChildProcess>()
let stderr = ""

beforeAll(async () => {
  if (skip) return
  db = await freshDatabase(realDatabaseUrl!)
  pg = new Pg.Client({ connectionString: db.url })
  await pg.connect()
  await pg.query("CREATE TABLE fault_effects (message_id text PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())")
  await pg.query("CREATE TABLE fault_attempts (message_id text NOT NULL, pid integer NOT NULL)")
})
afterAll(async () => {
  for (const c of children) c.kill("SIGKILL")
  await pg?.end()
  await db?.drop()
  if (realRedisUrl) await dropRedisPrefix(realRedisUrl, prefix)
})

const consumer = () => {
  const c = spawn(process.execPath, ["--import", "tsx", "test/faults/support/consumer.ts", realRedisUrl!, prefix, db.url], { stdio: ["ignore", "ignore", "pipe"] })
  children.add(c)
  c.stderr!.on("data", (d) => (stderr += d.toString()))
  c.once("exit", () => children.delete(c))
  return c
}
const count = async (sql: string) => Number((await pg.query<{ n: string }>(sql)).rows[0]!.n)

it.skipIf(skip)(`keeps produced = handled + dead-lettered with ${KILLS} SIGKILLs between read and ack`, async () => {
  const redis = createClient({ url: realRedisUrl })
  await redis.connect()
  const stream = `${prefix}fault.work`
  const poison = new Set<string>()
  for (let i = 0; i < N; i += 500) {
    const multi = redis.multi()
    for (let j = i; j < Math.min(N, i + 500); j++) {
      const kind = j % Math.floor(N / POISON) === 7 && poison.size < POISON ? "poison" : "ok"
      if (kind === "poison") poison.add(`m${j}`)
      multi.addCommand(["XADD", stream, "*", "p", JSON.stringify({ messageId: `m${j}`, kind })])
    }
    await multi.exec()
  }
  let a = consumer()
  const b = consumer()
  // Kill one process once it has handled something, start it again, repeatedly.
  let kills = 0
  for (let k = 0; k < KILLS; k++) {
    const before = await count("SELECT count(*)::text AS n FROM fault_attempts")
    await waitFor(async () => (await count("SELECT count(*)::text AS n FROM fault_attempts")) > before + 20 || (await count("SELECT count(*)::text AS n FROM fault_effects")) >= N - POISON, 60_000, 20)
    if ((await count("SELECT count(*)::text AS n FROM fault_effects")) >= N - POISON) break
    a.kill("SIGKILL")
    kills++
    a = consumer()
  }
  const dlq = `${prefix}dlq:fault.work`
  await waitFor(async () => (await count("SELECT count(*)::text AS n FROM fault_effects")) === N - POISON && Number(await redis.xLen(dlq)) >= POISON, 120_000, 100).catch(async (e) => {
    const pending = await redis.sendCommand(["XPENDING", stream, "fault-worker"]).catch((x) => String(x))
    throw new Error(`${e}: handled ${await count("SELECT count(*)::text AS n FROM fault_effects")} of ${N - POISON}, dead letters ${await redis.xLen(dlq)}, ` +
      `attempts ${await count("SELECT count(*)::text AS n FROM fault_attempts")}, pending ${JSON.stringify(pending)}, consumer stderr: ${stderr.slice(-1500)}`)
  })
  const handled = await count("SELECT count(*)::text AS n FROM fault_effects")
  const attempts = await count("SELECT count(*)::text AS n FROM fault_attempts")
  const dead = (await redis.sendCommand(["XRANGE", dlq, "-", "+"])) as Array<[string, Array<string>]>
  const deadIds = new Set(dead.map(([, f]) => (JSON.parse(f[1]!) as { payload: { messageId: string } }).payload.messageId))
  const deadAttempts = await count(`SELECT count(*)::text AS n FROM fault_attempts WHERE message_id = ANY(ARRAY[${[...poison].map((p) => `'${p}'`).join(",")}])`)
  const handledPoison = await count(`SELECT count(*)::text AS n FROM fault_effects WHERE message_id = ANY(ARRAY[${[...poison].map((p) => `'${p}'`).join(",")}])`)
  console.log(`[fault consumer-kill] produced ${N} · handled ${handled} · dead-lettered ${deadIds.size} (entries ${dead.length}) · ` +
    `SIGKILLs ${kills} · attempts ${attempts} (handled again after a kill: ${attempts - handled - deadAttempts}) · side effects twice 0 (primary key)`)
  expect(handled + deadIds.size).toBe(N)
  expect([...deadIds].sort()).toEqual([...poison].sort())
  expect(handledPoison).toBe(0)
  expect(kills).toBeGreaterThan(0)
  a.kill("SIGKILL")
  b.kill("SIGKILL")
  await redis.close()
}, 300_000)
