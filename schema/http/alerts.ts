/**
 * Alerts (spec §4.8, §6, §3.2): typed subscriptions, channel settings, delivery history, custom wallets and the
 * internal feed endpoints. Shared by the server, the console and the tests.
 *
 * A subscription is `{type, params, channels}`; `params` is optional where the type has defaults (every type but
 * `wallet_activity`, which needs its wallet). Unknown keys in `params` are refused (422), so a typo never silently
 * widens an alert.
 */
import { z } from "zod"
import { intParam } from "../common"
import { endpoint } from "./endpoint"

export const ALERT_TYPES = ["whale_trade", "wallet_activity", "exchange_flow", "convergence", "index_cross", "playbook_live", "pick_flagged"] as const
export const AlertType = z.enum(ALERT_TYPES)
export type AlertType = z.infer<typeof AlertType>

export const CHANNELS = ["messenger", "email", "console", "webhook"] as const
export const Channel = z.enum(CHANNELS)
export type Channel = z.infer<typeof Channel>

const Category = z.enum(["dex_buy", "dex_sell", "exchange_deposit", "exchange_withdraw"])

/** A token named by its contract address (any case) or its symbol (`ETH` and `WETH` are the same token). */
export const TokenRef = z
  .string()
  .trim()
  .min(1)
  .max(42)
  .regex(/^(0x[0-9a-fA-F]{40}|[A-Za-z0-9$._-]{1,20})$/, "a token contract address (0x + 40 hex) or a symbol")
  .transform((t) => (t.startsWith("0x") || t.startsWith("0X") ? t.toLowerCase() : t.toUpperCase()))

export const WalletAddress = z
  .string()
  .trim()
  .regex(/^0x[0-9a-fA-F]{40}$/, "a wallet address (0x + 40 hex)")
  .transform((a) => a.toLowerCase())

const Usd = (fallback: number) => z.number().min(0).max(1e12).default(fallback)

export const WhaleTradeParams = z.strictObject({
  token: TokenRef.nullable().default(null),
  side: z.enum(["buy", "sell", "any"]).default("any"),
  min_usd: Usd(100_000)
})
export const WalletActivityParams = z.strictObject({
  wallet: WalletAddress,
  categories: z.array(Category).min(1).max(4).nullable().default(null),
  min_usd: Usd(0)
})
export const ExchangeFlowParams = z.strictObject({
  direction: z.enum(["deposit", "withdraw", "any"]).default("any"),
  token: TokenRef.nullable().default(null),
  min_usd: Usd(1_000_000)
})
export const ConvergenceParams = z.strictObject({
  token: TokenRef.nullable().default(null),
  min_whales: z.number().int().min(2).max(50).default(3),
  window_minutes: z.number().int().min(5).max(1440).default(60),
  /** Buys smaller than this do not count towards convergence. */
  min_usd: Usd(10_000)
})
export const IndexCrossParams = z.strictObject({
  level: z.number().min(0).max(100).default(50),
  direction: z.enum(["up", "down", "any"]).default("any")
})
export const PlaybookLiveParams = z.strictObject({
  category: z.string().trim().min(1).max(64).nullable().default(null),
  min_severity: z.number().int().min(1).max(5).default(1)
})
export const PickFlaggedParams = z.strictObject({
  token: TokenRef.nullable().default(null),
  min_whales: z.number().int().min(1).max(1000).default(1),
  min_conviction: z.number().min(0).max(100).default(0)
})

export const PARAMS = {
  whale_trade: WhaleTradeParams,
  wallet_activity: WalletActivityParams,
  exchange_flow: ExchangeFlowParams,
  convergence: ConvergenceParams,
  index_cross: IndexCrossParams,
  playbook_live: PlaybookLiveParams,
  pick_flagged: PickFlaggedParams
} as const

export type WhaleTradeParams = z.infer<typeof WhaleTradeParams>
export type WalletActivityParams = z.infer<typeof WalletActivityParams>
export type ExchangeFlowParams = z.infer<typeof ExchangeFlowParams>
export type ConvergenceParams = z.infer<typeof ConvergenceParams>
export type IndexCrossParams = z.infer<typeof IndexCrossParams>
export type PlaybookLiveParams = z.infer<typeof PlaybookLiveParams>
export type PickFlaggedParams = z.infer<typeof PickFlaggedParams>

