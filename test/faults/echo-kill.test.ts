/**
 * The echo-portfolio actor's batched path (issue 31) with its process killed mid-read: two processes of the real
 * program (role `actors`, only `echo-portfolio`) share a fresh database and Redis prefix and consume `echo.cmd` — a
 * read of up to 512 commands of many users is one transaction, acked in one XACK after its commit. One process is
 * SIGKILLed every few hundred applied commands and started again; its read in flight is either committed (then
 * redelivered and found applied) or not (then redelivered and applied). At the end: every command has exactly one
 * outcome (a trade or a recorded rejection), nothing is left pending, and every book is consistent (cash ≥ 0, each
 * holding = the sum of its trades, cash + cost basis = start + realized).
 */
import { spawn, type ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { realRedisUrl, skipWithout } from "../support/env"
import { waitFor } from "../support/wait"
import { closeFaultWorld, openFaultWorld, type FaultWorld } from "./support/world"

const skip = skipWithout("DATABASE_URL") || skipWithout("REDIS_URL") || Boolean(process.env.WHALE_TEST_EMBEDDED)
const N = Number(process.env.FAULT_ECHO_COMMANDS ?? 6_000)
const USERS = 150
const KILLS = Number(process.env.FAULT_KILLS ?? 4)
const START = 2_000
const UNI = "0x1f9840a85d5af5bf1d1762f925bdaddc4201f984"
const prefix = `fault-echo:${randomBytes(3).toString("hex")}:`
const dataDir = mkdtempSync(join(tmpdir(), "whale-fault-echo-"))
const children = new Map<number, { child: ChildProcess; output: () => string }>()
let db: FaultWorld["db"]
let pg: FaultWorld["pg"]
let redis: FaultWorld["redis"]

const env = (url = db.url) => ({
  ...process.env, WHALE_ROLES: "actors", WHALE_ACTORS: "echo-portfolio", DATABASE_URL: url, REDIS_URL: realRedisUrl, REDIS_PREFIX: prefix,
  DATA_DIR: dataDir, LOG_LEVEL: "warn", MIGRATE_ON_START: "false", CHAIN_START_BLOCK: "1000000000000", CHAIN_POLL_MS: "60000",
  ECHO_START_CASH: String(START), ACTOR_CLAIM_IDLE_MS: "1000", ACTOR_BLOCK_MS: "100", ACTOR_MAX_DELIVERIES: "1000",
  ACTOR_MAX_RESTARTS: "10000", ACTOR_RESTART_BASE_MS: "20", ACTOR_RESTART_MAX_MS: "200"
}) as NodeJS.ProcessEnv

beforeAll(async () => {
  if (skip) return
  ;({ db, pg, redis } = await openFaultWorld(env))
}, 90_000)
afterAll(async () => {
  for (const { child } of children.values()) child.kill("SIGKILL")
  await closeFaultWorld({ db, pg, redis }, prefix)
  rmSync(dataDir, { recursive: true, force: true })
}, 30_000)

const actorsProcess = () => {
  const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], { env: env(), stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  child.stdout!.on("data", (d) => (output += d.toString()))
  child.stderr!.on("data", (d) => (output += d.toString()))
  children.set(child.pid!, { child, output: () => output.slice(-2_000) })
  child.once("exit", () => children.delete(child.pid!))
  return child
}
const count = async (sql: string) => Number((await pg.query<{ n: string }>(sql)).rows[0]!.n)
const outcomes = () => count("SELECT ((SELECT count(*) FROM echo_trades WHERE command_id LIKE 'k:%') + (SELECT count(*) FROM echo_commands WHERE command_id LIKE 'k:%'))::text AS n")
const pending = async () => {
  const info = (await redis.sendCommand(["XPENDING", `${prefix}echo.cmd`, "echo-portfolio"]).catch(() => [0])) as [number]
  return Number(info[0])
}

it.skipIf(skip)(`applies every command once with ${KILLS} SIGKILLs mid-read, books consistent`, async () => {
  await pg.query(`INSERT INTO whale_tx (tx_hash, log_index, wallet, token, symbol, category, amount, amount_raw, usd, price_usd, counter_symbol, venue, block_number, block_hash, ts, source)
    VALUES ('0x${"1".padStart(64, "0")}', 0, '0x${"1".repeat(40)}', '${UNI}', 'UNI', 'dex_buy', 10000, 1, 100000, 10, 'USDC', 'uniswap', 100, '0xb100', now(), 'rpc')`)
  const users = (await pg.query<{ id: string }>(
    `INSERT INTO users (email, password_hash) SELECT 'kill' || g || '@example.com', 'x' FROM generate_series(1, $1::int) g RETURNING id`, [USERS])).rows.map((r) => Number(r.id))
  // Per user: buys of $90 and sells of 3 UNI; $2,000 runs out after about 20 buys of $99 (gas included): the later buys are rejected (no overdraft); a sell that finds too little held is rejected too (nothing goes short).
  for (let i = 0; i < N; i += 500) {
    const multi = redis.multi()
    for (let j = i; j < Math.min(N, i + 500); j++) {
      const userId = users[j % USERS]!
      const cmd = Math.floor(j / USERS) % 3 === 2
        ? { _tag: "Trade", messageId: `k:${j}`, userId, side: "SELL", token: UNI, quantity: 3 }
        : { _tag: "Trade", messageId: `k:${j}`, userId, side: "BUY", token: UNI, usd: 90 }
      multi.addCommand(["XADD", `${prefix}echo.cmd`, "*", "p", JSON.stringify(cmd)])
    }
    await multi.exec()
  }
  let a = actorsProcess()
  const b = actorsProcess()
  let kills = 0
  for (let k = 0; k < KILLS; k++) {
    const before = await outcomes()
    await waitFor(async () => (await outcomes()) >= Math.min(N, before + 300), 90_000, 10)
    if ((await outcomes()) >= N) break
    const exited = new Promise((r) => a.once("exit", r))
    a.kill("SIGKILL")
    kills++
    await exited
    a = actorsProcess()
  }
  await waitFor(async () => (await outcomes()) >= N && (await pending()) === 0, 120_000, 100).catch(async (e) => {
    throw new Error(`${e}: outcomes ${await outcomes()} of ${N}, pending ${await pending()}\n` + [...children.values()].map((c) => c.output()).join("\n---\n"))
  })
  const trades = await count("SELECT count(*)::text AS n FROM echo_trades WHERE command_id LIKE 'k:%'")
  const rejected = await count("SELECT count(*)::text AS n FROM echo_commands WHERE command_id LIKE 'k:%'")
  const distinct = await count("SELECT count(DISTINCT c)::text AS n FROM (SELECT command_id c FROM echo_trades UNION ALL SELECT command_id FROM echo_commands) x WHERE c LIKE 'k:%'")
  const both = await count("SELECT count(*)::text AS n FROM echo_trades t JOIN echo_commands c USING (command_id)")
  const negative = await count("SELECT count(*)::text AS n FROM echo_portfolios WHERE cash < 0")
  const holdingOff = await count(`SELECT count(*)::text AS n FROM echo_portfolios p WHERE abs(coalesce((SELECT quantity FROM echo_holdings h WHERE h.user_id = p.user_id AND h.token = '${UNI}'), 0)
      - coalesce((SELECT sum(CASE WHEN side = 'BUY' THEN quantity ELSE -quantity END) FROM echo_trades t WHERE t.user_id = p.user_id), 0)) > 1e-9`)
  const moneyOff = await count(`SELECT count(*)::text AS n FROM echo_portfolios p
    WHERE abs(p.cash + coalesce((SELECT sum(cost) FROM echo_holdings h WHERE h.user_id = p.user_id), 0) - p.start_cash - p.realized) > 1e-6`)
  console.log(`[fault echo-kill] commands ${N} of ${USERS} users · SIGKILLs ${kills} · trades ${trades} + rejections ${rejected} = ${trades + rejected} ` +
    `(distinct ${distinct}, both ${both}) · pending ${await pending()} · negative cash ${negative} · holding ≠ Σ trades ${holdingOff} · money not conserved ${moneyOff}`)
  expect(kills).toBeGreaterThan(0)
  expect(trades + rejected).toBe(N)
  expect(distinct).toBe(N)
  expect(both).toBe(0)
  expect(negative).toBe(0)
  expect(holdingOff).toBe(0)
  expect(moneyOff).toBe(0)
  a.kill("SIGKILL")
  b.kill("SIGKILL")
}, 300_000)
