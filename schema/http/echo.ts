/**
 * Wire shapes of Echo, the copy-trading simulator (spec §4.11): requests, responses, the admin settings and the
 * live valuation pushed on `user:<id>` (kind `echo`). Shared by the server, the console and the tests.
 */
import { z } from "zod"
import { address, intParam } from "../common"
import { WhaleTx } from "../records"
import { endpoint } from "./endpoint"

const positive = z.coerce.number().refine((n) => Number.isFinite(n) && n > 0, "Input should be greater than 0")

/** A client-chosen command id (retries of the same request apply once). */
const commandId = z.string().trim().min(8).max(100).regex(/^[A-Za-z0-9:_\-.]+$/, "letters, digits and : _ - . only")

export const TradeRequest = z
  .object({
    side: z.string().trim().toUpperCase().pipe(z.enum(["BUY", "SELL"])),
    token: address,
    usd: positive.optional(),
    quantity: positive.optional(),
    command_id: commandId.optional()
  })
  .refine((b) => (b.usd === undefined) !== (b.quantity === undefined), { message: "Give exactly one of usd and quantity", path: ["usd"] })
export type TradeRequest = z.infer<typeof TradeRequest>

export const CopyRequest = z
  .object({
    tx_hash: z.string().trim().regex(/^0x[0-9a-fA-F]{64}$/, "value is not a transaction hash").transform((h) => h.toLowerCase()),
    log_index: z.coerce.number().int().min(-1).optional(),
    wallet: address.optional(),
    usd: positive.optional(),
    fraction: positive.pipe(z.number().max(1, "fraction is at most 1")).optional(),
    command_id: commandId.optional()
  })
  .refine((b) => !(b.usd !== undefined && b.fraction !== undefined), { message: "Give at most one of usd and fraction", path: ["usd"] })
export type CopyRequest = z.infer<typeof CopyRequest>

export const Holding = z.object({
  token: z.string(),
  symbol: z.string(),
  quantity: z.number(),
  avg_entry: z.number(),
  cost_usd: z.number(),
  price: z.number().nullable(),
  value_usd: z.number(),
  unrealized_pnl: z.number().nullable(),
  unrealized_pct: z.number().nullable(),
  opened_at: z.string()
})
export type Holding = z.infer<typeof Holding>

export const Portfolio = z.object({
  start_cash: z.number(),
  cash: z.number(),
  holdings: z.array(Holding),
  holdings_value: z.number(),
  total_value: z.number(),
  realized_pnl: z.number(),
  unrealized_pnl: z.number(),
  total_pnl: z.number(),
  return_pct: z.number(),
  resets: z.number().int(),
  started_at: z.string(),
  version: z.number().int(),
  as_of: z.string()
})
export type Portfolio = z.infer<typeof Portfolio>

export const Trade = z.object({
  id: z.number().int(),
  command_id: z.string(),
  origin: z.enum(["manual", "copy", "auto", "retraction"]),
  side: z.enum(["BUY", "SELL"]),
  token: z.string(),
  symbol: z.string(),
  quantity: z.number(),
  price: z.number(),
  usd: z.number(),
  market_price: z.number(),
  whale_price: z.number().nullable(),
  slippage_bps: z.number(),
  gas_usd: z.number(),
  delay_blocks: z.number().int(),
  fill_block: z.number().int().nullable(),
  liquidity_usd: z.number().nullable(),
  realized_pnl: z.number().nullable(),
  whale: z.object({ tx_hash: z.string(), log_index: z.number().int(), wallet: z.string(), block: z.number().int(), usd: z.number().nullable() }).nullable(),
  reverses: z.number().int().nullable(),
  created_at: z.string()
})
export type Trade = z.infer<typeof Trade>

export const TradeResponse = z.object({ trade: Trade, portfolio: Portfolio, replayed: z.boolean() })
export type TradeResponse = z.infer<typeof TradeResponse>

