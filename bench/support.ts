/** Bench plumbing: start processes, wait for ports, run the load generator. */
import { spawn, type ChildProcess } from "node:child_process"
import { readFileSync } from "node:fs"
import { type AddressInfo, createServer } from "node:net"
import { fileURLToPath } from "node:url"

export const ROOT = fileURLToPath(new URL("..", import.meta.url))

export const tsx = (script: string, args: ReadonlyArray<string>, env: Record<string, string> = {}): ChildProcess =>
  spawn(process.execPath, ["--import", "tsx", script, ...args], { cwd: ROOT, env: { METRICS_PORT: "0", ...process.env, ...env }, stdio: ["pipe", "pipe", "inherit"] })

export const waitForUrl = async (url: string, timeoutMs = 90_000) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url)
      if (res.ok) return
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250))
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`)
}

export interface LoadResult {
  requests: number; seconds: number; rps: number; errors: number; non2xx: number; closed: number; unanswered: number; p50_ms: number; p99_ms: number
}

/** A benchmark that read something it cannot trust stops here, saying why, instead of printing a ratio. */
export class BenchInvalid extends Error {}

/**
 * One run of the load generator (bench/load.ts, its own process). The run is refused (BenchInvalid) when it cannot
 * be trusted: no answers, socket errors, connections the server closed, requests left unanswered, non-2xx answers.
 */
export const load = (url: string, seconds: number, connections: number, depth: number, headers: ReadonlyArray<string> = []) =>
  new Promise<LoadResult>((resolve, reject) => {
    const child = tsx("bench/load.ts", [url, String(seconds), String(connections), String(depth), ...headers])
    let out = ""
    child.stdout!.on("data", (c) => (out += c))
    child.on("exit", (code) => {
      if (code !== 0) return reject(new BenchInvalid(`load generator exited ${code} (${url})`))
      const r = JSON.parse(out) as LoadResult
      const problems = [
        r.requests === 0 && "no answers at all",
        r.errors > 0 && `${r.errors} socket errors`,
        r.closed > 0 && `${r.closed} of ${connections} connections closed by the server`,
        r.unanswered > 0 && `${r.unanswered} requests unanswered 2 s after the end`,
        r.non2xx > 0 && `${r.non2xx} non-2xx answers`
      ].filter(Boolean)
      if (problems.length > 0) reject(new BenchInvalid(`${url}: ${problems.join(", ")} (${JSON.stringify(r)})`))
      else resolve(r)
    })
  })

export const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
    setTimeout(() => child.kill("SIGKILL"), 15_000).unref()
  })

/** Busy and total CPU ticks of the machine (all cores), from /proc/stat. */
const cpuTicks = () => {
  const [, ...fields] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/)
  const n = fields.map(Number)
  const idle = n[3]! + n[4]!
  const total = n.reduce((a, b) => a + b, 0)
  return { busy: total - idle, total }
}

/**
 * Ratios measured while something else uses the machine say little about the code: before a benchmark, the machine
 * is sampled for 2 s and the run refused (BenchInvalid) when more than 25 % of its CPU was in use.
 * BENCH_ALLOW_BUSY=1 runs anyway, saying so.
 */
export const assertIdle = async (name: string) => {
  const a = cpuTicks()
  await new Promise((r) => setTimeout(r, 2_000))
  const b = cpuTicks()
  const used = (b.busy - a.busy) / Math.max(1, b.total - a.total)
  const line = `${name}: the machine was ${(used * 100).toFixed(0)} % busy before the run`
  if (used <= 0.25) return
  if (process.env.BENCH_ALLOW_BUSY === "1") console.error(`${line} (BENCH_ALLOW_BUSY=1: running anyway; figures are noisy)`)
  else throw new BenchInvalid(`${line}; stop what runs there or set BENCH_ALLOW_BUSY=1`)
}

/** A port the kernel says is free now (a random one was once taken by another server of the same run). */
export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })

/**
 * A database of the bench's own, never the one DATABASE_URL names: a fresh database beside it on the same server, or
 * the embedded PGlite in memory without one. `env` configures the services the bench builds; `drop` removes it all.
 */
export const throwawayDatabase = async (label: string) => {
  const { mkdtempSync, rmSync } = await import("node:fs")
  const { tmpdir } = await import("node:os")
  const { join } = await import("node:path")
  const { randomBytes } = await import("node:crypto")
  const Pg = (await import("pg")).default
  const admin = async (url: string, statement: string) => {
    const client = new Pg.Client({ connectionString: url })
    await client.connect()
    await client.query(statement)
    await client.end()
  }
  const dir = mkdtempSync(join(tmpdir(), `whale-bench-${label}-`))
  const base = process.env.DATABASE_URL
  const dbName = `bench_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`
  let databaseUrl: string | undefined
  if (base) {
    await admin(base, `CREATE DATABASE ${dbName}`)
    const url = new URL(base)
    url.pathname = `/${dbName}`
    databaseUrl = url.toString()
  }
  return {
    databaseUrl,
    /** The environment of the bench's services: its own DATA_DIR, the embedded database in memory or its database. */
    env: { ...process.env, DATA_DIR: dir, EMBEDDED_DB_DIR: "memory://", ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}) } as Record<string, string | undefined>,
    drop: async () => {
      if (base) await admin(base, `DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`)
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
