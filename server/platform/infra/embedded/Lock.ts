/**
 * One writer for an embedded database directory. PGlite keeps its files in a plain directory and two processes
 * opening it corrupt it (a second instance does not see the first one's writes, and its own overwrite them). So
 * the embedded PostgreSQL process takes an exclusive lock file in the directory before opening it, holds it for its
 * lifetime and records where it listens; everything else that wants the database reads that record and connects
 * to the running server instead of opening the files (see `locate` and Embedded.ts).
 *
 * The lock file `whale-embedded.lock` holds JSON: `{pid, host, port, startedAt}` (`port` null while starting).
 * It is created with O_EXCL (atomic); it is stale when its process is gone — a crash, SIGKILL, a reboot — and is
 * then removed and taken again. Released (removed) on exit when it is still ours.
 */
import { closeSync, existsSync, openSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from "node:fs"
import { connect } from "node:net"
import { join } from "node:path"

export const LOCK_FILE = "whale-embedded.lock"

export interface LockRecord {
  readonly pid: number
  readonly host: string
  readonly port: number | null
  readonly startedAt: string
}

export class DatabaseLocked extends Error {
  constructor(readonly dir: string, readonly holder: LockRecord) {
    super(
      `The embedded database in ${dir} is in use by another process (pid ${holder.pid}` +
        (holder.port !== null ? `, listening on ${holder.host}:${holder.port}` : ", starting") +
        `). Only one server may run on a data directory: stop it first, or give this one another DATA_DIR. ` +
        `Commands (admin, wallets, backfill, migrate) connect to the running server by themselves.`
    )
  }
}

export const lockPath = (dir: string) => join(dir, LOCK_FILE)

export const processAlive = (pid: number): boolean => {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    // EPERM: it exists, owned by someone else.
    return (e as NodeJS.ErrnoException).code === "EPERM"
  }
}

export const readLock = (dir: string): LockRecord | null => {
  try {
    const parsed = JSON.parse(readFileSync(lockPath(dir), "utf8")) as Partial<LockRecord>
    if (typeof parsed.pid !== "number") return null
    return { pid: parsed.pid, host: parsed.host ?? "127.0.0.1", port: typeof parsed.port === "number" ? parsed.port : null, startedAt: parsed.startedAt ?? "" }
  } catch {
    return null
  }
}

/**
 * Takes the lock for this process, or throws `DatabaseLocked` when a live process holds it. A lock whose process is
 * gone (or whose file is unreadable: a crash while writing it) is stale: removed, and taken.
 */
export const acquireLock = (dir: string, pid = process.pid): { readonly listening: (host: string, port: number) => void; readonly release: () => void } => {
  const path = lockPath(dir)
  const record = (port: number | null, host = "127.0.0.1"): LockRecord => ({ pid, host, port, startedAt: new Date().toISOString() })
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600)
      try {
        writeSync(fd, JSON.stringify(record(null)))
      } finally {
        closeSync(fd)
      }
      let released = false
      return {
        listening: (host, port) => {
          // Replace the content atomically: a reader never sees a half-written record.
          const tmp = `${path}.${pid}.tmp`
          writeFileSync(tmp, JSON.stringify(record(port, host)), { mode: 0o600 })
          renameSync(tmp, path)
        },
        release: () => {
          if (released) return
          released = true
          if (readLock(dir)?.pid === pid) rmSync(path, { force: true })
        }
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e
      const holder = readLock(dir)
      if (holder !== null && holder.pid !== pid && processAlive(holder.pid)) throw new DatabaseLocked(dir, holder)
      // Stale: its process is gone (or the file is unreadable). Remove it and try again.
      rmSync(path, { force: true })
    }
  }
  throw new Error(`could not take the lock ${path}`)
}

const answers = (host: string, port: number, timeoutMs = 1_000) =>
  new Promise<boolean>((resolve) => {
    const s = connect({ host, port })
    const done = (ok: boolean) => {
      clearTimeout(timer)
      s.destroy()
      resolve(ok)
    }
    const timer = setTimeout(() => done(false), timeoutMs)
    s.once("connect", () => done(true))
    s.once("error", () => done(false))
  })

/**
 * Where a running embedded server of this directory listens, or null when none runs (no lock, or a stale one). A
 * server still starting is waited for (up to `waitMs`).
 */
export const locate = async (dir: string, waitMs = 60_000): Promise<{ host: string; port: number; pid: number } | null> => {
  if (!existsSync(lockPath(dir))) return null
  const deadline = Date.now() + waitMs
  while (true) {
    const holder = readLock(dir)
    if (holder === null || !processAlive(holder.pid)) return null
    if (holder.port !== null && (await answers(holder.host, holder.port))) return { host: holder.host, port: holder.port, pid: holder.pid }
    if (Date.now() > deadline) return null
    await new Promise((r) => setTimeout(r, 100))
  }
}
