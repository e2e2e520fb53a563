/**
 * CPU time of processes from /proc (Linux), for the benchmarks that say whether the machine was saturated and by whom.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"

/** The pids of the processes whose name starts with `name` (from /proc; none elsewhere than Linux). */
export const pidsOf = (name: string): ReadonlyArray<number> => {
  if (!existsSync("/proc/self/stat")) return []
  return readdirSync("/proc").filter((d) => /^\d+$/.test(d)).filter((pid) => {
    try {
      return /^\d+ \((.*)\) /s.exec(readFileSync(`/proc/${pid}/stat`, "utf8"))?.[1]?.startsWith(name) === true
    } catch {
      return false // gone meanwhile
    }
  }).map(Number)
}

/** CPU time (ms) each of these processes has used so far, from /proc (clock ticks taken as 100 a second). */
const cpuOf = (pids: ReadonlyArray<number>): Map<number, number> => {
  const out = new Map<number, number>()
  for (const pid of pids) {
    try {
      const fields = /^\d+ \(.*\) (.*)$/s.exec(readFileSync(`/proc/${pid}/stat`, "utf8"))![1]!.split(" ")
      out.set(pid, (Number(fields[11]) + Number(fields[12])) * 10) // utime, stime
    } catch {
      // gone meanwhile
    }
  }
  return out
}

/**
 * The CPU time (ms) a set of processes has used since this was made: the ones running then from their time then, the
 * ones started since from zero (the servers' processes are looked for again every second, as connections come and
 * go). Null without /proc (not Linux).
 */
export const cpuMeter = (find: () => ReadonlyArray<number>) => {
  if (!existsSync("/proc/self/stat")) return () => null
  let pids = find()
  let foundAt = Date.now()
  const base = cpuOf(pids)
  return (): number | null => {
    if (Date.now() - foundAt >= 1000) {
      pids = find()
      foundAt = Date.now()
    }
    let used = 0
    for (const [pid, ms] of cpuOf(pids)) used += ms - (base.get(pid) ?? 0)
    return used
  }
}

/**
 * BENCH_CPU_PROFILE=<file>: a V8 CPU profile of this process from `startProfile()` to `stop()` (the block's work, not
 * the set-up), written as a `.cpuprofile` (open it in Chromium's DevTools, Performance tab). Without it, nothing.
 */
export const startProfile = async () => {
  const file = process.env.BENCH_CPU_PROFILE
  if (!file) return { stop: async () => {} }
  const { Session } = await import("node:inspector/promises")
  const session = new Session()
  session.connect()
  await session.post("Profiler.enable")
  await session.post("Profiler.setSamplingInterval", { interval: 500 })
  await session.post("Profiler.start")
  return {
    stop: async () => {
      const { profile } = await session.post("Profiler.stop")
      writeFileSync(file, JSON.stringify(profile))
      session.disconnect()
      console.error(`CPU profile written to ${file}`)
    }
  }
}

/** How long the system is watched with no block before one, for its background CPU rate. */
export const IDLE_WATCH_MS = Number(process.env.BENCH_IDLE_MS ?? 6000)

/**
 * The background CPU rates (CPU seconds per second) of a quiet system, per part: what each of `parts()` (CPU ms so
 * far) grows by over `ms` with no block, sampled as often as the block's own sampler will (its own cost is in both).
 * The block's own CPU is what was used meanwhile minus these rates times the time it took: the app's periodic actors,
 * PostgreSQL's and Redis's own housekeeping (and, on a shared machine, whatever else uses them) run whether or not a
 * block came.
 */
export const idleRates = async <K extends string>(parts: () => Record<K, number>, ms = IDLE_WATCH_MS, sampleEveryMs = 250) => {
  const start = parts()
  const t0 = performance.now()
  const sampler = setInterval(() => void parts(), sampleEveryMs)
  await new Promise((r) => setTimeout(r, ms))
  clearInterval(sampler)
  const end = parts()
  const elapsed = performance.now() - t0
  const rates = {} as Record<K, number>
  for (const k of Object.keys(start) as Array<K>) rates[k] = Math.max(0, (end[k] - start[k]) / elapsed)
  return rates
}

/**
 * The CPU a block caused, from what the app and the servers (PostgreSQL, Redis) used over `windowS` and their
 * background rates (s/s) seen with no block. The app's background is its own process's (periodic actors, the
 * bench's sampler): always subtracted. The servers are shared: a background over a quarter of what they used is
 * no quiet system's (a test run on the same database), and subtracting it could read anything down to zero, so
 * their part is then the gross one, an upper bound, and the text says so.
 */
export const causedCpu = (used: { readonly app: number; readonly servers: number }, rates: { readonly app: number; readonly servers: number }, windowS: number) => {
  const appBg = Math.min(used.app, rates.app * windowS)
  const serversBg = rates.servers * windowS
  const serversQuiet = serversBg <= used.servers / 4
  const seconds = used.app - appBg + used.servers - (serversQuiet ? serversBg : 0)
  const text = `${(used.app + used.servers).toFixed(2)} s used in ${windowS.toFixed(0)} s, less the background seen with no block ` +
    `(app ${rates.app.toFixed(3)} s/s: ${appBg.toFixed(2)} s; ` +
    (serversQuiet
      ? `PostgreSQL and Redis ${rates.servers.toFixed(3)} s/s: ${serversBg.toFixed(2)} s)`
      : `PostgreSQL and Redis ${rates.servers.toFixed(3)} s/s is no quiet server's: not subtracted, their part is gross)`) +
    ` = ${seconds.toFixed(2)} s`
  return { seconds, text }
}
