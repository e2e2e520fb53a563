#!/usr/bin/env node
/**
 * Builds the console (client/dist) when it is missing or older than its sources, so `npm ci && npm start` shows the
 * product. Runs before `npm start` (prestart). When the build is up to date it only compares file times (a few
 * milliseconds). A failed build does not stop the service from starting: it says so and the server answers `/`
 * with its "not built" page, as before. `CONSOLE_BUILD=off` skips the check (production images build at image time).
 */
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const root = fileURLToPath(new URL("..", import.meta.url))
const built = join(root, "client", "dist", "index.html")
/** What the console bundle is built from. */
const sources = ["client/src", "client/index.html", "client/vite.config.ts", "schema", "package-lock.json"].map((p) => join(root, p))

/** The newest modification time under `path` (0 when it does not exist). */
const newest = (path) => {
  if (!existsSync(path)) return 0
  const stat = statSync(path)
  if (!stat.isDirectory()) return stat.mtimeMs
  let max = stat.mtimeMs
  for (const entry of readdirSync(path)) max = Math.max(max, newest(join(path, entry)))
  return max
}

export const consoleState = () => {
  if (!existsSync(built)) return "missing"
  return newest(built) < Math.max(...sources.map(newest)) ? "stale" : "fresh"
}

const main = () => {
  if ((process.env.CONSOLE_BUILD ?? "").toLowerCase() === "off") return
  const state = consoleState()
  if (state === "fresh") return
  const vite = join(root, "node_modules", "vite", "bin", "vite.js")
  if (!existsSync(vite)) {
    console.warn(`[console] the console is ${state} and vite is not installed (npm ci installs it); starting without rebuilding it`)
    return
  }
  console.log(`[console] the console build is ${state}: building it (npm run build)…`)
  const started = Date.now()
  const result = spawnSync(process.execPath, [vite, "build", "--config", "client/vite.config.ts", "--logLevel", "warn"], { cwd: root, stdio: "inherit" })
  if (result.status === 0) console.log(`[console] built in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  else console.warn(`[console] the build failed (exit ${result.status ?? result.signal}); starting anyway — run npm run build to see why`)
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main()
