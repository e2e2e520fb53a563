/**
 * The keyed data API (spec §2.4, §4.14): every body is `{data, meta}`; `data` shapes come from analytics.ts.
 * Quota headers on every keyed answer: `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset` (epoch
 * seconds of the next 00:00 UTC); a 429 also carries `Retry-After` and `reset_at` in its body.
 */
import { z } from "zod"
import { intParam } from "../common"
import { WhaleCategory } from "../records"
import { Tier } from "../tiers"
import { DataSource, ExcludedTotals, Excludes, IncludeQuery, Positioning, Stats, Timeframe, TokenFlow, TopTokens, WalletSearchData, WalletSearchQuery, WhaleIndex, WhaleTrade } from "./analytics"
import { endpoint } from "./endpoint"

export const EnvelopeMeta = z.object({
  tier: Tier,
  endpoint: z.string(),
  /** ISO 8601 with the UTC offset (`+00:00`). */
  generated_at: z.string(),
  source: DataSource,
  demo: z.boolean()
})
export type EnvelopeMeta = z.infer<typeof EnvelopeMeta>

export const envelope = <T extends z.ZodType>(data: T) => z.object({ data, meta: EnvelopeMeta })

/** `?tf=` of top-tokens and flows: exactly `1H`, `24H` or `7D` (anything else is a 422). */
export const TimeframeQuery = z.object({
  tf: Timeframe.optional().default("24H"),
  limit: intParam({ min: 1, max: 100, default: 10 })
}).merge(IncludeQuery)

export const FlowsQuery = z.object({
  tf: Timeframe.optional().default("24H"),
  /** A token address, or a symbol (`ETH` names WETH). */
  token: z.string().trim().min(1).max(64).optional(),
  limit: intParam({ min: 1, max: 200, default: 50 })
}).merge(IncludeQuery)

export const FlowsData = z.object({
  timeframe: Timeframe, tokens: z.array(TokenFlow), excludes: Excludes.optional(),
  /** What was left out over the same window (of the `token` asked for, when given; of every token otherwise). */
  excluded: ExcludedTotals
})
export type FlowsData = z.infer<typeof FlowsData>

export const TransactionsQuery = z.object({
  before_id: intParam({ min: 1 }).optional(),
  token: z.string().trim().min(1).max(64).optional(),
  wallet: z.string().trim().regex(/^0x[0-9a-fA-F]{40}$/, "value is not a valid Ethereum address").transform((a) => a.toLowerCase()).optional(),
  category: WhaleCategory.optional(),
  limit: intParam({ min: 1, max: 500, default: 100 })
})
export type TransactionsQuery = z.infer<typeof TransactionsQuery>

export const TransactionsData = z.object({
  transactions: z.array(WhaleTrade),
  /** Pass as `before_id` for the next (older) page; null on the last page. */
  next_before_id: z.number().int().nullable()
})
export type TransactionsData = z.infer<typeof TransactionsData>

export const UsageData = z.object({
  /** Requests counted today (UTC) for the account, this one included. */
  used: z.number().int(),
  limit: z.number().int(),
  remaining: z.number().int(),
  /** Next 00:00 UTC. */
  reset_at: z.string(),
  /** Requests of each of the account's active keys today. */
  keys: z.array(z.object({ prefix: z.string(), name: z.string(), requests: z.number().int() }))
})
export type UsageData = z.infer<typeof UsageData>

/** The wallet search of the alerts pages, also keyed (`/api/v1/wallets`). */
export { WalletSearchData, WalletSearchQuery, WalletSearchResult } from "./analytics"

// ------------------------------------------------------------------------------------------------------------
// Endpoints (X-API-Key, whale tier). A bad query is a 422 counted against the quota, with the quota headers.

const tags = ["data-api"]

export const DataApiEndpoints = {
  whaleIndex: endpoint({
    method: "GET", path: "/api/v1/whale-index", summary: "Whale Sentiment Index: today's score, components with weights, 30-day history, human-vs-bot split", tags,
    query: IncludeQuery, response: envelope(WhaleIndex)
  }),
  topTokens: endpoint({
    method: "GET", path: "/api/v1/top-tokens", summary: "Top tokens by whale volume for tf = 1H, 24H or 7D (stablecoins excluded)", tags,
    query: TimeframeQuery, response: envelope(TopTokens)
  }),
  flows: endpoint({
    method: "GET", path: "/api/v1/flows", summary: "Per-token flows: dex_buy_usd, dex_sell_usd, exchange_withdraw_usd, exchange_deposit_usd", tags,
    query: FlowsQuery, response: envelope(FlowsData)
  }),
  transactions: endpoint({
    method: "GET", path: "/api/v1/transactions", summary: "Whale transactions, newest first; page with before_id → next_before_id", tags,
    query: TransactionsQuery, response: envelope(TransactionsData)
  }),
  positioning: endpoint({
    method: "GET", path: "/api/v1/positioning", summary: "Accumulation by asset and size cohort with divergence and top accumulators", tags,
    query: IncludeQuery, response: envelope(Positioning)
  }),
  stats: endpoint({ method: "GET", path: "/api/v1/stats", summary: "Tracked wallets, 24h whale buy and sell volume, latest block", tags,
    query: IncludeQuery, response: envelope(Stats) }),
  wallets: endpoint({
    method: "GET", path: "/api/v1/wallets", summary: "Search tracked wallets by address prefix or label", tags,
    query: WalletSearchQuery, response: envelope(WalletSearchData)
  }),
  usage: endpoint({
    method: "GET", path: "/api/v1/usage", summary: "The caller's requests today (all keys of the account), limit and reset time", tags,
    response: envelope(UsageData)
  }),
  /** The same figures for the account page: signed in (session), not counted against the quota. */
  accountUsage: endpoint({
    method: "GET", path: "/api/keys/usage", summary: "Today's data API requests of the signed-in account (all keys), limit and reset; not counted", tags: ["api-keys"],
    response: UsageData
  })
}
