/**
 * The expanded keyed data API (issue 29): per-token history, bulk export and the keyed WebSocket feed's frames.
 * Same key (`X-API-Key`), whale tier, envelope (history) and quota headers as schema/http/dataapi.ts.
 */
import { z } from "zod"
import { intParam } from "../common"
import { envelope } from "./dataapi"
import { endpoint } from "./endpoint"

const tags = ["data-api"]

/** An instant: ISO 8601 (`2026-11-01`, `2026-11-01T12:00:00Z`) or epoch seconds. */
export const Instant = z.string().trim().min(1).max(40).transform((v, ctx) => {
  const ms = /^\d{9,11}$/.test(v) ? Number(v) * 1000 : Date.parse(v)
  if (!Number.isFinite(ms)) {
    ctx.addIssue({ code: "custom", message: "value is not a date (ISO 8601 or epoch seconds)" })
    return z.NEVER
  }
  return ms
})

export const HOUR_MS = 3_600_000
export const DAY_MS = 86_400_000
/** The longest range of each interval: 30 days of hours, 2 years (731 days) of days. */
export const HISTORY_MAX_MS = { hour: 30 * DAY_MS, day: 731 * DAY_MS } as const
/** The range when `from` is left out: 24 hours of hours, 30 days of days. */
export const HISTORY_DEFAULT_MS = { hour: DAY_MS, day: 30 * DAY_MS } as const

export const HistoryInterval = z.enum(["hour", "day"])
export type HistoryInterval = z.infer<typeof HistoryInterval>

export const TokenHistoryParams = z.object({
  /** A token address, or a symbol (`ETH` names WETH). */
  token: z.string().trim().min(1).max(64)
})

export const TokenHistoryQuery = z.object({
  interval: HistoryInterval.optional().default("day"),
  /** Start (inclusive), floored to the bucket; default: 24 h (hour) or 30 days (day) before `to`. */
  from: Instant.optional(),
  /** End (exclusive); default: now. */
  to: Instant.optional()
}).superRefine((q, ctx) => {
  // Checked here, so the 422 of a range past the bound is the metered path's (counted, with the quota headers).
  const to = q.to ?? Date.now()
  const from = q.from ?? to - HISTORY_DEFAULT_MS[q.interval]
  if (from >= to) ctx.addIssue({ code: "custom", path: ["from"], message: "from must be before to", input: q.from })
  else if (to - from > HISTORY_MAX_MS[q.interval]) {
    ctx.addIssue({ code: "custom", path: ["from"], message: `the range of interval=${q.interval} is at most ${HISTORY_MAX_MS[q.interval] / DAY_MS} days`, input: q.from })
  }
})
export type TokenHistoryQuery = z.infer<typeof TokenHistoryQuery>

export const HistoryBucket = z.object({
  /** Start of the bucket (UTC, ISO 8601). */
  t: z.string(),
  buy_usd: z.number(),
  sell_usd: z.number(),
  net_usd: z.number(),
  /** DEX buys + sells by tracked whales. */
  trades: z.number().int(),
  /** Distinct wallets with a DEX trade in the bucket. */
  whales: z.number().int(),
  /** Volume-weighted price of the bucket's priced whale DEX trades (6 significant digits); null without one. */
  price_usd: z.number().nullable()
})
export type HistoryBucket = z.infer<typeof HistoryBucket>

export const TokenHistoryData = z.object({
  token: z.string(),
  symbol: z.string(),
  interval: HistoryInterval,
  from: z.string(),
  to: z.string(),
  buckets: z.array(HistoryBucket)
})
export type TokenHistoryData = z.infer<typeof TokenHistoryData>

/** The 409 of an ambiguous symbol: the addresses it names. */
export const AmbiguousToken = z.object({ detail: z.string(), code: z.literal("ambiguous_token"), addresses: z.array(z.string()) })

// ---- bulk export ------------------------------------------------------------------------------------------------

export const ExportFormat = z.enum(["ndjson", "csv"])
export type ExportFormat = z.infer<typeof ExportFormat>

/** Rows per quota unit: an export costs 1 request when it starts and 1 more per started 1,000 rows after the first. */
export const EXPORT_ROWS_PER_REQUEST = 1_000
/** The longest range of one export, by tier (ask again with the next range). */
export const EXPORT_MAX_DAYS = { whale: 92, staff: 731 } as const

export const ExportQuery = z.object({
  /** Start (inclusive). */
  from: Instant,
  /** End (exclusive); default now. */
  to: Instant.optional(),
  format: ExportFormat.optional().default("ndjson"),
  /** Resume: only rows with a greater id (the last id received). */
  after_id: intParam({ min: 0 }).optional()
})
export type ExportQuery = z.infer<typeof ExportQuery>

export const TokenFlowsExportQuery = ExportQuery.omit({ after_id: true }).extend({
  /** Only this token (address or symbol). */
  token: z.string().trim().min(1).max(64).optional(),
  /** Resume: only rows after this one (its `cursor`, `<day>:<token>`; rows go by day, then token). */
  after: z.string().trim().regex(/^\d{4}-\d\d-\d\d:0x[0-9a-fA-F]{40}$/, "value is not a cursor (<YYYY-MM-DD>:<token address>)").transform((v) => v.toLowerCase()).optional()
})
export type TokenFlowsExportQuery = z.infer<typeof TokenFlowsExportQuery>

/** One exported transaction (a row of `/api/v1/transactions`, oldest first by id). */
export const EXPORT_TX_COLUMNS = [
  "id", "tx_hash", "block", "ts", "wallet", "wallet_label", "token", "symbol", "category", "amount", "usd", "price_usd", "counter_symbol", "venue", "source"
] as const
/** One exported daily token flow: per UTC day × token, the four categories (USD) and record counts. */
export const EXPORT_FLOW_COLUMNS = [
  "cursor", "day", "token", "symbol", "dex_buy_usd", "dex_sell_usd", "exchange_withdraw_usd", "exchange_deposit_usd", "net_flow_usd", "trades", "whales"
] as const

export const DataApiLiveEndpoints = {
  tokenHistory: endpoint({
    method: "GET", path: "/api/v1/tokens/{token}/history",
    summary: "A token's whale buy/sell/net volume, trades, distinct whales and price per hour (≤ 30 days) or day (≤ 2 years); 404 unknown token, 409 ambiguous symbol",
    tags, params: TokenHistoryParams, query: TokenHistoryQuery, response: envelope(TokenHistoryData)
  }),
  exportTransactions: endpoint({
    method: "GET", path: "/api/v1/export/transactions",
    summary: "Whale transactions from..to as NDJSON or CSV, oldest first, streamed; resume with after_id; 1 request per 1,000 rows",
    tags, query: ExportQuery, produces: "application/x-ndjson"
  }),
  exportTokenFlows: endpoint({
    method: "GET", path: "/api/v1/export/token-flows",
    summary: "Daily whale flows per token from..to as NDJSON or CSV, streamed; resume with after (a row's cursor); 1 request per 1,000 rows",
    tags, query: TokenFlowsExportQuery, produces: "application/x-ndjson"
  })
}
