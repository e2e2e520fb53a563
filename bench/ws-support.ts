/**
 * Shared by the two servers of `npm run bench:ws`: the trades they broadcast (the feed's real payload, stamped with
 * the time they are handed to the server's fan-out), the paced broadcast loop, and the command line protocol on
 * stdin/stdout (`BENCH <json>` lines; the app's own logs may share stdout).
 */
import { randomBytes } from "node:crypto"
import { createInterface } from "node:readline"
import type { ChainTxMessage } from "../schema/streams"

export interface BroadcastCommand {
  readonly op: "broadcast"
  /** Messages per second to broadcast. */
  readonly rate: number
  readonly seconds: number
  /** Messages are handed over in batches this often. */
  readonly batchMs: number
}
export type Command = BroadcastCommand | { readonly op: "rss" } | { readonly op: "cpu" }

export const reply = (value: unknown) => process.stdout.write(`BENCH ${JSON.stringify(value)}\n`)

/** Resident memory after full collections (both servers run with --expose-gc), so garbage does not count. */
export const rssAfterGc = async () => {
  const gc = (globalThis as { gc?: () => void }).gc
  for (let i = 0; i < 3; i++) {
    gc?.()
    await new Promise((r) => setTimeout(r, 100))
  }
  return process.memoryUsage().rss
}

/** Runs the server's commands; `cpu` (user + system µs of this process so far) is answered here for every server. */
export const onCommands = (handle: (c: Exclude<Command, { op: "cpu" }>) => void) =>
  createInterface({ input: process.stdin }).on("line", (line) => {
    if (!line.trim()) return
    const c = JSON.parse(line) as Command
    if (c.op === "cpu") {
      const u = process.cpuUsage()
      reply({ cpu: u.user + u.system })
    } else handle(c)
  })

const WALLETS = Array.from({ length: 50 }, () => `0x${randomBytes(20).toString("hex")}`)
let n = 0

/** A whale trade as the block listener publishes it, `ts` = now (the client measures delivery time from it). */
export const trade = (): ChainTxMessage => {
  n++
  return {
    messageId: `bench-${n}`, id: n, tx_hash: `0x${n.toString(16).padStart(64, "0")}`, log_index: n % 7, block: 21_000_000 + Math.floor(n / 20),
    ts: new Date().toISOString(), wallet: WALLETS[n % WALLETS.length]!, wallet_label: n % 3 === 0 ? null : "Bench Capital",
    token: "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", symbol: "WETH", category: n % 2 === 0 ? "dex_buy" : "dex_sell",
    amount: (10 + (n % 500) / 7).toFixed(6), usd: 35_000 + (n % 997) * 13.37, price_usd: 3_200 + (n % 50) / 10,
    counter_token: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", counter_symbol: "USDC", venue: "Uniswap V3", source: "demo"
  }
}

/** Calls `emit(k)` every `batchMs` with the number of messages due so far at `rate`; resolves with the total. */
export const paced = async (c: BroadcastCommand, emit: (count: number) => Promise<void> | void) => {
  const started = performance.now()
  let sent = 0
  const total = Math.round(c.rate * c.seconds)
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * c.rate))
    if (due > sent) {
      await emit(due - sent)
      sent = due
    }
    await new Promise((r) => setTimeout(r, c.batchMs))
  }
  return sent
}
