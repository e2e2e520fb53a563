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

/** Rates as `app 0.012, PostgreSQL 0.030 …` (CPU seconds per second). */
export const ratesText = (rates: Record<string, number>) =>
  Object.entries(rates).map(([k, v]) => `${k} ${v.toFixed(3)}`).join(", ")

/**
 * The CPU a block caused: what was used (`usedS` over `windowS`) less the background (`rate` s/s). A background that
 * would take more than a quarter of what was used is not a quiet system's (another user of the shared database, a
 * test run): subtracting it could read anything down to zero, so the figure is then the gross one, an upper bound,
 * and says so.
 */
export const causedCpu = (usedS: number, windowS: number, rate: number) => {
  const background = rate * windowS
  if (background > usedS / 4) {
    return { seconds: usedS, text: `${usedS.toFixed(2)} s used in ${windowS.toFixed(0)} s, gross: the background seen with no block (${rate.toFixed(3)} s/s, ${background.toFixed(1)} s over the window) is no quiet system's, so nothing is subtracted` }
  }
  const seconds = usedS - background
  return { seconds, text: `${usedS.toFixed(2)} s used in ${windowS.toFixed(0)} s, less the background ${rate.toFixed(3)} s/s seen with no block (${background.toFixed(2)} s) = ${seconds.toFixed(2)} s` }
}
