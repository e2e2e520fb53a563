/**
 * Wire shapes of the event playbook (spec §4.9, §3.1): requests of the 18 endpoints, their responses, the live
 * snapshot of the `playbook:live` topic, and the calendar file format of `npm run playbook -- import`.
 * Shared by the server, the console (`client/src/features/playbook`), the MCP tools and the tests.
 */
import { z } from "zod"
import { intLike, intParam } from "../common"
import { endpoint } from "./endpoint"

export const CATEGORIES = ["fomc", "cpi", "jobs", "etf", "unlock", "upgrade", "listing", "exploit", "other"] as const
export const EventCategory = z.enum(CATEGORIES)
export type EventCategory = z.infer<typeof EventCategory>

export const EventStatus = z.enum(["SCHEDULED", "LIVE", "COMPLETED"])
export type EventStatus = z.infer<typeof EventStatus>

/** Severity 4 and above is "high" (confluence, the exclusion of matched windows). */
export const HIGH_SEVERITY = 4

/** Bucket sizes (minutes) the flow endpoint accepts; buckets start at the window start. */
export const FLOW_BUCKETS = [5, 15, 30, 60, 120, 240] as const

// ---------------------------------------------------------------------------------------------------- requests

/** ISO 8601 with a date, a time and an explicit offset (`Z` or `±hh:mm`); kept as epoch milliseconds. */
export const IsoTimestamp = z
  .string()
  .trim()
  .transform((s, ctx) => {
    const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/.test(s) ? Date.parse(s) : Number.NaN
    if (Number.isFinite(ms)) return new Date(ms).toISOString()
    ctx.addIssue({ code: "custom", message: "Input should be an ISO 8601 timestamp with a UTC offset, e.g. 2026-12-09T19:00:00Z", input: s })
    return z.NEVER
  })

/** A token symbol as events name them (`ETH`, `WBTC`); stored upper-case. */
export const TokenSymbol = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9.$_-]{1,20}$/, "Input should be a token symbol of 1-20 letters, digits or . $ _ -")
  .transform((s) => s.toUpperCase())

export const SourceUrl = z
  .string()
  .trim()
  .max(500)
  .refine((s) => {
    try {
      const u = new URL(s)
      return u.protocol === "https:" || u.protocol === "http:"
    } catch {
      return false
    }
  }, "Input should be an http(s) URL")

const eventFields = {
  title: z.string().trim().min(1, "Title must not be empty").max(200),
  category: EventCategory,
  timestamp: IsoTimestamp,
  severity: z.number().int().min(1).max(5),
  tokens: z.array(TokenSymbol).max(20).optional(),
  description: z.string().trim().max(5000).optional(),
  source_url: SourceUrl.nullable().optional()
}

export const CreateEventRequest = z.strictObject(eventFields)
export type CreateEventRequest = z.infer<typeof CreateEventRequest>

/** PUT merges: the fields given replace the stored ones; at least one field. */
export const UpdateEventRequest = z
  .strictObject({
    title: eventFields.title.optional(),
    category: EventCategory.optional(),
    timestamp: IsoTimestamp.optional(),
    severity: eventFields.severity.optional(),
    tokens: eventFields.tokens,
    description: eventFields.description,
    source_url: eventFields.source_url
  })
  .refine((b) => Object.keys(b).length > 0, "Body must name at least one field")
export type UpdateEventRequest = z.infer<typeof UpdateEventRequest>

export const StatusRequest = z.strictObject({ status: EventStatus })
export type StatusRequest = z.infer<typeof StatusRequest>

export const EventIdParams = z.object({ event_id: intLike })

