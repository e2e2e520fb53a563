/**
 * The program as `npm start` runs it: on the embedded defaults it becomes ready, and SIGINT (Ctrl-C) stops it
 * cleanly — exit code 0, the embedded PostgreSQL child process gone.
 */
import { execFileSync, spawn } from "node:child_process"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { waitFor } from "../support/wait"

const childrenOf = (pid: number): Array<number> => {
  try {
    return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" }).split("\n").map((s) => Number(s.trim())).filter(Boolean)
  } catch {
    return []
  }
}
const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe("the program", () => {
  it("starts on embedded defaults, becomes ready, and stops cleanly on SIGINT", async () => {
    const port = 21_000 + Math.floor(Math.random() * 10_000)
    const dataDir = mkdtempSync(join(tmpdir(), "whale-proc-"))
    const env = { ...process.env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "warn" } as Record<string, string | undefined>
    delete env.DATABASE_URL
    delete env.REDIS_URL
    const app = spawn(process.execPath, ["--import", "tsx", "server/main.ts"], { env, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    app.stdout.on("data", (c) => (output += c))
    app.stderr.on("data", (c) => (output += c))
    try {
      await waitFor(async () => {
        try {
          return (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200
        } catch {
          return false
        }
      }, 90_000, 250)
      const embedded = childrenOf(app.pid!)
      expect(embedded.length).toBeGreaterThan(0)
      const exited = new Promise<number | null>((resolve) => app.once("exit", (code) => resolve(code)))
      app.kill("SIGINT")
      expect(await exited).toBe(0)
      await waitFor(() => embedded.every((pid) => !alive(pid)), 10_000)
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow()
    } catch (e) {
      app.kill("SIGKILL")
      throw new Error(`${(e as Error).message}\n--- program output ---\n${output.slice(-4000)}`)
    }
  }, 120_000)
})
