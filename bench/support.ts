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
