/**
 * `npm run bench:http`: GET /api/pricing on this server (served from its short in-process cache) against the same
 * JSON served by node:http, in one run, with the same pipelined load generator in a separate process.
 * Prints both and the ratio. Times are never asserted.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assertIdle, freePort, load, stop, tsx, waitForUrl } from "./support"

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)
const DEPTH = Number(process.env.BENCH_PIPELINE ?? 8)

await assertIdle("bench:http")
const dir = mkdtempSync(join(tmpdir(), "whale-bench-"))
const appPort = await freePort()
const app = tsx("server/main.ts", [], { PORT: String(appPort), HOST: "127.0.0.1", DATA_DIR: dir, EMBEDDED_DB_DIR: "memory://", LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "warn", WHALE_ROLES: "http" })
const appUrl = `http://127.0.0.1:${appPort}/api/pricing`
await waitForUrl(appUrl)
const json = await (await fetch(appUrl)).text()
const file = join(dir, "pricing.json")
writeFileSync(file, json)
const basePort = await freePort()
const base = tsx("bench/baseline-json-server.ts", [String(basePort), file])
const baseUrl = `http://127.0.0.1:${basePort}/api/pricing`
await waitForUrl(baseUrl)

console.error(`warming up, then ${SECONDS}s per target, ${CONNECTIONS} connections, pipeline ${DEPTH}, body ${json.length} B`)
const measured = await (async () => {
  await load(appUrl, 1, CONNECTIONS, DEPTH)
  await load(baseUrl, 1, CONNECTIONS, DEPTH)
  return { ours: await load(appUrl, SECONDS, CONNECTIONS, DEPTH), theirs: await load(baseUrl, SECONDS, CONNECTIONS, DEPTH) }
})().finally(() => Promise.all([stop(app), stop(base)]))
const { ours, theirs } = measured

const row = (name: string, r: typeof ours) =>
  `${name.padEnd(28)} ${String(r.rps).padStart(9)} req/s   p50 ${r.p50_ms} ms   p99 ${r.p99_ms} ms   errors ${r.errors}   non-2xx ${r.non2xx}`
console.log(row("uWS app  GET /api/pricing", ours))
console.log(row("node:http same JSON", theirs))
console.log(`ratio (uWS app / node:http): ${(ours.rps / theirs.rps).toFixed(2)}x`)