/** A parsed subscription: its type and the params of that type, defaults filled in. */
export type AlertSpec =
  | { readonly type: "whale_trade"; readonly params: WhaleTradeParams }
  | { readonly type: "wallet_activity"; readonly params: WalletActivityParams }
  | { readonly type: "exchange_flow"; readonly params: ExchangeFlowParams }
  | { readonly type: "convergence"; readonly params: ConvergenceParams }
  | { readonly type: "index_cross"; readonly params: IndexCrossParams }
  | { readonly type: "playbook_live"; readonly params: PlaybookLiveParams }
  | { readonly type: "pick_flagged"; readonly params: PickFlaggedParams }

const Channels = z
  .array(Channel)
  .min(1)
  .max(CHANNELS.length)
  .transform((list) => [...new Set(list)])

const Name = z.string().trim().min(1).max(80)

const variant = <T extends AlertType, P extends z.ZodType>(type: T, params: P) =>
  z.strictObject({
    type: z.literal(type),
    // `prefault`: an absent params object is parsed as `{}`, so the type's defaults apply.
    params: params.prefault({} as never),
    channels: Channels.default(["console"]),
    name: Name.nullable().default(null),
    enabled: z.boolean().default(true)
  })

export const CreateAlertRequest = z.discriminatedUnion("type", [
  variant("whale_trade", WhaleTradeParams),
  variant("wallet_activity", WalletActivityParams),
  variant("exchange_flow", ExchangeFlowParams),
  variant("convergence", ConvergenceParams),
  variant("index_cross", IndexCrossParams),
  variant("playbook_live", PlaybookLiveParams),
  variant("pick_flagged", PickFlaggedParams)
])
export type CreateAlertRequest = z.infer<typeof CreateAlertRequest>

/** PUT: any of these; `params` replaces the alert's params (checked against its type, defaults filled in). */
export const UpdateAlertRequest = z.strictObject({
  params: z.record(z.string(), z.unknown()).optional(),
  channels: Channels.optional(),
  name: Name.nullable().optional(),
  enabled: z.boolean().optional()
})
export type UpdateAlertRequest = z.infer<typeof UpdateAlertRequest>

export const AlertResponse = z.object({
  id: z.number().int(),
  type: AlertType,
  name: z.string().nullable(),
  params: z.record(z.string(), z.unknown()),
  channels: z.array(Channel),
  enabled: z.boolean(),
  snoozed_until: z.string().nullable(),
  cooldown_seconds: z.number().int(),
  last_fired_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string()
})
export type AlertResponse = z.infer<typeof AlertResponse>

export const AlertLimits = z.object({
  tier: z.string(),
  max_alerts: z.number().int(),
  types: z.array(AlertType),
  channels: z.array(Channel)
})
export type AlertLimits = z.infer<typeof AlertLimits>

export const ListAlertsResponse = z.object({
  alerts: z.array(AlertResponse),
  limits: AlertLimits,
  muted_until: z.string().nullable()
})
export type ListAlertsResponse = z.infer<typeof ListAlertsResponse>

/** Snooze and mute: hours from now; 0 removes. At most 30 days. */
export const MAX_SNOOZE_HOURS = 720
export const HoursRequest = z.strictObject({
  hours: z.coerce.number().int().min(0).max(MAX_SNOOZE_HOURS)
})
export const SnoozeResponse = z.object({ id: z.number().int(), snoozed_until: z.string().nullable() })
export const MuteResponse = z.object({ muted_until: z.string().nullable() })

// ------------------------------------------------------------------------------------------------------------
// Channels

export const ChannelSettings = z.object({
  messenger: z.object({
    enabled: z.boolean(),
    connected: z.boolean(),
    username: z.string().nullable(),
    connected_at: z.string().nullable(),
    bot_username: z.string().nullable(),
    configured: z.boolean()
  }),
  email: z.object({ enabled: z.boolean(), address: z.string().nullable() }),
  console: z.object({ enabled: z.boolean(), topic: z.string() }),
  webhook: z.object({
    enabled: z.boolean(),
    url: z.string().nullable(),
    secret_set: z.boolean(),
    disabled_reason: z.string().nullable()
  }),
  muted_until: z.string().nullable(),
  budget_per_hour: z.number().int(),
  cooldowns: z.record(AlertType, z.number().int())
})
export type ChannelSettings = z.infer<typeof ChannelSettings>