export const EventsQuery = z.object({
  category: EventCategory.optional(),
  status: EventStatus.optional(),
  limit: intParam({ min: 1, max: 500, default: 50 })
})
export const PastEventsQuery = z.object({
  category: EventCategory.optional(),
  limit: intParam({ min: 1, max: 1000, default: 200 }),
  offset: intParam({ min: 0, max: 1_000_000, default: 0 })
})
export const FlowQuery = z.object({
  bucket: intParam({ default: 60 }).refine((b) => (FLOW_BUCKETS as ReadonlyArray<number>).includes(b), {
    message: `Input should be one of ${FLOW_BUCKETS.join(", ")} (minutes)`
  })
})
export const ImpactQuery = z.object({ limit: intParam({ min: 1, max: 100, default: 20 }) })
export const PositioningQuery = z.object({ days_ahead: intParam({ min: 1, max: 365, default: 30 }) })
export const ConfluenceQuery = z.object({ window_days: intParam({ min: 1, max: 90, default: 14 }) })
export const SearchSort = z.enum(["date", "impact", "severity"])
export const SearchQuery = z.object({
  q: z.string().trim().max(200).optional(),
  category: EventCategory.optional(),
  flow: z.enum(["inflow", "outflow"]).optional(),
  sort: SearchSort.optional().default("date"),
  token: TokenSymbol.optional(),
  limit: intParam({ min: 1, max: 100, default: 20 })
})
export const CompareQuery = z.object({ a: intParam({ default: 0 }), b: intParam({ default: 0 }) })
export const FastestQuery = z.object({ limit: intParam({ min: 1, max: 100, default: 10 }) })

// ---------------------------------------------------------------------------------------------------- responses

/** Sums of one time span. Net flow = DEX buys − DEX sells + exchange withdrawals − exchange deposits. */
export const Figures = z.object({
  dex_buy_usd: z.number(),
  dex_sell_usd: z.number(),
  exchange_deposit_usd: z.number(),
  exchange_withdraw_usd: z.number(),
  net_flow_usd: z.number(),
  whales_active: z.number().int(),
  records: z.number().int()
})
export type Figures = z.infer<typeof Figures>
export const FIGURE_KEYS = [
  "dex_buy_usd",
  "dex_sell_usd",
  "exchange_deposit_usd",
  "exchange_withdraw_usd",
  "net_flow_usd",
  "whales_active",
  "records"
] as const satisfies ReadonlyArray<keyof Figures>
export type FigureKey = (typeof FIGURE_KEYS)[number]

/** A mean of several spans' figures (the 7-day baseline): its counts are fractions too (906.57 records a slot). */
export const MeanFigures = Figures.extend({ whales_active: z.number(), records: z.number() })
export type MeanFigures = z.infer<typeof MeanFigures>

const PerFigure = z.object(Object.fromEntries(FIGURE_KEYS.map((k) => [k, z.number().nullable()])) as Record<FigureKey, z.ZodNullable<z.ZodNumber>>)

export const TokenNet = z.object({
  token: z.string(),
  symbol: z.string(),
  net_flow_usd: z.number(),
  dex_buy_usd: z.number(),
  dex_sell_usd: z.number()
})
export type TokenNet = z.infer<typeof TokenNet>

/** One span (whole window, pre half, post half) with its comparisons. */
export const SpanMetrics = z.object({
  from: z.string(),
  /** Exclusive end; for a running window the current time. */
  to: z.string(),
  figures: Figures,
  /** Mean of the same-length slots of the 7 days before the window (null when none has data). */
  baseline: MeanFigures.nullable(),
  /** figures / baseline per figure (net flow: against |baseline|); null when the baseline is 0. */
  ratio: PerFigure,
  /** z-score against the matched non-event windows; null with fewer than 2 of them or no spread. */
  z: PerFigure,
  top_tokens: z.array(TokenNet)
})
export type SpanMetrics = z.infer<typeof SpanMetrics>

export const EventMetrics = z.object({
  event_id: z.number().int(),
  window: z.object({
    from: z.string(),
    to: z.string(),
    pre_hours: z.number(),
    post_hours: z.number(),
    /** False while the window is still running (figures up to `as_of`). */
    complete: z.boolean(),
    as_of: z.string()
  }),
  whole: SpanMetrics,
  pre: SpanMetrics,
  post: SpanMetrics,
  baseline_slots: z.number().int(),
  matched_windows: z.object({ used: z.number().int(), excluded: z.number().int(), weeks: z.number().int() }),
  recovery_hours: z.number().int().nullable(),
  computed_at: z.string()
})
export type EventMetrics = z.infer<typeof EventMetrics>

