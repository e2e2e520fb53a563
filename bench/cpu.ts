/**
 * CPU time of processes from /proc (Linux), for the benchmarks that say whether the machine was saturated and by whom.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"

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