export const UpdateChannelsRequest = z.strictObject({
  messenger: z.strictObject({ enabled: z.boolean() }).optional(),
  email: z.strictObject({ enabled: z.boolean() }).optional(),
  console: z.strictObject({ enabled: z.boolean() }).optional(),
  webhook: z
    .strictObject({
      enabled: z.boolean().optional(),
      url: z.url({ protocol: /^https?$/ }).max(2048).nullable().optional(),
      /** Issue a new signing secret (shown once in this answer). */
      rotate_secret: z.boolean().optional()
    })
    .optional()
})
export type UpdateChannelsRequest = z.infer<typeof UpdateChannelsRequest>

/** The PUT answer: the settings, plus the webhook secret when one was just created (the only time it is shown). */
export const UpdateChannelsResponse = ChannelSettings.extend({ webhook_secret: z.string().optional() })

export const MessengerCodeResponse = z.object({
  code: z.string().regex(/^\d{6}$/),
  expires_at: z.string(),
  bot_username: z.string().nullable(),
  instructions: z.string()
})

export const MessengerVerifyRequest = z.strictObject({
  code: z.string().trim().regex(/^\d{6}$/, "six digits"),
  chat_id: z.union([z.number().int(), z.string().regex(/^-?\d{1,20}$/)]).transform(String),
  username: z.string().max(64).nullable().optional()
})
export const MessengerVerifyResponse = z.object({ connected: z.literal(true), user_id: z.number().int() })

/** Internal (bot): what a chat is bound to, and unbinding it. */
export const MessengerChatRequest = z.strictObject({
  chat_id: z.union([z.number().int(), z.string().regex(/^-?\d{1,20}$/)]).transform(String)
})
export const MessengerChatStatus = z.object({
  connected: z.boolean(),
  alerts: z.number().int(),
  muted_until: z.string().nullable()
})

export const TestChannelRequest = z.strictObject({ channel: Channel })
export const TestTypeRequest = z.strictObject({ type: AlertType })
export const TestResponse = z.object({
  sent: z.array(z.object({ channel: Channel, status: z.string(), detail: z.string().nullable() }))
})

// ------------------------------------------------------------------------------------------------------------
// History

export const HistoryQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  page: z.coerce.number().int().min(0).max(10_000).default(0)
})

export const DeliveryStatus = z.enum(["pending", "sending", "sent", "retrying", "failed", "digested", "cooldown", "skipped"])
export type DeliveryStatus = z.infer<typeof DeliveryStatus>

/** A delivery's type: an alert type, or `digest` (the folded overflow of a budget window). */
export const DeliveryType = z.union([AlertType, z.literal("digest")])

export const HistoryItem = z.object({
  id: z.number().int(),
  alert_id: z.number().int().nullable(),
  type: DeliveryType,
  title: z.string(),
  summary: z.string(),
  data: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  event_at: z.string(),
  channels: z.array(
    z.object({
      channel: Channel,
      status: DeliveryStatus,
      attempts: z.number().int(),
      delivered_at: z.string().nullable(),
      latency_ms: z.number().int().nullable(),
      error: z.string().nullable()
    })
  )
})
export type HistoryItem = z.infer<typeof HistoryItem>

export const HistoryResponse = z.object({
  items: z.array(HistoryItem),
  page: z.number().int(),
  limit: z.number().int(),
  has_more: z.boolean()
})

// ------------------------------------------------------------------------------------------------------------
// Custom wallets

export const MAX_CUSTOM_WALLETS = 25
export const CreateCustomWalletRequest = z.strictObject({
  address: z.string().trim().min(1).max(64),
  label: z.string().trim().min(1).max(64).nullable().default(null)
})
export const CustomWallet = z.object({
  id: z.number().int(),
  address: z.string(),
  label: z.string().nullable(),
  created_at: z.string()
})
export const CustomWalletsResponse = z.object({ wallets: z.array(CustomWallet), cap: z.number().int() })
export type CustomWalletsResponse = z.infer<typeof CustomWalletsResponse>

// ------------------------------------------------------------------------------------------------------------
// Internal feed endpoints (X-Internal-Secret)

