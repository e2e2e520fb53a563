/**
 * One writer for the embedded database (issue 18 §1). Unit: the lock file is exclusive, a stale one (its process
 * gone) is taken over, `locate` finds only a live, listening holder. The program: with `npm start` running on a
 * data directory, `admin create-user` on the same directory goes through the running server (the service sees the
 * user at once); a second server on the directory refuses with a clear message; the database survives a clean
 * stop and a SIGKILL of everything (stale lock recovered), and registration still works afterwards (no duplicate
 * key from a second writer).
 */
import { execFile, spawn, type ChildProcess } from "node:child_process"
import { existsSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { afterAll, describe, expect, it } from "vitest"
import { acquireLock, DatabaseLocked, locate, lockPath, readLock } from "../../server/platform/infra/embedded/Lock"
import { freePort } from "../support/services"
import { waitFor } from "../support/wait"

const run = promisify(execFile)
const deadPid = async () => {
  const c = spawn(process.execPath, ["-e", ""])
  const pid = c.pid!
  await new Promise((r) => c.once("exit", r))
  return pid
}

describe("the lock file", () => {
  it("is exclusive, records where the server listens, and is released", async () => {
    const dir = mkdtempSync(join(tmpdir(), "whale-lock-"))
    const lock = acquireLock(dir)
    expect(readLock(dir)).toMatchObject({ pid: process.pid, port: null })
    // Another live process holds it: refused with the holder named.
    writeFileSync(lockPath(dir), JSON.stringify({ pid: process.ppid, host: "127.0.0.1", port: 5, startedAt: "" }))
    expect(() => acquireLock(dir, 999_999)).toThrow(DatabaseLocked)
    expect(() => acquireLock(dir, 999_999)).toThrow(/in use by another process \(pid \d+, listening on 127\.0\.0\.1:5\)/)
    writeFileSync(lockPath(dir), JSON.stringify({ pid: process.pid, host: "127.0.0.1", port: null, startedAt: "" }))
    lock.listening("127.0.0.1", 6543)
    expect(readLock(dir)).toMatchObject({ pid: process.pid, port: 6543 })
    lock.release()
    expect(existsSync(lockPath(dir))).toBe(false)
  })

  it("takes over a stale lock (its process is gone), and locate ignores it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "whale-lock-"))
    writeFileSync(lockPath(dir), JSON.stringify({ pid: await deadPid(), host: "127.0.0.1", port: 1, startedAt: "" }))
    expect(await locate(dir, 0)).toBeNull()
    const lock = acquireLock(dir)
    expect(readLock(dir)?.pid).toBe(process.pid)
    lock.release()
    // An unreadable lock (a crash while writing it) is stale too.
    writeFileSync(lockPath(dir), "{")
    acquireLock(dir).release()
  })
})

// The program on its embedded defaults whatever the run: once is enough (not again in test:embedded).
describe.skipIf(Boolean(process.env.WHALE_TEST_EMBEDDED))("the program and its commands on one data directory", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "whale-onewriter-"))
  const started: Array<ChildProcess> = []
  afterAll(() => {
    for (const c of started) if (c.exitCode === null) c.kill("SIGKILL")
  })
  const env = (port: number) => {
    const e = { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "warn", DEMO_BLOCK_MS: "60000" } as Record<string, string | undefined>
    delete e.DATABASE_URL
    delete e.REDIS_URL
    delete e.EMBEDDED_DB_DIR
    return e
  }
  const startServer = async () => {
    const port = await freePort()
    const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], { env: env(port), stdio: ["ignore", "pipe", "pipe"] })
    started.push(child)
    let output = ""
    child.stdout!.on("data", (c) => (output += c))
    child.stderr!.on("data", (c) => (output += c))
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
    return { child, port, url: `http://127.0.0.1:${port}`, output: () => output, exited }
  }
  const ready = async (url: string, output: () => string) =>
    waitFor(async () => {
      try {
        return (await fetch(`${url}/readyz`)).status === 200
      } catch {
        return false
      }
    }, 120_000, 250).catch((e) => {
      throw new Error(`${e}\n--- output ---\n${output().slice(-3000)}`)
    })
  const login = (url: string, email: string) =>
    fetch(`${url}/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password: "cli password 123" }) })

  it("lets a command write through the running server, refuses a second server, and survives a restart and a SIGKILL intact", async () => {
    const first = await startServer()
    await ready(first.url, first.output)
    const holder = readLock(join(dataDir, "pglite"))
    expect(holder?.port).toBeGreaterThan(0)

    // The command while the service runs: it connects to the running embedded server.
    const t0 = Date.now()
    const created = await run(process.execPath, ["--import", "tsx", "server/cli/admin.ts", "create-user", "--email", "one@example.com", "--password", "cli password 123"],
      { env: env(0) as NodeJS.ProcessEnv, timeout: 120_000 })
    const cliMs = Date.now() - t0
    expect(created.stdout).toMatch(/created user \d+ one@example\.com/)
    // The service sees it at once.
    expect((await login(first.url, "one@example.com")).status).toBe(200)

    // A second server on the same directory refuses, saying why.
    const second = await startServer()
    const code = await second.exited
    expect(code).not.toBe(0)
    expect(second.output()).toContain("is in use by another process")
    expect(second.output()).toContain(`listening on 127.0.0.1:${holder!.port}`)

    // A clean stop releases the lock; the next start sees everything, and registration allocates fresh ids.
    first.child.kill("SIGINT")
    expect(await first.exited).toBe(0)
    expect(existsSync(lockPath(join(dataDir, "pglite")))).toBe(false)
    const third = await startServer()
    await ready(third.url, third.output)
    expect((await login(third.url, "one@example.com")).status).toBe(200)
    const registered = await fetch(`${third.url}/auth/register`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "two@example.com", password: "cli password 123" })
    })
    expect(registered.status, await registered.clone().text()).toBeLessThan(300)

    // SIGKILL of the server and its database process: the lock is left behind, stale, and taken over.
    const pgPid = readLock(join(dataDir, "pglite"))!.pid
    process.kill(pgPid, "SIGKILL")
    third.child.kill("SIGKILL")
    await third.exited
    expect(existsSync(lockPath(join(dataDir, "pglite")))).toBe(true)
    const fourth = await startServer()
    await ready(fourth.url, fourth.output)
    expect((await login(fourth.url, "one@example.com")).status).toBe(200)
    const again = await fetch(`${fourth.url}/auth/register`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "three@example.com", password: "cli password 123" })
    })
    expect(again.status, await again.clone().text()).toBeLessThan(300)
    console.log(`[fault embedded-lock] command through the running server in ${cliMs} ms · second server refused (exit ${code}) · clean restart and SIGKILL restart intact`)
    fourth.child.kill("SIGINT")
    expect(await fourth.exited).toBe(0)
  }, 400_000)
})
