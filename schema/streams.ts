/**
 * Messages on the bus. Every message carries a `messageId`; consumers are idempotent on it.
 *  - `chain.tx`: one normalized whale transaction record as stored (the block listener, `process-tx`,
 *    `custom-wallet-tx` and `dispatch` publish here), or a retraction of one that a reorg rolled back.
 *  - `notify`: deliveries for the notifier actor (the alerts domain publishes them).
 *  - `api.usage`: folded per-key usage counts (the quota-counter actor persists them).
 *  - `echo.cmd`: one Echo command for a user's portfolio actor.
 *  - `domain.events`: facts one domain announces for others (a pick flagged, a playbook event going live, the
 *    sentiment index crossing a level): alerts and the console consume them.
 */
import { z } from "zod"
import { WhaleTx } from "./records"

export const STREAMS = {
  chainTx: "chain.tx",
  notify: "notify",
  apiUsage: "api.usage",
  echoCmd: "echo.cmd",
  domainEvents: "domain.events"
} as const

/**
 * The `notify` stream of one shard of the alert fan-out (ALERT_SHARDS): `notify` itself with one shard, else
 * `notify.<k>`, read by that shard's notifier (a shard's notifier work follows its shard).
 */
export const notifyStreamOf = (shard: number, shards: number): NotifyStream => (shards <= 1 ? STREAMS.notify : `${STREAMS.notify}.${shard}`)
export type NotifyStream = typeof STREAMS.notify | `notify.${number}`

/** A whale record on `chain.tx`; `id` is null for a custom wallet's record that whale_tx does not store. */
export const ChainTxMessage = z.object({ messageId: z.string(), ...WhaleTx.shape, id: z.number().int().nullable() })
export type ChainTxMessage = z.infer<typeof ChainTxMessage>

/**
 * A retraction on `chain.tx`: a reorg rolled back a record that was already published. It names the record by
 * `(tx_hash, log_index)` (and its stored id when it had one) and carries what a consumer needs to undo its effect.
 * Every consumer of `chain.tx` must honour it: decode with `ChainStreamMessage` and branch on `isRetraction`.
 */
export const ChainTxRetraction = z.object({
  messageId: z.string(),
  kind: z.literal("retraction"),
  ...WhaleTx.pick({ id: true, tx_hash: true, log_index: true, block: true, wallet: true, token: true, category: true, usd: true }).shape,
  id: z.number().int().nullable(),
  reason: z.literal("reorg")
})
export type ChainTxRetraction = z.infer<typeof ChainTxRetraction>

/** Anything on `chain.tx`: a record, or the retraction of one (tried first: a record has no `kind`). */
export const ChainStreamMessage = z.union([ChainTxRetraction, ChainTxMessage])
export type ChainStreamMessage = z.infer<typeof ChainStreamMessage>
export const isRetraction = (m: ChainStreamMessage): m is ChainTxRetraction => "kind" in m && m.kind === "retraction"

/** Facts on `domain.events`, one `_tag` each; the producing domain publishes, alerts and the console consume. */
export const PickFlagged = z.object({
  messageId: z.string(),
  _tag: z.literal("PickFlagged"),
  pick_id: z.number().int(),
  token: z.string(),
  symbol: z.string(),
  flagged_at: z.string(),
  entry_price: z.number().nullable(),
  whales: z.number().int(),
  conviction: z.number()
})
export const PlaybookEventStatus = z.object({
  messageId: z.string(),
  _tag: z.literal("PlaybookEventStatus"),
  event_id: z.number().int(),
  title: z.string(),
  category: z.string(),
  severity: z.number().int(),
  status: z.enum(["SCHEDULED", "LIVE", "COMPLETED"]),
  at: z.string()
})
export const IndexValue = z.object({
  messageId: z.string(),
  _tag: z.literal("IndexValue"),
  value: z.number(),
  previous: z.number().nullable(),
  at: z.string()
})
export const DomainEvent = z.discriminatedUnion("_tag", [PickFlagged, PlaybookEventStatus, IndexValue])
export type DomainEvent = z.infer<typeof DomainEvent>

/**
 * On `notify`: deliveries the alerts domain recorded, for the notifier actor — the fan-out's batches (`DeliverMany`,
 * many users at once) or a test send (`Deliver`, one user). The notifier claims each delivery's pending channels in
 * the database before sending, so handling a message twice (a redelivery after a crash) sends nothing twice.
 */
export const Deliver = z.object({
  _tag: z.literal("Deliver"),
  messageId: z.string(),
  user_id: z.number().int(),
  delivery_ids: z.array(z.number().int()).min(1).max(5000),
  /** When the record was stored or the event published (epoch ms): the benchmark's block-stored → delivered clock. */
  stored_at: z.number().nullable().optional()
})
export type Deliver = z.infer<typeof Deliver>

