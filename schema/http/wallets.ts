/**
 * The wallet page (`/wallets/{address}` in the console) and the keyed wallet endpoints (`/api/v1/wallets/{address}`,
 * `/api/v1/wallets/{address}/flows`): who a wallet is and why (its identity with sources and reasons; a doubtful label
 * is never a label here, only named in a reason), its size cohort, flows, trades, picks and exchange movements.
 *
 * A custom wallet (one a user monitors privately) is its owner's: to anyone else it is an address we know nothing
 * of (404), on every endpoint here.
 */
import { z } from "zod"
import { intParam } from "../common"
import { IdentitySource, WalletClass, WalletKind } from "../identity"
import { WhaleCategory } from "../records"
import { DataSource, WhaleTrade } from "./analytics"
import { envelope } from "./dataapi"
import { endpoint } from "./endpoint"

/** A wallet address in a path: 0x and 40 hex digits, any case (answers use lower case). */
export const WalletAddress = z.string().trim().regex(/^0x[0-9a-fA-F]{40}$/, "value is not a valid Ethereum address").transform((a) => a.toLowerCase())
export const WalletParams = z.object({ address: WalletAddress })

export const Cohort = z.enum(["mega", "large", "mid", "small"])

/** One behaviour rule's evidence: how often, where last, up to five transactions. */
export const WalletEvidence = z.object({
  class: WalletClass,
  rule: z.string(),
  confidence: z.number(),
  hits: z.number().int(),
  txs: z.array(z.string()),
  pool: z.string().nullable(),
  counterpart: z.string().nullable(),
  exchange: z.string().nullable(),
  first_block: z.number().int(),
  last_block: z.number().int()
})

/** An operator's correction as the page shows it (who made it is not shown). */
export const WalletCorrection = z.object({
  action: z.enum(["set", "unset"]),
  field: z.enum(["class", "label"]),
  value: z.string().nullable(),
  reason: z.string(),
  at: z.string()
})

/** Who the wallet is: the class and label with their sources, why (reasons, strongest first), and how sure. */
export const WalletIdentityView = z.object({
  kind: WalletKind,
  /** EIP-7702: the contract an EOA delegates its code to. */
  delegate: z.string().nullable(),
  class: WalletClass,
  class_source: IdentitySource.nullable(),
  /** The exchange's name when the class is `exchange`. */
  exchange: z.string().nullable(),
  /** A label held as fact, or null (doubtful labels are only named in `reasons`). */
  label: z.string().nullable(),
  label_source: IdentitySource.nullable(),
  confidence: z.number().min(0).max(1),
  reasons: z.array(z.string()),
  /** First and last block the identity engine met the address in (null: not met on chain yet). */
  first_block: z.number().int().nullable(),
  last_block: z.number().int().nullable()
})
export type WalletIdentityView = z.infer<typeof WalletIdentityView>

/** The wallet in the tracked set (null: not tracked; it is known from the identity engine alone). */
export const WalletTracking = z.object({
  label: z.string(),
  cohort: Cohort,
  /** seed, import, discovered, demo; `custom` only in its owner's answers. */
  source: z.string(),
  active: z.boolean()
})

/** One asset the wallet held when whale discovery measured it (`balanceOf` of the majors and stablecoins, ETH balance). */
export const WalletHolding = z.object({
  symbol: z.string(),
  units: z.number(),
  /** null: no price for the asset when it was measured. */
  usd: z.number().nullable()
})

/**
 * Size: the cohort of the tracked set; holdings in USD when measured (null, `holdings` empty and `measured_at` null
 * until whale discovery measures the wallet), by asset, when measured, and the cohort the measured size puts it in.
 */
export const WalletSize = z.object({
  cohort: Cohort.nullable(),
  holdings_usd: z.number().nullable(),
  holdings: z.array(WalletHolding),
  measured_at: z.string().nullable(),
  measured_cohort: z.enum(["mega", "large", "mid"]).nullable()
}).meta({
  examples: [{
    cohort: "large", holdings_usd: 31_250_000, measured_at: "2026-11-27T06:00:00.000Z", measured_cohort: "large",
    holdings: [{ symbol: "ETH", units: 4_100, usd: 14_350_000 }, { symbol: "USDC", units: 16_900_000, usd: 16_900_000 }]
  }]
})
export type WalletSize = z.infer<typeof WalletSize>

/**
 * One change of the wallet's identity, newest first: a class change (by seed data, a label file or a behaviour rule,
 * with its reason) or an operator's correction (`correction: true`, with the operator's reason; who made it is not
 * shown). `previous` is the class before a class change (null: none, or a label change).
 */
export const WalletHistoryEntry = z.object({
  at: z.string(),
  field: z.enum(["class", "label"]),
  action: z.enum(["set", "unset"]),
  value: z.string().nullable(),
  previous: z.string().nullable(),
  source: IdentitySource.nullable(),
  reason: z.string().nullable(),
  /** How sure the source was (null: an operator's change that did not move the class). */
  confidence: z.number().min(0).max(1).nullable(),
  /** The block the change was seen in (null: an operator's, or not from a block). */
  block: z.number().int().nullable(),
  correction: z.boolean()
}).meta({
  examples: [{
    at: "2026-11-27T09:12:44.000Z", field: "class", action: "set", value: "mev_bot", previous: "trader", source: "rule",
    reason: "sandwich: front-ran and back-ran 0xab…12 in pool 0x88e6…5640 (tx 0x5f…e1)", confidence: 0.95, block: 17173049, correction: false
  }]
})
export type WalletHistoryEntry = z.infer<typeof WalletHistoryEntry>

