/**
 * The keyed WebSocket feed at `/api/v1/stream` (docs/api-keyed.md, "WebSocket feed"): the data API's key in the
 * `X-API-Key` header of the upgrade or in the first message; topics `trades` (with filters), `index` and `alerts`
 * (the caller's own); per-topic seq and resume as the console's hub (`since_seq`); every data frame delivered counts
 * one request against the daily quota.
 */
import { z } from "zod"

export const STREAM_PATH = "/api/v1/stream"
export const STREAM_TOPICS = ["trades", "index", "alerts"] as const
export const StreamTopic = z.enum(STREAM_TOPICS)
export type StreamTopic = z.infer<typeof StreamTopic>

/** Close codes (besides 1001 shutdown, 1008 abuse, 1011 internal). */
export const STREAM_CLOSE = {
  /** No key within the auth timeout, or an unknown / revoked key. */
  unauthorized: 4401,
  /** The key's owner is below the whale tier. */
  tierRequired: 4403,
  /** The daily quota is used up (every delivered data frame counts one request); reconnect after reset_at. */
  quotaExceeded: 4429,
  /** The client read too slowly: its undelivered frames passed the backpressure limit. */
  tooSlow: 4008,
  /** The key's account has STREAM_MAX_CONNECTIONS_PER_ACCOUNT feeds open already (on this server); close one first. */
  tooManyConnections: 4430
} as const

const address = z.string().trim().regex(/^0x[0-9a-fA-F]{40}$/, "value is not a valid Ethereum address").transform((a) => a.toLowerCase())

export const TradeFilters = z.object({
  /** Token addresses or symbols (`ETH` = WETH); any token when absent. */
  tokens: z.array(z.string().trim().min(1).max(64)).max(100).optional(),
  wallets: z.array(address).max(1_000).optional(),
  /** Only trades of at least this USD value (trades without a USD value are left out). */
  min_usd: z.number().nonnegative().optional(),
  /** `buy` = dex_buy, `sell` = dex_sell; every category (exchange flows included) when absent. */
  side: z.enum(["buy", "sell"]).optional()
}).strict()
export type TradeFilters = z.infer<typeof TradeFilters>

export const StreamClientMessage = z.discriminatedUnion("type", [
  z.object({ type: z.literal("auth"), key: z.string().min(1).max(200) }),
  z.object({
    type: z.literal("subscribe"),
    topic: StreamTopic,
    /** Resume: every message of the topic after this seq (log topics), without gap or duplicate. */
    since_seq: z.number().int().nonnegative().optional(),
    /** Without since_seq: the newest messages to send first (0–200, default 0). */
    backlog: z.number().int().min(0).max(200).optional(),
    filters: TradeFilters.optional()
  }),
  z.object({ type: z.literal("unsubscribe"), topic: StreamTopic }),
  z.object({ type: z.literal("ping"), id: z.union([z.string().max(64), z.number()]).optional() })
])
export type StreamClientMessage = z.infer<typeof StreamClientMessage>
