/**
 * Where a local payment stand-in keeps what the real provider would remember (customers, subscriptions, invoices)
 * across restarts of `npm start`: one JSON file under DATA_DIR, replaced atomically (write, then rename) after
 * every change. Without it a restarted embedded service would hold customer ids the stand-in no longer knows, and
 * the portal would answer 502 for them.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"

type Maps = Record<string, Map<string, Record<string, any>>>

/** Fills `maps` from the file, if there is one; a file that cannot be read is reported and ignored. */
export const loadStandInState = (file: string | undefined, maps: Maps): void => {
  if (!file || !existsSync(file)) return
  try {
    const saved = JSON.parse(readFileSync(file, "utf8")) as Record<string, Array<[string, Record<string, any>]>>
    for (const [name, map] of Object.entries(maps)) for (const [k, v] of saved[name] ?? []) map.set(k, v)
  } catch (e) {
    console.warn(`payment stand-in: ignoring unreadable state ${file}: ${(e as Error).message}`)
  }
}

export const saveStandInState = (file: string | undefined, maps: Maps): void => {
  if (!file) return
  mkdirSync(dirname(file), { recursive: true })
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, JSON.stringify(Object.fromEntries(Object.entries(maps).map(([name, map]) => [name, [...map]]))))
  renameSync(tmp, file)
}