export const TradesQuery = z.object({ page: intParam({ min: 1, max: 100_000, default: 1 }), limit: intParam({ min: 1, max: 100, default: 25 }) })
export const TradesPage = z.object({ page: z.number().int(), limit: z.number().int(), total: z.number().int(), pages: z.number().int(), trades: z.array(Trade) })
export type TradesPage = z.infer<typeof TradesPage>

export const FeedQuery = z.object({ page: intParam({ min: 1, max: 10_000, default: 1 }), limit: intParam({ min: 1, max: 100, default: 25 }) })
/** A whale DEX record as Echo's feed shows it (the record's own fields from `WhaleTx`), with how to copy it. */
export const FeedItem = WhaleTx.pick({
  id: true, tx_hash: true, log_index: true, block: true, ts: true, wallet: true, wallet_label: true, token: true, symbol: true,
  usd: true, price_usd: true
}).extend({
  side: z.enum(["BUY", "SELL"]),
  /** How to copy it: the suggested size and what the fill would cost now; null when it cannot be copied. */
  copy_hint: z.object({ suggested_usd: z.number(), est_slippage_bps: z.number(), est_gas_usd: z.number(), delay_blocks: z.number().int() }).nullable()
})
export const FeedPage = z.object({ page: z.number().int(), limit: z.number().int(), total: z.number().int(), items: z.array(FeedItem) })
export type FeedPage = z.infer<typeof FeedPage>

export const Analytics = z.object({
  trades: z.number().int(),
  closed_trades: z.number().int(),
  wins: z.number().int(),
  losses: z.number().int(),
  win_rate: z.number().nullable(),
  realized_pnl: z.number(),
  unrealized_pnl: z.number(),
  profit_factor: z.number().nullable(),
  best_trade: z.object({ id: z.number().int(), symbol: z.string(), pnl: z.number() }).nullable(),
  worst_trade: z.object({ id: z.number().int(), symbol: z.string(), pnl: z.number() }).nullable(),
  avg_holding_hours: z.number().nullable(),
  risk_adjusted: z.number().nullable(),
  copy_vs_whale: z.object({
    copied_trades: z.number().int(),
    price_cost_usd: z.number(),
    gas_cost_usd: z.number(),
    cost_of_following_usd: z.number(),
    follower_pnl_usd: z.number(),
    at_whale_prices_pnl_usd: z.number()
  }),
  shadow: z.object({ skipped: z.number().int(), would_be_value_usd: z.number(), would_be_pnl_usd: z.number() })
})
export type Analytics = z.infer<typeof Analytics>

export const LeaderboardRow = z.object({
  rank: z.number().int(),
  display_name: z.string(),
  return_pct: z.number(),
  risk_adjusted: z.number().nullable(),
  trades: z.number().int(),
  closed_trades: z.number().int(),
  resets: z.number().int(),
  days: z.number().int()
})
export const Leaderboard = z.object({
  rows: z.array(LeaderboardRow),
  you: z.object({ rank: z.number().int().nullable(), eligible: z.boolean(), reason: z.string().nullable() }),
  rules: z.object({ min_days: z.number().int(), min_closed_trades: z.number().int(), risk_adjusted: z.string() })
})
export type Leaderboard = z.infer<typeof Leaderboard>

export const LagCurve = z.object({
  wallet: z.string(),
  trades: z.number().int(),
  window_days: z.number().int(),
  notional_usd: z.number(),
  points: z.array(z.object({ delay_blocks: z.number().int(), positions: z.number().int(), invested_usd: z.number(), pnl_usd: z.number(), return_pct: z.number().nullable() }))
})
export type LagCurve = z.infer<typeof LagCurve>

export const TokenFlowItem = z.object({ token: z.string(), symbol: z.string(), buy_usd: z.number(), sell_usd: z.number(), net_usd: z.number(), trades: z.number().int(), price_usd: z.number().nullable() })
export const HotTokens = z.object({ tokens: z.array(TokenFlowItem), window_hours: z.number().int() })
export const TokenList = z.object({ tokens: z.array(z.object({ address: z.string(), symbol: z.string(), trades: z.number().int() })), cached_seconds: z.number().int() })
export const TokenLookupQuery = z.object({ address: z.string().default("").pipe(address) })
export const TokenLookup = z.object({ address: z.string(), symbol: z.string(), price_usd: z.number().nullable(), priced_at: z.string().nullable() })
export const TokenFlow = z.object({ token: z.string(), symbol: z.string(), window_hours: z.number().int(), buy_usd: z.number(), sell_usd: z.number(), net_usd: z.number(), buys: z.number().int(), sells: z.number().int(), wallets: z.number().int() })

