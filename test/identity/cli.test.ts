/**
 * The identity commands as operators run them (child processes) over the JSON-RPC replay of mainnet blocks
 * 17173049–17173050: `npm run -s wallets -- classify --from --to --json --dry-run` (no database: nothing created),
 * then on a database of their own (a fresh real one, or an embedded one on disk) `classify` storing, `identity set`,
 * `identity show --json`, and a dry run that reads the operator's correction but writes nothing.
 */
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { IdentityLine } from "../../schema/identity"
import { BLOCKS, chainFixtures } from "../support/chainFixture"
import { REPO_ROOT } from "../support/fixtures"
import { freshDatabase, realDatabaseUrl } from "../support/env"
import { startRpcReplay, type RpcReplayServer } from "../support/rpcReplay"

const fx = chainFixtures()
const JARED = "0x6b75d8af000000e20b7a7ddf000ba900b4009a80"
const JARED_EOA = "0xae2fc483527b8ef99eb5d9b44875f005ba1fae13"
const BOTS = [JARED, JARED_EOA, "0x1b2137cf6a090da28c36f6081d12ecccad0e5179", "0x446d722624ae190a16fd2be14ce52a9e4f9b6ae3"]

interface Run { readonly code: number | null; readonly stdout: string; readonly stderr: string }

describe.skipIf(!fx.available)(`wallets classify and identity commands${fx.skipNote}`, () => {
  let server: RpcReplayServer
  let dir: string
  let dbEnv: Record<string, string>
  let dropDb = async () => undefined as void

  const spawnWith = (file: string, args: ReadonlyArray<string>, env: Record<string, string>) =>
    new Promise<Run>((resolve, reject) => {
      const base = Object.fromEntries(Object.entries(process.env).filter(([k]) =>
        !/^(DATABASE_URL|REDIS_URL|ETH_RPC_URL|CHAIN_|DEMO_|DATA_DIR|EMBEDDED_DB_DIR)/.test(k))) as Record<string, string>
      const child = spawn(file, args, { cwd: REPO_ROOT, env: { ...base, ETH_RPC_URL: server.url, CHAIN_RETRY_BASE_MS: "20", ...env } })
      let stdout = ""
      let stderr = ""
      child.stdout.on("data", (c) => (stdout += c))
      child.stderr.on("data", (c) => (stderr += c))
      child.on("error", reject)
      child.on("exit", (code) => resolve({ code, stdout, stderr }))
    })
  const wallets = (...args: Array<string>) => spawnWith(process.execPath, ["--import", "tsx", "server/cli/wallets.ts", ...args], dbEnv)
  const range = ["--from", String(BLOCKS[0]), "--to", String(BLOCKS[1])]
  const lines = (out: string) => out.trim().split("\n").filter(Boolean).map((l) => IdentityLine.parse(JSON.parse(l)))

  beforeAll(async () => {
    server = await startRpcReplay()
    dir = mkdtempSync(join(tmpdir(), "whale-identity-cli-"))
    if (realDatabaseUrl) {
      const db = await freshDatabase(realDatabaseUrl)
      dbEnv = { DATA_DIR: join(dir, "data"), DATABASE_URL: db.url }
      dropDb = db.drop
    } else {
      dbEnv = { DATA_DIR: join(dir, "data"), EMBEDDED_DB_DIR: join(dir, "pglite") }
    }
  }, 60_000)
  afterAll(async () => {
    await server?.close()
    await dropDb().catch(() => undefined)
    rmSync(dir, { recursive: true, force: true })
  })

  it("prints one JSON line per address of the range with a dry run, creating nothing", async () => {
    const bare = join(dir, "bare")
    const r = await spawnWith("npm", ["run", "-s", "wallets", "--", "classify", ...range, "--json", "--dry-run"], { DATA_DIR: bare })
    expect(r.code, r.stderr).toBe(0)
    const out = lines(r.stdout)
    expect(out.length).toBeGreaterThan(300)
    expect(new Set(out.map((l) => l.address)).size).toBe(out.length)
    expect(Object.keys(out[0]!)).toEqual(["address", "kind", "class", "reasons", "label", "label_source", "confidence"])
    expect(out.filter((l) => l.class === "mev_bot").map((l) => l.address).sort()).toEqual([...BOTS].sort())
    expect(out.find((l) => l.address === JARED)).toMatchObject({ kind: "contract", label: null, confidence: 0.95 })
    expect(out.find((l) => l.address === "0x28c6c06298d514db089934071355e5743bf21d60")).toMatchObject({ class: "exchange", label: "Binance 14", label_source: "label_file" })
    expect(out.filter((l) => l.class === "whale")).toEqual([])
    expect(r.stderr).toMatch(/classified \d+ addresses in blocks 17173049–17173050: .*4 mev_bot.*; 3 sandwich\(es\), 0 arbitrage\(s\); dry run, nothing written/)
    expect(existsSync(bare)).toBe(false)
  }, 60_000)

  it("stores the classification, takes an operator's correction, and a later dry run shows it without writing", async () => {
    const stored = await wallets("classify", ...range, "--json")
    expect(stored.code, stored.stderr).toBe(0)
    const set = await wallets("identity", "set", JARED, "class", "market_maker", "--reason", "test: an operator overrules the rule", "--operator", "ops-test", "--json")
    expect(set.code, set.stderr).toBe(0)
    expect(lines(set.stdout)[0]).toMatchObject({ address: JARED, class: "market_maker", label_source: null, confidence: 1 })
    const refused = await wallets("identity", "set", JARED, "class", "villain", "--reason", "x")
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/unknown class villain/)
    const again = await wallets("classify", ...range, "--json", "--dry-run")
    expect(again.code, again.stderr).toBe(0)
    expect(lines(again.stdout).find((l) => l.address === JARED)).toMatchObject({ class: "market_maker", reasons: ["operator set class market_maker: test: an operator overrules the rule", expect.stringMatching(/^sandwiched other accounts' swaps/)] })
    const show = await wallets("identity", "show", JARED, "--json")
    expect(show.code, show.stderr).toBe(0)
    const view = JSON.parse(show.stdout) as { class: string; evidence: Array<{ rule: string; hits: number }>; corrections: Array<{ operator: string }>; history: Array<{ class: string }> }
    expect(view.class).toBe("market_maker")
    // The dry run added nothing: the sandwich evidence counts the two sandwiches of the stored run only.
    expect(view.evidence).toEqual([expect.objectContaining({ rule: "sandwich", hits: 2 })])
    expect(view.corrections.map((c) => c.operator)).toEqual(["ops-test"])
    expect(view.history.map((h) => h.class)).toEqual(["mev_bot", "market_maker"])
  }, 180_000)
})