export const PlaybookEvent = z.object({
  id: z.number().int(),
  title: z.string(),
  category: EventCategory,
  status: EventStatus,
  timestamp: z.string(),
  severity: z.number().int(),
  high_severity: z.boolean(),
  tokens: z.array(z.string()),
  description: z.string(),
  source_url: z.string().nullable(),
  origin: z.enum(["calendar", "import", "admin"]),
  live_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  /** Cached when the event completed (or was recomputed); null before. */
  final_metrics: EventMetrics.nullable()
})
export type PlaybookEvent = z.infer<typeof PlaybookEvent>

export const EventList = z.object({ events: z.array(PlaybookEvent) })
export const PastEventList = z.object({ events: z.array(PlaybookEvent), limit: z.number().int(), offset: z.number().int(), total: z.number().int() })

/** An event with metrics of its window (null before the window opens). */
export const EventDetail = PlaybookEvent.extend({ metrics: EventMetrics.nullable() })
export type EventDetail = z.infer<typeof EventDetail>

export const FlowBucket = z.object({
  start: z.string(),
  dex_buy_usd: z.number(),
  dex_sell_usd: z.number(),
  exchange_deposit_usd: z.number(),
  exchange_withdraw_usd: z.number(),
  net_flow_usd: z.number(),
  records: z.number().int()
})
export type FlowBucket = z.infer<typeof FlowBucket>

export const EventFlow = z.object({
  event_id: z.number().int(),
  bucket_minutes: z.number().int(),
  from: z.string(),
  to: z.string(),
  buckets: z.array(FlowBucket)
})
export type EventFlow = z.infer<typeof EventFlow>

export const WhaleRecord = z.object({
  id: z.number().int(),
  tx_hash: z.string(),
  ts: z.string(),
  wallet: z.string(),
  wallet_label: z.string().nullable(),
  token: z.string(),
  symbol: z.string(),
  category: z.enum(["dex_buy", "dex_sell", "exchange_deposit", "exchange_withdraw"]),
  usd: z.number().nullable(),
  seconds_from_event: z.number()
})
export type WhaleRecord = z.infer<typeof WhaleRecord>

/** The running state the playbook-live actor publishes on `playbook:live` (and `GET /live` carries). */
export const LiveSnapshot = z.object({
  event_id: z.number().int(),
  title: z.string(),
  timestamp: z.string(),
  as_of: z.string(),
  /** 5-minute buckets since the window start, oldest first. */
  buckets: z.array(FlowBucket),
  totals: Figures,
  fastest: z.array(WhaleRecord)
})
export type LiveSnapshot = z.infer<typeof LiveSnapshot>

export const LiveResponse = z
  .object({ event: PlaybookEvent, metrics: EventMetrics.nullable(), live: LiveSnapshot.nullable() })
  .nullable()

const PatternSide = z.object({
  mean_net_flow_usd: z.number().nullable(),
  median_net_flow_usd: z.number().nullable(),
  mean_z: z.number().nullable(),
  median_z: z.number().nullable()
})
export const CategoryPattern = z.object({
  category: EventCategory,
  n: z.number().int(),
  pre: PatternSide,
  post: PatternSide,
  /** Share of events after which whales were net buyers (post net flow > 0). */
  hit_rate: z.number().nullable(),
  mean_post_net_without_largest: z.number().nullable(),
  /** Bootstrap 95 % interval of the mean post-event net flow. */
  ci95: z.tuple([z.number(), z.number()]).nullable(),
  median_recovery_hours: z.number().nullable(),
  top_tokens: z.array(z.object({ symbol: z.string(), net_flow_usd: z.number(), events: z.number().int() })),
  verdict: z.enum(["net buying after", "net selling after", "no measurable effect", "insufficient data"])
})
export type CategoryPattern = z.infer<typeof CategoryPattern>
export const Patterns = z.object({ categories: z.array(CategoryPattern), method: z.string(), as_of: z.string() })
export type Patterns = z.infer<typeof Patterns>

