/**
 * `npm run bench:export`: rows per second of one bulk export (`/api/v1/export/transactions`, NDJSON, streamed) of
 * BENCH_EXPORT_ROWS (1,000,000) stored records, against paging `/api/v1/transactions` (500 a page, before_id) over
 * the same rows, in one run; with the process's peak RSS during each (server and client share this process, so the
 * figure bounds the server's). Prints, never asserts.
 */
import { loadavg } from "node:os"
import { startBenchApp } from "./live-support"

const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000)
const app = await startBenchApp("export")
const { key } = await app.whaleKey()
const headers = { "x-api-key": key }
const now = Date.now()
const span = 60 * 86_400_000
const t0 = Date.now()
for (let done = 0; done < ROWS; done += 100_000) {
  const n = Math.min(100_000, ROWS - done)
  await app.sql(`INSERT INTO whale_tx (tx_hash, log_index, wallet, token, symbol, category, amount, amount_raw, usd, price_usd, block_number, block_hash, ts, source)
    SELECT 'bench' || i, 0, '0x' || lpad(to_hex(i % 5000), 40, '0'), '0x' || lpad(to_hex(i % 300), 40, '0'), 'T' || (i % 300),
      (ARRAY['dex_buy','dex_sell','exchange_withdraw','exchange_deposit'])[1 + i % 4], 1.5, 1500000000000000000, 1000 + i % 5000, 700, 20000000 + i, 'h' || i,
      to_timestamp(($1::float8 - $2::float8 + (i::float8 / $3) * $2) / 1000), 'demo'
    FROM generate_series($4::int, $5::int) i`, [now, span, ROWS, done + 1, done + n])
}
console.error(`stored ${ROWS} records in ${((Date.now() - t0) / 1000).toFixed(0)} s`)
const from = new Date(now - span - 60_000).toISOString()
const to = new Date(now + 60_000).toISOString()

let peak = 0
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20)
const measure = async (name: string, run: () => Promise<number>) => {
  global.gc?.()
  const rssBefore = process.memoryUsage.rss()
  peak = rssBefore
  const started = performance.now()
  const rows = await run()
  const seconds = (performance.now() - started) / 1000
  return { name, rows, seconds, rowsPerSec: Math.round(rows / seconds), peakRssMb: Math.round(peak / 1048576), growthMb: Math.round((peak - rssBefore) / 1048576) }
}

const exported = await measure("export NDJSON", async () => {
  const res = await fetch(`${app.base}/api/v1/export/transactions?from=${from}&to=${to}`, { headers })
  if (!res.ok) throw new Error(`export answered ${res.status}`)
  let rows = 0
  const reader = res.body!.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    for (let i = 0; i < value.length; i++) if (value[i] === 10) rows++
  }
  return rows
})
const paged = await measure("paging /api/v1/transactions (500 a page)", async () => {
  let rows = 0
  let before: number | null = null
  do {
    const res: Response = await fetch(`${app.base}/api/v1/transactions?limit=500${before ? `&before_id=${before}` : ""}`, { headers })
    const data = (await res.json()).data as { transactions: Array<unknown>; next_before_id: number | null }
    rows += data.transactions.length
    before = data.next_before_id
  } while (before !== null)
  return rows
})
clearInterval(sampler)
await app.close()
for (const r of [exported, paged]) {
  console.log(`${r.name.padEnd(44)} ${String(r.rows).padStart(9)} rows in ${r.seconds.toFixed(1).padStart(6)} s = ${String(r.rowsPerSec).padStart(8)} rows/s; peak RSS ${r.peakRssMb} MB (+${r.growthMb} MB)`)
}
console.log(`export / paging: ${(exported.rowsPerSec / paged.rowsPerSec).toFixed(2)}× rows/s; rows equal: ${exported.rows === paged.rows}; load ${loadavg().map((l) => l.toFixed(2)).join(" ")}`)
process.exit(0)
