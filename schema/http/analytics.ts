/**
 * Wire shapes of the analytics read models, shared by the public API, the keyed data API (inside its envelope),
 * the MCP tools, the WebSocket topics `index` / `top-tokens` and the console.
 */
import { z } from "zod"
import { intParam } from "../common"
import { WalletClass } from "../identity"
import { WhaleTx } from "../records"
import { endpoint } from "./endpoint"

/** Where the numbers come from; `demo` marks the built-in demo chain (never real market data). */
export const DataSource = z.enum(["rpc", "replay", "demo", "mixed", "none"])
export type DataSource = z.infer<typeof DataSource>

export const Timeframe = z.enum(["1H", "24H", "7D"])
export type Timeframe = z.infer<typeof Timeframe>

/**
 * What a figure leaves out (issue 28 part 5), carried by every figure answer: the wallet classes not counted (bots,
 * routers, pools, exchanges and bridges as the identity engine holds them; none with `include=bots`) and exchange
 * housekeeping (transfers between exchange wallets), which is never a flow.
 */
export const Excludes = z.object({
  classes: z.array(WalletClass),
  exchange_housekeeping: z.literal(true),
  /** True when the caller asked for `include=bots`. */
  bots_included: z.boolean(),
  description: z.string()
})
export type Excludes = z.infer<typeof Excludes>

/**
 * What an answer with exchange flows left out over its own window (issue 28 part 3): the exchange housekeeping
 * records (transfers between wallets of exchanges: hot ↔ cold, deposit sweeps, exchange to exchange), how many and
 * their USD value (records without a price count in `count`, not in `usd`). Never a flow, with `include=bots` too.
 */
export const ExcludedTotals = z.object({
  exchange_housekeeping: z.object({ count: z.number().int(), usd: z.number() })
}).meta({ examples: [{ exchange_housekeeping: { count: 42, usd: 18_250_000 } }] })
export type ExcludedTotals = z.infer<typeof ExcludedTotals>

/** `?include=bots`: count bots, routers, pools, exchanges and bridges too (keyed API; exchange housekeeping never). */
export const IncludeQuery = z.object({ include: z.enum(["bots"]).optional() })
export type Scope = "whales" | "all"

/** Carried by every public analytics body. */
export const PublicMeta = z.object({
  source: DataSource,
  demo: z.boolean(),
  generated_at: z.string(),
  cache_seconds: z.number().int(),
  license: z.literal("CC-BY-4.0"),
  attribution: z.string(),
  /** What the figures leave out (public answers count whales only). */
  excludes: Excludes.optional()
})
export type PublicMeta = z.infer<typeof PublicMeta>

export const Stats = z.object({
  tracked_wallets: z.number().int(),
  buy_volume_24h_usd: z.number(),
  sell_volume_24h_usd: z.number(),
  transactions_24h: z.number().int(),
  latest_block: z.object({ number: z.number().int(), ts: z.string(), age_seconds: z.number() }).nullable(),
  excludes: Excludes.optional()
})
export type Stats = z.infer<typeof Stats>

export const IndexComponent = z.object({
  name: z.string(),
  /** 0–100, 50 is neutral. */
  score: z.number(),
  weight: z.number(),
  /** The measured input, e.g. a ratio, before scaling. */
  raw: z.number().nullable(),
  description: z.string()
})

export const WhaleIndex = z.object({
  date: z.string(),
  score: z.number(),
  label: z.enum(["Extreme selling", "Selling", "Neutral", "Buying", "Extreme buying"]),
  components: z.array(IndexComponent),
  /** Daily closes, oldest first, up to 30 days (today excluded: it is `score`). */
  history: z.array(z.object({ date: z.string(), score: z.number() })),
  /**
   * Today's DEX volume split between whales (what the score counts) and the excluded classes (bots, routers, pools,
   * exchanges, bridges): how much of the market's whale-sized activity is not human (issue 28 part 5).
   */
  split: z.object({
    human_volume_usd: z.number(),
    bot_volume_usd: z.number(),
    /** bot / (human + bot) volume, 0–1; null with no volume. */
    bot_share: z.number().nullable(),
    human_wallets: z.number().int(),
    bot_wallets: z.number().int()
  }).optional(),
  excludes: Excludes.optional()
})
export type WhaleIndex = z.infer<typeof WhaleIndex>