export const ImpactList = z.object({
  events: z.array(z.object({ event: PlaybookEvent.omit({ final_metrics: true }), net_flow_usd: z.number(), pre_net_flow_usd: z.number(), post_net_flow_usd: z.number() }))
})

export const ActivityWindow = z.object({
  gross_usd: z.number(),
  net_flow_usd: z.number(),
  /** Against the same length of the 7-day average; null when the baseline is 0. */
  ratio: z.number().nullable()
})
export const PositioningList = z.object({
  as_of: z.string(),
  days_ahead: z.number().int(),
  events: z.array(
    z.object({
      event: PlaybookEvent.omit({ final_metrics: true }),
      hours_until: z.number(),
      scope: z.array(z.string()),
      last_24h: ActivityWindow,
      last_72h: ActivityWindow,
      direction: z.enum(["accumulating", "distributing", "neutral"]),
      gauge: z.number().int()
    })
  )
})

export const ConfluenceCluster = z.object({
  from: z.string(),
  to: z.string(),
  span_days: z.number(),
  max_severity: z.number().int(),
  events: z.array(PlaybookEvent.omit({ final_metrics: true }))
})
export type ConfluenceCluster = z.infer<typeof ConfluenceCluster>
export const ConfluenceList = z.object({ window_days: z.number().int(), upcoming: z.array(ConfluenceCluster), past: z.array(ConfluenceCluster) })

export const SearchResult = z.object({
  events: z.array(PlaybookEvent.omit({ final_metrics: true }).extend({ net_flow_usd: z.number().nullable() }))
})

export const CompareResult = z.object({
  a: EventDetail,
  b: EventDetail,
  /** b − a of the whole window's figures and of the pre/post net flow (null when either has no metrics). */
  differences: z
    .object({ whole: Figures, pre_net_flow_usd: z.number(), post_net_flow_usd: z.number(), recovery_hours: z.number().nullable() })
    .nullable()
})

export const RecoveryResult = z.object({
  event_id: z.number().int(),
  pre_net_flow_usd: z.number(),
  pre_direction: z.enum(["inflow", "outflow", "flat"]),
  /** Whether cumulative post-event net flow went against the pre-event direction at some hour. */
  reversal: z.boolean(),
  /** 0: no reversal; n: the hour (1-based, end of hour n) at which it regained the direction; null: not within the window. */
  recovery_hour: z.number().int().nullable(),
  recovered_at: z.string().nullable(),
  hours: z.array(z.object({ hour: z.number().int(), start: z.string(), net_flow_usd: z.number(), cumulative_net_flow_usd: z.number() })),
  rule: z.string()
})
export type RecoveryResult = z.infer<typeof RecoveryResult>

export const SignalsResult = z.object({
  event_id: z.number().int(),
  from: z.string(),
  to: z.string(),
  buckets: z.array(FlowBucket),
  biggest_trades: z.array(WhaleRecord),
  active_wallets: z.array(
    z.object({ wallet: z.string(), label: z.string().nullable(), records: z.number().int(), dex_buy_usd: z.number(), dex_sell_usd: z.number(), net_flow_usd: z.number() })
  )
})

export const FastestResult = z.object({ event_id: z.number().int(), trades: z.array(WhaleRecord) })

// ---------------------------------------------------------------------------------------------------- calendar file

/** One event of data/playbook-calendar.json or an import file; `key` identifies it for re-imports. */
export const CalendarEntry = z.strictObject({
  key: z.string().trim().regex(/^[a-z0-9][a-z0-9:._-]{0,99}$/, "key: 1-100 of a-z 0-9 : . _ - (starting with a letter or digit)").optional(),
  ...eventFields
})
export type CalendarEntry = z.infer<typeof CalendarEntry>

// ------------------------------------------------------------------------------------------------------------
// Endpoints: reads for the whale tier and above, writes for administrators (401 anonymous, 403 otherwise)

const tags = ["playbook"]