/** One raw transaction record, as a scanner would post it: the `chain.tx` record shape, ids optional. */
export const InternalTxRequest = z.strictObject({
  tx_hash: z.string().regex(/^0x[0-9a-fA-F]{64}$/).transform((h) => h.toLowerCase()),
  log_index: z.number().int().min(-1).default(-1),
  block: z.number().int().nonnegative(),
  ts: z.iso.datetime({ offset: true }),
  wallet: WalletAddress,
  wallet_label: z.string().max(80).nullable().default(null),
  token: WalletAddress,
  symbol: z.string().trim().min(1).max(20),
  category: Category,
  amount: z.string().regex(/^\d+(\.\d+)?$/).default("0"),
  usd: z.number().min(0).nullable().default(null),
  price_usd: z.number().min(0).nullable().default(null),
  counter_token: WalletAddress.nullable().default(null),
  counter_symbol: z.string().max(20).nullable().default(null),
  venue: z.string().max(40).nullable().default(null)
})
export type InternalTxRequest = z.infer<typeof InternalTxRequest>

/** `dispatch`: a batch of records from the block listener, or one domain event. */
export const DispatchRequest = z.union([
  z.strictObject({ records: z.array(InternalTxRequest).min(1).max(5000) }),
  z.strictObject({
    event: z.discriminatedUnion("_tag", [
      z.strictObject({
        _tag: z.literal("PickFlagged"), pick_id: z.number().int(), token: z.string(), symbol: z.string(),
        flagged_at: z.string(), entry_price: z.number().nullable(), whales: z.number().int(), conviction: z.number()
      }),
      z.strictObject({
        _tag: z.literal("PlaybookEventStatus"), event_id: z.number().int(), title: z.string(), category: z.string(),
        severity: z.number().int(), status: z.enum(["SCHEDULED", "LIVE", "COMPLETED"]), at: z.string()
      }),
      z.strictObject({ _tag: z.literal("IndexValue"), value: z.number(), previous: z.number().nullable(), at: z.string() })
    ])
  })
])
export type DispatchRequest = z.infer<typeof DispatchRequest>
export const AcceptedResponse = z.object({ accepted: z.number().int(), stream: z.string() })

// ------------------------------------------------------------------------------------------------------------
// Live console (`user:<id>` topic, kind `alert`)

export const ConsoleAlert = z.object({
  delivery_id: z.number().int(),
  alert_id: z.number().int().nullable(),
  type: DeliveryType,
  title: z.string(),
  summary: z.string(),
  url: z.string().nullable(),
  event_at: z.string(),
  test: z.boolean()
})
export type ConsoleAlert = z.infer<typeof ConsoleAlert>

// ------------------------------------------------------------------------------------------------------------
// Endpoints

export const AlertIdParams = z.object({ alert_id: intParam({ min: 1 }) })
export const WalletIdParams = z.object({ wallet_id: intParam({ min: 1 }) })
/** Snooze and mute take `hours` in the body (JSON or form) or the query string. */
const Hours = z.object({ hours: intParam({ min: 0, max: MAX_SNOOZE_HOURS }).optional() })
export const DeletedResponse = z.object({ deleted: z.literal(true), id: z.number().int() })
export const MessengerDisconnectResponse = z.object({ disconnected: z.boolean() })

const tags = ["alerts"]
/** Called by the bot and by scanners with X-Internal-Secret, not by the console. */
const internal = ["alerts-internal"]