export const ChartTf = z.enum(["1H", "1D", "1W", "1M", "ALL"])
export const ChartQuery = z.object({ tf: z.string().default("1D").pipe(ChartTf) })
/** A figure with the reason it is unknown (never invented). */
const Stat = z.object({ value: z.number().nullable(), reason: z.string().nullable() })
export const ChartData = z.object({
  token: z.string(),
  symbol: z.string(),
  tf: ChartTf,
  bucket_seconds: z.number().int(),
  candles: z.array(z.object({ t: z.number().int(), o: z.number(), h: z.number(), l: z.number(), c: z.number(), v: z.number() })),
  stats: z.object({ market_cap: Stat, volume_24h: Stat, change_24h_pct: Stat, liquidity: Stat, all_time_high: Stat, high_24h: Stat, low_24h: Stat, price: Stat }),
  generated_at: z.string()
})
export type ChartData = z.infer<typeof ChartData>

export const ResetResponse = z.object({ portfolio: Portfolio })

export const AutoCopyRule = z.object({
  wallet: address,
  mode: z.enum(["fixed", "fraction"]),
  amount: positive,
  cap_usd: positive,
  copy_sells: z.boolean().default(true),
  enabled: z.boolean().default(true)
}).refine((r) => r.mode !== "fraction" || r.amount <= 1, { message: "a fraction is at most 1", path: ["amount"] })
export type AutoCopyRule = z.infer<typeof AutoCopyRule>
export const AutoCopyList = z.object({ rules: z.array(z.object({ wallet: z.string(), mode: z.enum(["fixed", "fraction"]), amount: z.number(), cap_usd: z.number(), copy_sells: z.boolean(), enabled: z.boolean() })) })
export const AutoCopyDelete = z.object({ wallet: address })

export const Shadow = z.object({
  items: z.array(z.object({ id: z.number().int(), reason: z.string(), side: z.enum(["BUY", "SELL"]), token: z.string(), symbol: z.string(), usd: z.number(), price: z.number().nullable(), quantity: z.number().nullable(), value_now_usd: z.number().nullable(), pnl_usd: z.number().nullable(), whale_tx_hash: z.string(), created_at: z.string() }))
})

export const EchoSettings = z.object({ echo_live: z.boolean(), echo_free_preview: z.boolean() })
export type EchoSettings = z.infer<typeof EchoSettings>
export const EchoSettingsUpdate = z.object({ echo_live: z.boolean().optional(), echo_free_preview: z.boolean().optional() })

/** `user:<id>` kind `echo`: the live valuation (and what caused it). */
export const EchoUserEvent = z.object({ reason: z.enum(["trade", "price", "reset", "auto-copy", "skip", "retraction"]), portfolio: Portfolio, trade: Trade.nullable().optional(), skip: z.string().nullable().optional() })
export type EchoUserEvent = z.infer<typeof EchoUserEvent>

// ------------------------------------------------------------------------------------------------------------
// Endpoints: whale tier (or the free preview; administrators always) while Echo is live, but `tokens`,
// `token-lookup` and `settings` (anyone) and `admin/settings` (administrators).

export const AddressParams = z.object({ address })
const tags = ["echo"]

