/**
 * The program as a process manager runs it: the real `npm start` on the embedded defaults becomes ready, and SIGTERM
 * (a `docker stop`, a systemd unit) or SIGINT (Ctrl-C) sent to the PID it started stops everything — npm, the server
 * and the embedded PostgreSQL child — within the grace period, with the port free; the embedded database then opens
 * clean on the next start.
 */
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { freePort } from "../support/services"
import { waitFor } from "../support/wait"

const GRACE_MS = 3_000

/** Every descendant of `pid`, depth first. */
const descendantsOf = (pid: number): Array<number> => {
  let children: Array<number> = []
  try {
    children = execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" }).split("\n").map((s) => Number(s.trim())).filter(Boolean)
  } catch {
    // no children
  }
  return children.flatMap((c) => [c, ...descendantsOf(c)])
}
const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
const answers = async (url: string) => {
  try {
    return (await fetch(url)).status
  } catch {
    return null
  }
}

/** `npm start` until it is ready; then `signal` to npm's PID, and what it left. */
const startAndSignal = async (dataDir: string, signal: NodeJS.Signals) => {
  const port = await freePort()
  const env: Record<string, string | undefined> = {
    ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "info",
    CONSOLE_BUILD: "off", SHUTDOWN_GRACE_MS: String(GRACE_MS)
  }
  delete env.DATABASE_URL
  delete env.REDIS_URL
  const npm = spawn("npm", ["start", "--silent"], { env, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  npm.stdout.on("data", (c) => (output += c))
  npm.stderr.on("data", (c) => (output += c))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    npm.once("exit", (code, sig) => resolve({ code, signal: sig })))
  try {
    await waitFor(async () => (await answers(`http://127.0.0.1:${port}/readyz`)) === 200, 90_000, 250)
    // The line a person starting it looks for; per-block lines are at debug (a summary a minute at info).
    await waitFor(() => output.includes(`Console ready: http://localhost:${port}/`), 10_000, 50)
    expect(output).not.toMatch(/message="block \d+ /)
    const tree = descendantsOf(npm.pid!)
    // npm → node (the server, no shell or tsx layer between) → node (embedded PostgreSQL).
    expect(tree.length, `process tree under npm: ${tree.join(", ")}`).toBeGreaterThanOrEqual(2)
    const t0 = Date.now()
    npm.kill(signal)
    const exit = await exited
    await waitFor(() => tree.every((pid) => !alive(pid)), GRACE_MS + 5_000, 50)
    const stoppedMs = Date.now() - t0
    expect(await answers(`http://127.0.0.1:${port}/healthz`)).toBeNull()
    return { exit, stoppedMs, left: tree.filter(alive) }
  } catch (e) {
    for (const pid of [npm.pid!, ...descendantsOf(npm.pid!)]) if (alive(pid)) process.kill(pid, "SIGKILL")
    throw new Error(`${(e as Error).message}\n--- program output ---\n${output.slice(-4000)}`)
  }
}

describe("the program", () => {
  it("stops with everything it started on SIGTERM to npm's PID, and reopens its embedded database clean on SIGINT's run", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "whale-proc-"))
    const first = await startAndSignal(dataDir, "SIGTERM")
    expect(first.left).toEqual([])
    expect(first.stoppedMs).toBeLessThan(GRACE_MS + 5_000)
    // The same data directory again: the database opens (no stale lock, no recovery failure), then Ctrl-C stops it.
    const second = await startAndSignal(dataDir, "SIGINT")
    expect(second.left).toEqual([])
    expect(second.stoppedMs).toBeLessThan(GRACE_MS + 5_000)
  }, 240_000)

  it("refuses a production start configured for test payments before it opens anything, saying why", async () => {
    const env: Record<string, string | undefined> = {
      ...process.env, NODE_ENV: "production", BILLING_STANDIN: "on", PORT: "0", HOST: "127.0.0.1", CONSOLE_BUILD: "off",
      DATA_DIR: mkdtempSync(join(tmpdir(), "whale-prod-")), LOG_LEVEL: "info",
      SESSION_SECRET: "s".repeat(40), INTERNAL_SECRET: "i".repeat(40), INBOUND_EMAIL_SECRET: "e".repeat(40)
    }
    delete env.DATABASE_URL
    delete env.REDIS_URL
    const child = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], { env, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    child.stdout.on("data", (c) => (output += c))
    child.stderr.on("data", (c) => (output += c))
    const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)))
    expect(code, output).not.toBe(0)
    expect(output).toContain("Refusing to start: test payments are configured with NODE_ENV=production (BILLING_STANDIN=on)")
    expect(output).not.toContain("embedded PostgreSQL")
  }, 60_000)
})
