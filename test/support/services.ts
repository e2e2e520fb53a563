/**
 * A PostgreSQL and a Redis of the test's own, on free ports in a temp directory, so a fault test can stop, kill
 * and restart them. Never the shared 127.0.0.1:5432 / 6379 servers. PostgreSQL refuses to run as root: it runs as
 * the `postgres` user (when the test runs as root) and its files are that user's.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { waitFor } from "./wait"

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer()
    s.once("error", reject)
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })

const pgBin = (name: string) => {
  const roots = existsSync("/usr/lib/postgresql") ? readdirSync("/usr/lib/postgresql").sort().reverse() : []
  for (const v of roots) {
    const p = `/usr/lib/postgresql/${v}/bin/${name}`
    if (existsSync(p)) return p
  }
  return name
}

/** Whether this machine can run the own-servers suites (PostgreSQL binaries, redis-server, root or postgres). */
export const ownServicesAvailable = (): string | null => {
  try {
    execFileSync(pgBin("initdb"), ["--version"], { stdio: "ignore" })
    execFileSync("redis-server", ["--version"], { stdio: "ignore" })
    return null
  } catch (e) {
    return `PostgreSQL (initdb) or redis-server not installed: ${(e as Error).message}`
  }
}

const asPostgres = (cmd: string, args: ReadonlyArray<string>) =>
  process.getuid?.() === 0 ? { file: "runuser", args: ["-u", "postgres", "--", cmd, ...args] } : { file: cmd, args: [...args] }

const run = (cmd: string, args: ReadonlyArray<string>) => {
  const c = asPostgres(cmd, args)
  return execFileSync(c.file, c.args, { stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 }).toString()
}

export interface OwnPostgres {
  readonly url: string
  readonly port: number
  readonly start: () => Promise<void>
  /** Fast shutdown (connections terminated, as an operator's stop). */
  readonly stop: () => Promise<void>
  /** SIGKILL of the postmaster (a crash). */
  readonly kill: () => Promise<void>
  readonly destroy: () => Promise<void>
}

export const startOwnPostgres = async (): Promise<OwnPostgres> => {
  const dir = mkdtempSync(join(tmpdir(), "whale-fault-pg-"))
  chmodSync(dir, 0o755)
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim())
    const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim())
    chownSync(dir, uid, gid)
  }
  const data = join(dir, "data")
  const port = await freePort()
  run(pgBin("initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`
  const start = async () => {
    run(pgBin("pg_ctl"), ["-D", data, "-l", join(dir, "log"), "-o", options, "-w", "-t", "60", "start"])
  }
  const stop = async () => {
    run(pgBin("pg_ctl"), ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"])
  }
  const kill = async () => {
    const pidFile = join(data, "postmaster.pid")
    const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0])
    process.kill(pid, "SIGKILL")
    await waitFor(() => {
      try {
        process.kill(pid, 0)
        return false
      } catch {
        return true
      }
    }, 10_000)
    // Children of a killed postmaster exit on their own once they notice; wait for the port to be free.
    await waitFor(async () => {
      try {
        execFileSync(pgBin("pg_isready"), ["-h", "127.0.0.1", "-p", String(port)], { stdio: "ignore" })
        return false
      } catch {
        return true
      }
    }, 10_000)
  }
  await start()
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    kill,
    destroy: async () => {
      try {
        run(pgBin("pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"])
      } catch {
        // already down
      }
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

export interface OwnRedis {
  readonly url: string
  readonly port: number
  readonly start: () => Promise<void>
  /** SIGKILL (a crash); with the append-only file at `always`, every acknowledged write survives. */
  readonly kill: () => Promise<void>
  readonly destroy: () => Promise<void>
}

export const startOwnRedis = async (): Promise<OwnRedis> => {
  const dir = mkdtempSync(join(tmpdir(), "whale-fault-redis-"))
  const port = await freePort()
  let child: ChildProcess | null = null
  const start = async () => {
    const c = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--appendonly", "yes",
      "--appendfsync", "always", "--protected-mode", "no"], { stdio: ["ignore", "pipe", "pipe"] })
    child = c
    let out = ""
    c.stdout!.on("data", (d) => (out += d.toString()))
    await waitFor(() => /Ready to accept connections/.test(out) || c.exitCode !== null, 20_000)
    if (c.exitCode !== null) throw new Error(`redis-server exited: ${out}`)
  }
  const kill = async () => {
    const c = child
    if (!c || c.exitCode !== null) return
    const exited = new Promise((r) => c.once("exit", r))
    c.kill("SIGKILL")
    await exited
    child = null
  }
  await start()
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    start,
    kill,
    destroy: async () => {
      await kill()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
