/**
 * The operator commands as operators run them (child processes): `npm run wallets -- import|list` and
 * `npm run backfill -- --from --to [--wallets] [--dry-run] [--json]` over the JSON-RPC replay of mainnet blocks
 * 17173049–17173050, on a database of their own (a fresh real one, or an embedded one on disk).
 */
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WETH } from "../../server/domains/chain/Reference"
import type { WhaleRecord } from "../../server/domains/chain/Types"
import { cents } from "../../server/domains/chain/Wire"
import { BLOCKS, chainFixtures, EXCHANGE_WALLETS, keyOf, loadChainFixture, referenceRecords, type ChainFixture } from "../support/chainFixture"
import { REPO_ROOT } from "../support/fixtures"
import { freshDatabase, realDatabaseUrl } from "../support/env"
import { startServices } from "../support/serviceTest"
import { startRpcReplay, type RpcReplayServer } from "../support/rpcReplay"

const fx = chainFixtures()
const LINE_FIELDS = ["tx_hash", "block", "ts", "wallet", "token", "symbol", "category", "amount", "usd", "price_usd", "counter_token", "venue"]

interface Run { readonly code: number | null; readonly stdout: string; readonly stderr: string }

describe.skipIf(!fx.available)(`wallets and backfill commands${fx.skipNote}`, () => {
  let fixture: ChainFixture
  let server: RpcReplayServer
  let dir: string
  let dbEnv: Record<string, string>
  let dropDb = async () => undefined as void
  /** Every fixture wallet but Crypto.com's, which backfill gets through --wallets only. */
  let imported: Array<string>
  const extra = EXCHANGE_WALLETS[2]
  let expectedStored: Array<WhaleRecord>
  let expectedAll: Array<WhaleRecord>

  const run = (script: string, args: ReadonlyArray<string>, env: Record<string, string> = {}) =>
    new Promise<Run>((resolve, reject) => {
      const base = Object.fromEntries(Object.entries(process.env).filter(([k]) =>
        !/^(DATABASE_URL|REDIS_URL|ETH_RPC_URL|CHAIN_|DEMO_|DATA_DIR|EMBEDDED_DB_DIR)/.test(k))) as Record<string, string>
      // An empty value unsets the variable.
      const merged = Object.entries({ ...base, ...dbEnv, ETH_RPC_URL: server.url, CHAIN_RETRY_BASE_MS: "20", ...env }).filter(([, v]) => v !== "")
      const child = spawn(process.execPath, ["--import", "tsx", script, ...args], { cwd: REPO_ROOT, env: Object.fromEntries(merged) })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (c) => (stdout += c))
      child.stderr.on("data", (c) => (stderr += c))
      child.on("error", reject)
      child.on("exit", (code) => resolve({ code, stdout, stderr }))
    })
  const wallets = (...args: Array<string>) => run("server/cli/wallets.ts", args)
  const backfill = (...args: Array<string>) => run("server/cli/backfill.ts", ["--from", String(BLOCKS[0]), "--to", String(BLOCKS[1]), ...args])
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text)
    return join(dir, name)
  }
  const lines = (out: string) => out.trim().split("\n").filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>)

  /** The line a record must print as, written out field by field. */
  const lineOf = (r: WhaleRecord) => ({
    tx_hash: r.txHash, block: r.block, ts: new Date(r.ts).toISOString(), wallet: r.wallet, token: r.token, symbol: r.symbol,
    category: r.category, amount: r.amount, usd: cents(r.usd), price_usd: r.priceUsd, counter_token: r.counterToken, venue: r.venue
  })

  beforeAll(async () => {
    fixture = loadChainFixture()
    server = await startRpcReplay()
    dir = mkdtempSync(join(tmpdir(), "whale-cli-"))
    if (realDatabaseUrl) {
      const db = await freshDatabase(realDatabaseUrl)
      dbEnv = { DATA_DIR: dir, DATABASE_URL: db.url }
      dropDb = db.drop
    } else {
      dbEnv = { DATA_DIR: dir, EMBEDDED_DB_DIR: join(dir, "pglite") }
    }
    imported = fixture.wallets.filter((w) => w !== extra)
    expectedStored = await referenceRecords(server.url, imported)
    expectedAll = await referenceRecords(server.url, fixture.wallets)
  }, 120_000)
  afterAll(async () => {
    await server?.close()
    await dropDb()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it("imports wallets from CSV and JSON, rejects a bad file whole, and lists them", async () => {
    const csv = ["address,label,cohort", `${imported[0]},"Fixture, first",large`, ...imported.slice(1).map((a, i) => `${a},fixture ${i + 1},`)]
    const first = await wallets("import", file("wallets.csv", `${csv.join("\n")}\n`))
    expect(first.stderr).not.toMatch(/error/i)
    expect(first.stdout).toContain(`imported ${imported.length} wallet(s)`)
    expect(first.stdout).toContain(`${imported.length} added, 0 already tracked`)

    const json = JSON.stringify([{ address: imported[1], label: "renamed", cohort: "mega" }])
    const second = await wallets("import", file("more.json", json), "--json")
    expect(JSON.parse(second.stdout)).toMatchObject({ wallets: 1, added: 0, updated: 1 })

    const bad = await wallets("import", file("bad.csv", `address,label\n0x1234,short\n${imported[2]},\n`))
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/line 2: address/)
    expect(bad.stderr).toMatch(/line 3: label/)

    const listed = await wallets("list", "--json")
    const rows = JSON.parse(listed.stdout) as Array<{ address: string; label: string; cohort: string; source: string; active: boolean }>
    const byAddress = new Map(rows.map((r) => [r.address, r]))
    expect(byAddress.get(imported[0]!)).toEqual({ address: imported[0], label: "Fixture, first", cohort: "large", source: "import", active: true })
    expect(byAddress.get(imported[1]!)).toMatchObject({ label: "renamed", cohort: "mega", source: "import" })
    expect(byAddress.get(imported[2]!)).toMatchObject({ label: "fixture 2", cohort: "mid", source: "import" })
    expect(imported.every((a) => byAddress.has(a))).toBe(true)
    expect(byAddress.has(extra)).toBe(false)
  }, 600_000)

  it("backfill --dry-run --json prints every record field by field and writes nothing", async () => {
    const out = await backfill("--dry-run", "--json")
    expect(out.code).toBe(0)
    const printed = lines(out.stdout)
    expect(printed.length).toBe(expectedStored.length)
    expect(printed).toEqual(expectedStored.map(lineOf))
    for (const line of printed) {
      expect(Object.keys(line)).toEqual(LINE_FIELDS)
      expect(line.token).toMatch(/^0x[0-9a-f]{40}$/)
      expect(line.ts).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/)
      expect(typeof line.amount).toBe("string")
    }
    // Independent checks from the fixture itself.
    for (const line of printed.filter((l) => fixture.swapSenders.has(l.wallet as string) && l.token !== WETH)) {
      const net = fixture.netOf(line.tx_hash as string, line.wallet as string).get(line.token as string)!
      expect(line.category).toBe(net > 0n ? "dex_buy" : "dex_sell")
    }
    const txTime = new Map(fixture.transactions.map((t) => [t.hash, t.block_timestamp]))
    for (const line of printed) expect(Date.parse(line.ts as string) / 1000).toBe(txTime.get(line.tx_hash as string))
    expect(printed.find((l) => l.wallet === EXCHANGE_WALLETS[1])).toMatchObject({
      category: "exchange_deposit", symbol: "USDT", amount: "4000", usd: 4000, price_usd: 1, counter_token: null, venue: "Coinbase"
    })
    expect(printed.find((l) => (l.tx_hash as string).startsWith("0x550f63a5c8"))).toMatchObject({ category: "dex_sell", usd: 7200 })
    expect(out.stderr).toMatch(/2\/2 blocks · [\d,]+ records · [\d.]+ blocks\/s · ETA 0s/)
    expect(out.stderr).toContain(`${expectedStored.length} records, dry run, nothing written`)
  }, 600_000)

  it("backfill stores the records once, tracks --wallets for the run only, and leaves the listener's checkpoint alone", async () => {
    const stored = await backfill("--json")
    expect(stored.code).toBe(0)
    expect(lines(stored.stdout)).toEqual(expectedStored.map(lineOf))
    expect(stored.stderr).toContain(`${expectedStored.length} newly stored`)

    const withExtra = await backfill("--wallets", file("extra.csv", `address,label\n${extra},Crypto.com user\n`))
    expect(withExtra.code).toBe(0)
    expect(withExtra.stdout).toBe("")
    expect(withExtra.stderr).toContain(`${expectedAll.length} records, ${expectedAll.length - expectedStored.length} newly stored`)

    // What the commands left in their database, read on the platform alone (no app that could write to it).
    const app = await startServices(Layer.empty, { ...(dbEnv.DATABASE_URL ? { databaseUrl: dbEnv.DATABASE_URL } : {}), env: dbEnv })
    try {
      const rows = await app.query<{ tx_hash: string; log_index: number; wallet: string; token: string; source: string }>(
        "SELECT tx_hash, log_index, wallet, token, source FROM whale_tx")
      const keys = (rs: ReadonlyArray<WhaleRecord>) => rs.map((r) => keyOf({ tx_hash: r.txHash, log_index: r.logIndex, wallet: r.wallet, token: r.token })).sort()
      expect(rows.map(keyOf).sort()).toEqual(keys(expectedAll))
      expect(rows.every((r) => r.source === "rpc")).toBe(true)
      expect(await app.query("SELECT * FROM chain_checkpoint")).toEqual([])
      expect(await app.query("SELECT address FROM tracked_wallets WHERE address = $1", [extra])).toEqual([])
    } finally {
      await app.close()
    }
  }, 600_000)

  it("backfill refuses to run on the demo chain by default, and explains", async () => {
    const out = await run("server/cli/backfill.ts", ["--from", "1", "--to", "2"], { ETH_RPC_URL: "" })
    expect(out.code).toBe(1)
    expect(out.stderr).toContain("ETH_RPC_URL is not set")
    const usage = await run("server/cli/backfill.ts", ["--from", "5", "--to", "2"])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toContain("usage: npm run backfill")
  }, 120_000)
})