export const EchoEndpoints = {
  portfolio: endpoint({ method: "GET", path: "/api/echo/portfolio", summary: "Cash, holdings at live prices, total value and P&L", tags, response: Portfolio }),
  feed: endpoint({
    method: "GET", path: "/api/echo/feed", summary: "The whale feed (DEX trades), newest first, with a copy hint", tags, query: FeedQuery, response: FeedPage
  }),
  trade: endpoint({
    method: "POST", path: "/api/echo/trade", summary: "A manual simulated trade, BUY or SELL, by usd or quantity", tags, body: TradeRequest, response: TradeResponse
  }),
  copy: endpoint({
    method: "POST", path: "/api/echo/copy", summary: "Copy one whale trade at a chosen size, filled honestly (delay, slippage, gas)", tags,
    body: CopyRequest, response: TradeResponse
  }),
  trades: endpoint({
    method: "GET", path: "/api/echo/trades", summary: "Trade history, newest first, with the total count", tags, query: TradesQuery, response: TradesPage
  }),
  leaderboard: endpoint({
    method: "GET", path: "/api/echo/leaderboard", summary: "Top 100 by return with a risk-adjusted column, and the caller's rank", tags, response: Leaderboard
  }),
  analytics: endpoint({
    method: "GET", path: "/api/echo/analytics", summary: "Win rate, P&L, profit factor, best/worst, holding time, copy versus whale", tags, response: Analytics
  }),
  hotTokens: endpoint({ method: "GET", path: "/api/echo/hot-tokens", summary: "Top tokens by whale volume in the last 24 h", tags, response: HotTokens }),
  chart: endpoint({
    method: "GET", path: "/api/echo/token/{address}/chart-data", summary: "OHLC from priced whale trades and market stats (cached 5 minutes)", tags,
    params: AddressParams, query: ChartQuery, response: ChartData
  }),
  tokens: endpoint({
    method: "GET", path: "/api/echo/tokens", summary: "Tracked tokens (no stablecoins, ETH derivatives or blacklisted) by trade count; cached 5 minutes", tags,
    response: TokenList
  }),
  lookup: endpoint({
    method: "GET", path: "/api/echo/token-lookup", summary: "Symbol and current price of a contract address", tags, query: TokenLookupQuery, response: TokenLookup
  }),
  flow: endpoint({
    method: "GET", path: "/api/echo/token/{address}/flow", summary: "24 h whale buy/sell flow of a token", tags, params: AddressParams, response: TokenFlow
  }),
  reset: endpoint({
    method: "POST", path: "/api/echo/reset", summary: "Back to the starting balance; holdings and history wiped (the leaderboard counts resets)", tags,
    response: ResetResponse
  }),
  lagCurve: endpoint({
    method: "GET", path: "/api/echo/wallet/{address}/lag-curve", summary: "Edge versus lag: copying this wallet at 0, 1, 5 and 25 blocks, after costs", tags,
    params: AddressParams, response: LagCurve
  }),
  rules: endpoint({ method: "GET", path: "/api/echo/autocopy", summary: "The caller's auto-copy rules", tags, response: AutoCopyList }),
  setRule: endpoint({
    method: "POST", path: "/api/echo/autocopy", summary: "Follow a whale wallet automatically (fixed USD or a fraction of its size, capped per trade)", tags,
    body: AutoCopyRule, response: AutoCopyList
  }),
  deleteRule: endpoint({
    method: "DELETE", path: "/api/echo/autocopy/{address}", summary: "Stop following a wallet", tags, params: AddressParams, response: AutoCopyList
  }),
  shadow: endpoint({ method: "GET", path: "/api/echo/shadow", summary: "Auto-copy skips kept as shadow positions, valued now", tags, response: Shadow }),
  settings: endpoint({ method: "GET", path: "/api/echo/settings", summary: "Whether Echo is live and open as a free preview", tags, response: EchoSettings }),
  updateSettings: endpoint({
    method: "PUT", path: "/api/echo/admin/settings", summary: "Set echo_live / echo_free_preview (administrators; every process follows within seconds)", tags,
    body: EchoSettingsUpdate, response: EchoSettings
  }),
  /** The Echo page: the console for whoever may use Echo, decided on the server (server/domains/echo/Page.ts). */
  page: endpoint({
    method: "GET", path: "/echo", summary: "The Echo simulator page (whale tier; free preview and coming-soon settings)", tags: ["echo", "pages"],
    produces: "text/html"
  })
}