export const PlaybookEndpoints = {
  /** The page, gated on the server before the console is served (anonymous: sign in; below whale: the upgrade page). */
  page: endpoint({
    method: "GET", path: "/playbook", summary: "The event playbook page (whale tier; anonymous callers are sent to sign in)", tags, produces: "text/html"
  }),
  events: endpoint({
    method: "GET", path: "/api/playbook/events", summary: "List events, newest first (category, status, limit 50)", tags, query: EventsQuery, response: EventList
  }),
  create: endpoint({
    method: "POST", path: "/api/playbook/events", summary: "Create an event (admin)", tags, body: CreateEventRequest, bodyKind: "json", response: PlaybookEvent
  }),
  past: endpoint({
    method: "GET", path: "/api/playbook/past-events", summary: "SCHEDULED events whose time has passed plus every COMPLETED one, newest first", tags,
    query: PastEventsQuery, response: PastEventList
  }),
  detail: endpoint({
    method: "GET", path: "/api/playbook/events/{event_id}", summary: "An event with the flow metrics of its window", tags,
    params: EventIdParams, response: EventDetail
  }),
  update: endpoint({
    method: "PUT", path: "/api/playbook/events/{event_id}", summary: "Update an event (admin); the fields given replace the stored ones", tags,
    params: EventIdParams, body: UpdateEventRequest, bodyKind: "json", response: PlaybookEvent
  }),
  flow: endpoint({
    method: "GET", path: "/api/playbook/events/{event_id}/flow", summary: "Buy/sell/net per bucket of `bucket` minutes over the window", tags,
    params: EventIdParams, query: FlowQuery, response: EventFlow
  }),
  live: endpoint({ method: "GET", path: "/api/playbook/live", summary: "The LIVE event with real-time metrics, or null", tags, response: LiveResponse }),
  patterns: endpoint({ method: "GET", path: "/api/playbook/patterns", summary: "Whale reaction patterns per event category", tags, response: Patterns }),
  impact: endpoint({
    method: "GET", path: "/api/playbook/impact", summary: "COMPLETED events by absolute net flow", tags, query: ImpactQuery, response: ImpactList
  }),
  positioning: endpoint({
    method: "GET", path: "/api/playbook/positioning", summary: "Pre-positioning gauge of each upcoming SCHEDULED event", tags,
    query: PositioningQuery, response: PositioningList
  }),
  confluence: endpoint({
    method: "GET", path: "/api/playbook/confluence", summary: "Clusters of two or more high-severity events within `window_days`", tags,
    query: ConfluenceQuery, response: ConfluenceList
  }),
  setStatus: endpoint({
    method: "POST", path: "/api/playbook/events/{event_id}/status", summary: "Status transition (admin): SCHEDULED → LIVE → COMPLETED", tags,
    params: EventIdParams, body: StatusRequest, bodyKind: "json", response: PlaybookEvent
  }),
  search: endpoint({
    method: "GET", path: "/api/playbook/search", summary: "Search events (q, category, flow, sort, token, limit 20)", tags, query: SearchQuery, response: SearchResult
  }),
  compare: endpoint({
    method: "GET", path: "/api/playbook/compare", summary: "Two events side by side with their differences", tags, query: CompareQuery, response: CompareResult
  }),
  recovery: endpoint({
    method: "GET", path: "/api/playbook/events/{event_id}/recovery", summary: "Hourly net flow after the timestamp and the recovery point", tags,
    params: EventIdParams, response: RecoveryResult
  }),
  signals: endpoint({
    method: "GET", path: "/api/playbook/events/{event_id}/signals", summary: "The 6 hours before: buckets, biggest trades, most active wallets", tags,
    params: EventIdParams, response: SignalsResult
  }),
  fastest: endpoint({
    method: "GET", path: "/api/playbook/events/{event_id}/fastest", summary: "The first whale records after the timestamp", tags,
    params: EventIdParams, query: FastestQuery, response: FastestResult
  }),
  recompute: endpoint({
    method: "POST", path: "/api/playbook/events/{event_id}/recompute", summary: "Recompute a COMPLETED event's final metrics (admin)", tags,
    params: EventIdParams, response: EventDetail
  })
}