/** Deliveries of any number of users (the fan-out's batches, up to 5,000 ids): one message instead of one per user. */
export const DeliverMany = z.object({
  _tag: z.literal("DeliverMany"),
  messageId: z.string(),
  delivery_ids: z.array(z.number().int()).min(1).max(5000)
})
export type DeliverMany = z.infer<typeof DeliverMany>

export const NotifyMessage = z.discriminatedUnion("_tag", [Deliver, DeliverMany])
export type NotifyMessage = z.infer<typeof NotifyMessage>

export const deliverMessage = (userId: number, ids: ReadonlyArray<number>, storedAt: number | null = null): Deliver => ({
  _tag: "Deliver",
  messageId: `deliver:${userId}:${ids.length <= 8 ? ids.join(",") : `${ids[0]}..${ids[ids.length - 1]}#${ids.length}`}`,
  user_id: userId,
  delivery_ids: [...ids],
  stored_at: storedAt
})

/** The message id names the batch by its first and last delivery id and its size (a re-publish is the same batch). */
export const deliverManyMessage = (ids: ReadonlyArray<number>): DeliverMany => ({
  _tag: "DeliverMany",
  messageId: `deliver-many:${ids[0]}..${ids[ids.length - 1]}#${ids.length}`,
  delivery_ids: [...ids]
})

/**
 * On `api.usage`: the keyed requests of one key counted by the request path (folded per key and day between
 * publishes). Counts are the values the request path read from its atomic counters (Redis), so handling a message
 * twice, late or out of order changes nothing (the highest count wins).
 */
export const ApiRequestCounted = z.object({
  _tag: z.literal("ApiRequestCounted"),
  messageId: z.string(),
  userId: z.number().int(),
  keyId: z.number().int(),
  /** UTC day, `YYYY-MM-DD`. */
  day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  endpoint: z.string(),
  /** Requests of the account that day, this one included. */
  count: z.number().int().nonnegative(),
  /** Requests of the key that day, this one included. */
  keyCount: z.number().int().nonnegative(),
  limit: z.number().int().positive(),
  /** ISO 8601. */
  at: z.string(),
  /** Counted in process while Redis was unreachable. */
  degraded: z.boolean()
})
export type ApiRequestCounted = z.infer<typeof ApiRequestCounted>

/**
 * On `echo.cmd`: commands for the echo-portfolio actor, keyed by user (`userId`). `messageId` is the command id: a
 * command is applied once however often it is delivered (echo_trades.command_id / echo_commands are unique).
 */
const base = { messageId: z.string().min(1).max(200), userId: z.number().int().positive() }
const side = z.enum(["BUY", "SELL"])

/** A manual trade (the bench and external producers send these; HTTP applies its own under the same row lock). */
export const EchoTrade = z.object({ _tag: z.literal("Trade"), ...base, side, token: z.string(), usd: z.number().positive().optional(), quantity: z.number().positive().optional() })
/** A copy of one whale record at a chosen size. */
export const EchoCopy = z.object({ _tag: z.literal("Copy"), ...base, tx_hash: z.string(), log_index: z.number().int().optional(), wallet: z.string().optional(), usd: z.number().positive().optional(), fraction: z.number().positive().max(1).optional() })
/** An auto-copy of a followed wallet's record, with the follower's rule as it was when the record arrived. */
export const EchoAutoCopy = z.object({
  _tag: z.literal("AutoCopy"), ...base,
  tx_hash: z.string(), log_index: z.number().int(), wallet: z.string(), token: z.string(), symbol: z.string(), side, whale_usd: z.number().nullable(),
  rule: z.object({ mode: z.enum(["fixed", "fraction"]), amount: z.number().positive(), cap_usd: z.number().positive(), copy_sells: z.boolean() })
})
/** Undo a copy whose whale record a reorg retracted. */
export const EchoRetract = z.object({ _tag: z.literal("Retract"), ...base, tradeId: z.number().int() })
export const EchoReset = z.object({ _tag: z.literal("Reset"), ...base })
/** The user is looking (or just traded over HTTP): activate the entity and refresh its view of the book. */
export const EchoTouch = z.object({ _tag: z.literal("Touch"), ...base })

export const EchoCommand = z.discriminatedUnion("_tag", [EchoTrade, EchoCopy, EchoAutoCopy, EchoRetract, EchoReset, EchoTouch])
export type EchoCommand = z.infer<typeof EchoCommand>
