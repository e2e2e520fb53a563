/** Bench plumbing: start processes, wait for ports, run the load generator. */
import { spawn, type ChildProcess } from "node:child_process"
import { fileURLToPath } from "node:url"

export const ROOT = fileURLToPath(new URL("..", import.meta.url))

export const tsx = (script: string, args: ReadonlyArray<string>, env: Record<string, string> = {}): ChildProcess =>
  spawn(process.execPath, ["--import", "tsx", script, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "inherit"] })

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

export interface LoadResult { requests: number; seconds: number; rps: number; errors: number; non2xx: number; p50_ms: number; p99_ms: number }

export const load = (url: string, seconds: number, connections: number, depth: number, headers: ReadonlyArray<string> = []) =>
  new Promise<LoadResult>((resolve, reject) => {
    const child = tsx("bench/load.ts", [url, String(seconds), String(connections), String(depth), ...headers])
    let out = ""
    child.stdout!.on("data", (c) => (out += c))
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`load generator exited ${code}`))))
  })

export const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
    setTimeout(() => child.kill("SIGKILL"), 15_000).unref()
  })

export const freePort = () => 20_000 + Math.floor(Math.random() * 20_000)

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