export const TopToken = z.object({
  symbol: z.string(),
  token: z.string(),
  net_flow_usd: z.number(),
  buy_volume_usd: z.number(),
  sell_volume_usd: z.number(),
  trades: z.number().int(),
  whales: z.number().int()
})
export type TopToken = z.infer<typeof TopToken>

export const TopTokens = z.object({ timeframe: Timeframe, tokens: z.array(TopToken), excludes: Excludes.optional() })
export type TopTokens = z.infer<typeof TopTokens>

export const TokenFlow = z.object({
  token: z.string(),
  symbol: z.string(),
  dex_buy_usd: z.number(),
  dex_sell_usd: z.number(),
  exchange_withdraw_usd: z.number(),
  exchange_deposit_usd: z.number(),
  net_flow_usd: z.number(),
  trades: z.number().int()
})
export type TokenFlow = z.infer<typeof TokenFlow>

export const CohortFlow = z.object({
  cohort: z.enum(["mega", "large", "mid", "small"]),
  net_flow_7d_usd: z.number(),
  net_flow_30d_usd: z.number(),
  wallets: z.number().int()
})

export const AssetPositioning = z.object({
  symbol: z.string(),
  token: z.string(),
  net_flow_7d_usd: z.number(),
  net_flow_30d_usd: z.number(),
  /** 0–100 accumulation score (50 neutral). */
  score: z.number(),
  cohorts: z.array(CohortFlow).optional(),
  /** Largest net accumulators (alpha tier and above only). */
  top_accumulators: z.array(z.object({ wallet: z.string(), label: z.string(), net_flow_30d_usd: z.number() })).optional()
})

export const Positioning = z.object({
  /** Overall accumulation score of the majors (0–100). */
  score: z.number(),
  majors: z.array(AssetPositioning),
  /** Largest gap between cohorts' direction, e.g. mega wallets buying while mid wallets sell. */
  divergence: z.object({ score: z.number(), description: z.string() }),
  assets: z.array(AssetPositioning),
  cohorts: z.array(CohortFlow).optional(),
  excludes: Excludes.optional()
})
export type Positioning = z.infer<typeof Positioning>

/**
 * One whale transaction as the data API and the console's pages list it: a stored record (so `id` is set) without
 * `log_index` and `counter_token`; a custom wallet's `internal` records are listed as `rpc`.
 */
export const WhaleTrade = WhaleTx.omit({ log_index: true, counter_token: true }).extend({ source: DataSource })
export type WhaleTrade = z.infer<typeof WhaleTrade>

export const WalletSearchQuery = z.object({
  q: z.string().trim().max(100).optional().default(""),
  limit: intParam({ min: 1, max: 100, default: 20 })
})

export const WalletSearchResult = z.object({
  address: z.string(),
  label: z.string(),
  cohort: z.enum(["mega", "large", "mid", "small"]),
  active: z.boolean(),
  /** Buys + withdrawals − sells − deposits (USD) over the last 7 UTC days, today included. */
  net_flow_7d_usd: z.number(),
  trades_7d: z.number().int(),
  /** Last day with records within those 7 days. */
  last_active_day: z.string().nullable()
})
export const WalletSearchData = z.object({ wallets: z.array(WalletSearchResult) })
export type WalletSearchData = z.infer<typeof WalletSearchData>

// ------------------------------------------------------------------------------------------------------------
// Endpoints (the read models where spec §4.8 puts them for the alerts pages; anonymous)

export const AnalyticsEndpoints = {
  stats: endpoint({
    method: "GET", path: "/api/alerts/stats", summary: "Platform stats: tracked wallet count, 24h whale buy and sell volume, latest block", tags: ["alerts"],
    response: Stats
  }),
  walletSearch: endpoint({
    method: "GET", path: "/api/alerts/wallet-search", summary: "Search tracked wallets by address prefix or label", tags: ["alerts"],
    query: WalletSearchQuery, response: WalletSearchData
  })
}
