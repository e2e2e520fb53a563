/**
 * Runs the embedded PostgreSQL child process for the lifetime of a scope: spawn, wait for its ready line,
 * SIGTERM on release (SIGKILL if it does not exit in time). The child also exits if this process dies (its stdin
 * closes), so no orphan survives a crash.
 */
import { spawn } from "node:child_process"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import { Duration, Effect } from "effect"

const SCRIPT = fileURLToPath(new URL("./embedded/pgliteServer.ts", import.meta.url))

export class EmbeddedStartFailed extends Error {}

export const embeddedPostgres = (dataDir: string, maxConnections: number) =>
  Effect.acquireRelease(
    Effect.async<{ port: number; pid: number; child: ReturnType<typeof spawn> }, EmbeddedStartFailed>((resume) => {
      const child = spawn(process.execPath, ["--import", "tsx", SCRIPT, dataDir, String(maxConnections)], {
        stdio: ["pipe", "pipe", "inherit"]
      })
      let settled = false
      const lines = createInterface({ input: child.stdout! })
      lines.on("line", (line) => {
        if (settled) return
        try {
          const msg = JSON.parse(line) as { ready?: boolean; port?: number; locked?: boolean; message?: string }
          if (msg.locked) {
            settled = true
            resume(Effect.fail(new EmbeddedStartFailed(msg.message ?? `the embedded database in ${dataDir} is in use by another process`)))
          } else if (msg.ready && msg.port) {
            settled = true
            resume(Effect.succeed({ port: msg.port, pid: child.pid!, child }))
          }
        } catch {
          // not our line
        }
      })
      child.once("exit", (code) => {
        if (!settled) {
          settled = true
          resume(Effect.fail(new EmbeddedStartFailed(`embedded PostgreSQL exited with code ${code} before it was ready (data dir ${dataDir})`)))
        }
      })
      return Effect.sync(() => child.kill("SIGKILL"))
    }).pipe(Effect.timeoutFail({ duration: Duration.seconds(60), onTimeout: () => new EmbeddedStartFailed("embedded PostgreSQL did not start within 60 s") })),
    ({ child }) =>
      Effect.async<void>((resume) => {
        if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
        const timer = setTimeout(() => child.kill("SIGKILL"), 10_000)
        child.once("exit", () => {
          clearTimeout(timer)
          resume(Effect.void)
        })
        child.kill("SIGTERM")
      })
  )