export const AlertEndpoints = {
  list: endpoint({ method: "GET", path: "/api/alerts", summary: "The caller's alerts, the tier's limits and the global mute", tags, response: ListAlertsResponse }),
  create: endpoint({
    method: "POST", path: "/api/alerts", summary: "Create an alert: {type, params, channels} (403 tier_required, 409 too_many_alerts)", tags,
    body: CreateAlertRequest, response: AlertResponse
  }),
  update: endpoint({
    method: "PUT", path: "/api/alerts/{alert_id}", summary: "Update an alert's params, channels, name or enabled flag", tags,
    params: AlertIdParams, body: UpdateAlertRequest, response: AlertResponse
  }),
  remove: endpoint({ method: "DELETE", path: "/api/alerts/{alert_id}", summary: "Delete an alert", tags, params: AlertIdParams, response: DeletedResponse }),
  snooze: endpoint({
    method: "POST", path: "/api/alerts/{alert_id}/snooze", summary: `Snooze an alert for hours (0-${MAX_SNOOZE_HOURS}; 0 removes the snooze)`, tags,
    params: AlertIdParams, query: Hours, body: Hours, response: SnoozeResponse
  }),
  mute: endpoint({
    method: "POST", path: "/api/alerts/mute", summary: `Mute every alert for hours (0-${MAX_SNOOZE_HOURS}; 0 unmutes)`, tags,
    query: Hours, body: Hours, response: MuteResponse
  }),
  history: endpoint({
    method: "GET", path: "/api/alerts/history", summary: "Recent deliveries of the caller, newest first, with per-channel status, attempts and latency", tags,
    query: HistoryQuery, response: HistoryResponse
  }),
  channels: endpoint({ method: "GET", path: "/api/alerts/channels", summary: "Channel settings: messenger, email, console, webhook; mute, budget, cooldowns", tags, response: ChannelSettings }),
  updateChannels: endpoint({
    method: "PUT", path: "/api/alerts/channels", summary: "Update channel settings; a new webhook secret is shown once in this answer", tags,
    body: UpdateChannelsRequest, response: UpdateChannelsResponse
  }),
  messengerCode: endpoint({
    method: "POST", path: "/api/alerts/channels/messenger", summary: "A one-time 6-digit code (10 minutes) to send to the bot as /connect <code>", tags,
    response: MessengerCodeResponse
  }),
  messengerVerify: endpoint({
    method: "POST", path: "/api/alerts/channels/messenger/verify", summary: "Internal (the bot): bind the chat of a /connect <code> to its user", tags: internal,
    body: MessengerVerifyRequest, response: MessengerVerifyResponse
  }),
  messengerStatus: endpoint({
    method: "POST", path: "/api/alerts/channels/messenger/status", summary: "Internal (the bot): whether a chat is bound, its alert count and mute", tags: internal,
    body: MessengerChatRequest, response: MessengerChatStatus
  }),
  messengerDisconnect: endpoint({
    method: "POST", path: "/api/alerts/channels/messenger/disconnect", summary: "Internal (the bot): unbind a chat", tags: internal,
    body: MessengerChatRequest, response: MessengerDisconnectResponse
  }),
  test: endpoint({
    method: "POST", path: "/api/alerts/test", summary: "Send a test notification on one channel; answers its outcome", tags,
    body: TestChannelRequest, response: TestResponse
  }),
  testType: endpoint({
    method: "POST", path: "/api/alerts/test-type", summary: "Send a sample of one alert type on every enabled channel", tags,
    body: TestTypeRequest, response: TestResponse
  }),
  wallets: endpoint({
    method: "GET", path: "/api/alerts/custom-wallets", summary: "The caller's custom wallets and cap (cap 0 below the whale tier)", tags,
    response: CustomWalletsResponse
  }),
  addWallet: endpoint({
    method: "POST", path: "/api/alerts/custom-wallets", summary: "Monitor a wallet (whale tier; checked address; from the next block)", tags,
    body: CreateCustomWalletRequest, response: CustomWallet
  }),
  removeWallet: endpoint({
    method: "DELETE", path: "/api/alerts/custom-wallets/{wallet_id}", summary: "Stop monitoring a custom wallet", tags,
    params: WalletIdParams, response: DeletedResponse
  }),
  processTx: endpoint({
    method: "POST", path: "/api/alerts/process-tx", summary: "Internal: one raw transaction record onto chain.tx (X-Internal-Secret)", tags: internal,
    body: InternalTxRequest, response: AcceptedResponse
  }),
  customWalletTx: endpoint({
    method: "POST", path: "/api/alerts/custom-wallet-tx", summary: "Internal: a record of a monitored custom wallet onto chain.tx (X-Internal-Secret)", tags: internal,
    body: InternalTxRequest, response: AcceptedResponse
  }),
  dispatch: endpoint({
    method: "POST", path: "/api/alerts/dispatch", summary: "Internal: a batch of records (chain.tx) or one domain event (domain.events) (X-Internal-Secret)",
    tags: internal, body: DispatchRequest, response: AcceptedResponse
  })
}