/** Whale flows over a window of UTC days (today included), from the daily roll-ups. */
export const WalletFlowWindow = z.object({
  days: z.number().int(),
  dex_buy_usd: z.number(),
  dex_sell_usd: z.number(),
  exchange_withdraw_usd: z.number(),
  exchange_deposit_usd: z.number(),
  /** Buys + withdrawals − sells − deposits. */
  net_flow_usd: z.number(),
  trades: z.number().int()
})
export type WalletFlowWindow = z.infer<typeof WalletFlowWindow>

export const WalletSummary = z.object({
  address: z.string(),
  identity: WalletIdentityView,
  tracked: WalletTracking.nullable(),
  size: WalletSize,
  /** The identity's changes, newest first (at most 50). */
  history: z.array(WalletHistoryEntry),
  flows: z.object({ "7d": WalletFlowWindow, "30d": WalletFlowWindow }),
  /** Last UTC day with records within the last 30. */
  last_active_day: z.string().nullable()
})
export type WalletSummary = z.infer<typeof WalletSummary>

/** One token's flows of the wallet over a window. */
export const WalletTokenFlow = z.object({
  token: z.string(),
  symbol: z.string(),
  dex_buy_usd: z.number(),
  dex_sell_usd: z.number(),
  exchange_withdraw_usd: z.number(),
  exchange_deposit_usd: z.number(),
  net_flow_usd: z.number(),
  trades: z.number().int()
})
export type WalletTokenFlow = z.infer<typeof WalletTokenFlow>

export const WalletDayFlow = WalletTokenFlow.extend({ day: z.string() })
export type WalletDayFlow = z.infer<typeof WalletDayFlow>

/** A pick the wallet flagged (one of its flaggers). */
export const WalletPick = z.object({
  id: z.number().int(),
  token: z.string(),
  symbol: z.string(),
  flagged_at: z.string(),
  status: z.string(),
  whales: z.number().int(),
  conviction: z.number(),
  close_return: z.number().nullable(),
  peak_return: z.number().nullable(),
  /** The wallet's first exit after the flag, if any. */
  exit: z.object({ at: z.string(), route: z.string(), move: z.number().nullable() }).nullable()
})
export type WalletPick = z.infer<typeof WalletPick>

/** `GET /api/console/wallets/{address}`: the page's first screen. */
export const WalletPage = WalletSummary.extend({
  evidence: z.array(WalletEvidence),
  corrections: z.array(WalletCorrection),
  /** The signed-in owner's own label of a custom wallet (only they see it). */
  your_label: z.string().nullable(),
  tokens_30d: z.array(WalletTokenFlow),
  picks: z.array(WalletPick),
  /** The newest exchange deposits and withdrawals. */
  exchange: z.array(WhaleTrade),
  /** Anonymous callers see records this much late (as on the feed). */
  delay_ms: z.number().int(),
  meta: z.object({ source: DataSource, demo: z.boolean(), generated_at: z.string() })
})
export type WalletPage = z.infer<typeof WalletPage>

export const WalletTradesQuery = z.object({
  before_id: intParam({ min: 1 }).optional(),
  category: WhaleCategory.optional(),
  limit: intParam({ min: 1, max: 100, default: 50 })
})
export const WalletTrades = z.object({ trades: z.array(WhaleTrade), next_before_id: z.number().int().nullable() })
export type WalletTrades = z.infer<typeof WalletTrades>

/** `?days=` of the keyed flows: 1–365 (default 30). */
export const WalletFlowsQuery = z.object({ days: intParam({ min: 1, max: 365, default: 30 }) })

/** Rows a flows answer carries at most; `truncated` says when more existed (the oldest days are left out). */
export const WALLET_FLOW_DAY_ROWS = 2_000
export const WALLET_FLOW_TOKENS = 200

export const WalletFlows = z.object({
  address: z.string(),
  identity: WalletIdentityView,
  days: z.number().int(),
  /** First and last UTC day of the window (today included). */
  from: z.string(),
  to: z.string(),
  totals: WalletFlowWindow,
  /** Per token over the window, by gross volume. */
  tokens: z.array(WalletTokenFlow),
  /** Per day and token, newest first. */
  daily: z.array(WalletDayFlow),
  truncated: z.boolean()
})
export type WalletFlows = z.infer<typeof WalletFlows>

export const WalletEndpoints = {
  page: endpoint({
    method: "GET", path: "/api/console/wallets/{address}",
    summary: "A wallet's page: identity with sources and reasons, size, flows, picks, exchange movements (404: unknown, or another user's custom wallet)",
    tags: ["console"], params: WalletParams, response: WalletPage
  }),
  trades: endpoint({
    method: "GET", path: "/api/console/wallets/{address}/trades", summary: "A wallet's whale trades, newest first; page with before_id → next_before_id",
    tags: ["console"], params: WalletParams, query: WalletTradesQuery, response: WalletTrades
  })
}

const tags = ["data-api"]

/** Keyed (X-API-Key, whale tier), in the data API's envelope with its quota headers. */
export const WalletApiEndpoints = {
  wallet: endpoint({
    method: "GET", path: "/api/v1/wallets/{address}",
    summary: "A tracked wallet: identity (class, label, sources, reasons, confidence), size cohort and 7d/30d flows (404: not tracked)",
    tags, params: WalletParams, response: envelope(WalletSummary)
  }),
  flows: endpoint({
    method: "GET", path: "/api/v1/wallets/{address}/flows",
    summary: "A tracked wallet's buys, sells, net and exchange in/out per token and per day over days = 1..365, with its identity",
    tags, params: WalletParams, query: WalletFlowsQuery, response: envelope(WalletFlows)
  })
}
