/**
 * The console's WebSocket protocol at `/ws` (server: server/platform/ws/, client: client/src/api/ws.ts).
 *
 * Client → server (JSON text frames): `subscribe {topic, since_seq?, backlog?}`, `unsubscribe {topic}`, `ping {id?}`.
 * Server → client: data frames `{topic, seq, data}` and control frames with a `type` (`welcome`, `subscribed`,
 * `unsubscribed`, `pong`, `error`).
 *
 * Sequence numbers: every topic is fed by one bus stream; a message's `seq` is derived from its stream entry id
 * `<ms>-<n>` as `(ms − SEQ_EPOCH_MS) · 4096 + n`, so every http process (and every restart) gives the same message
 * the same `seq`, and `seq` grows with the stream. It is not contiguous: order and identity are what it promises.
 * A resuming client sends its last `seq` as `since_seq` and gets every later message of the topic (from bounded
 * history) before live ones, without gaps or duplicates; the `subscribed` frame says when history did not reach
 * back far enough (`truncated`).
 */
import { z } from "zod"
import { ConsoleAlert } from "./http/alerts"
import { DataSource, TopTokens, WhaleIndex } from "./http/analytics"
import { EchoUserEvent } from "./http/echo"
import { WatchlistLive, WatchlistLiveRetraction } from "./http/watchlist"
import { WhaleTx } from "./records"
import { ChainTxMessage } from "./streams"
import { Tier } from "./tiers"

export const WS_PATH = "/ws"
/** The subprotocol the server answers with; offer it alongside a `whale.token.<jwt>` entry to authenticate. */
export const WS_SUBPROTOCOL = "whale.v1"
export const WS_TOKEN_PROTOCOL_PREFIX = "whale.token."

/** Bus streams the hub relays (besides `chain.tx`) and the operators' command stream. */
export const CONSOLE_STREAMS = {
  index: "console.index",
  topTokens: "console.top-tokens",
  playbook: "console.playbook",
  user: "console.user",
  opsActors: "ops.actors",
  opsCommands: "ops.cmd",
  /** The newest block the listener stored (the `chain:head` topic: "Latest block" stays current between stats reads). */
  chainHead: "console.chain-head"
} as const

export const STATIC_TOPICS = ["feed:trades", "index", "top-tokens", "playbook:live", "ops:actors", "chain:head"] as const
export type StaticTopic = (typeof STATIC_TOPICS)[number]
export const USER_TOPIC = /^user:(\d{1,15})$/
export const userTopic = (userId: number) => `user:${userId}`

// ---- sequence numbers ----------------------------------------------------------------------------------------

/** 2020-01-01T00:00:00Z: seq stays a safe integer until about 2089 with 4096 entries per millisecond. */
export const SEQ_EPOCH_MS = 1_577_836_800_000
export const SEQ_PER_MS = 4096

/** The seq of a stream entry id, or null when the id cannot be represented (before the epoch, ≥ 4096 in one ms). */
export const seqOfId = (id: string): number | null => {
  const m = /^(\d+)-(\d+)$/.exec(id)
  if (!m) return null
  const ms = Number(m[1]) - SEQ_EPOCH_MS
  const n = Number(m[2])
  if (ms < 0 || n >= SEQ_PER_MS) return null
  return ms * SEQ_PER_MS + n
}

/** The stream entry id of a seq (inverse of `seqOfId`). */
export const idOfSeq = (seq: number): string => `${Math.floor(seq / SEQ_PER_MS) + SEQ_EPOCH_MS}-${seq % SEQ_PER_MS}`

/** When the entry of this seq was appended (ms since 1970). */
export const msOfSeq = (seq: number) => Math.floor(seq / SEQ_PER_MS) + SEQ_EPOCH_MS

// ---- client → server -----------------------------------------------------------------------------------------

const TopicText = z.string().min(1).max(64)
const Seq = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER)

export const SubscribeMessage = z.object({
  type: z.literal("subscribe"),
  topic: TopicText,
  /** The last seq the client has of this topic: it receives every later message (bounded history), then live. */
  since_seq: Seq.optional(),
  /** Without `since_seq`: the newest `backlog` messages of a log topic first (at most `MAX_BACKLOG`). */
  backlog: z.number().int().min(0).max(1000).optional()
})
export const UnsubscribeMessage = z.object({ type: z.literal("unsubscribe"), topic: TopicText })
export const PingMessage = z.object({ type: z.literal("ping"), id: z.string().max(64).optional() })

export const ClientMessage = z.discriminatedUnion("type", [SubscribeMessage, UnsubscribeMessage, PingMessage])
export type ClientMessage = z.infer<typeof ClientMessage>

// ---- server → client -----------------------------------------------------------------------------------------

export const ErrorCode = z.enum([
  "bad_json", "bad_message", "unknown_topic", "login_required", "tier_required", "admin_required", "forbidden",
  "too_many_subscriptions", "rate_limited", "seq_unknown", "internal_error"
])
export type ErrorCode = z.infer<typeof ErrorCode>

export const WsUser = z.object({ id: z.number().int(), tier: Tier, admin: z.boolean() })
export type WsUser = z.infer<typeof WsUser>

export const WelcomeFrame = z.object({
  type: z.literal("welcome"),
  user: WsUser.nullable(),
  /** `invalid`/`expired`: credentials were sent but not accepted; the connection is anonymous (refresh, reconnect). */
  auth: z.enum(["none", "ok", "invalid", "expired"]),
  /** Anonymous clients get `feed:trades` this much later than signed-in ones. */
  anon_delay_ms: z.number().int(),
  limits: z.object({ max_payload_bytes: z.number().int(), max_subscriptions: z.number().int(), max_backlog: z.number().int(), idle_timeout_seconds: z.number().int() })
})

export const SubscribedFrame = z.object({
  type: z.literal("subscribed"),
  topic: z.string(),
  kind: z.enum(["log", "state"]),
  /** Messages sent before this frame (history), all with seq > since_seq. */
  replayed: z.number().int(),
  /** History did not reach back to since_seq: messages between were missed (reload the page's snapshot). */
  truncated: z.boolean(),
  /** The newest seq of the topic this connection has been sent (null: none yet). */
  head: z.number().nullable(),
  /** How late this connection gets the topic (anonymous feed), 0 for live. */
  delay_ms: z.number().int()
})

export const UnsubscribedFrame = z.object({ type: z.literal("unsubscribed"), topic: z.string() })
export const PongFrame = z.object({ type: z.literal("pong"), id: z.string().optional(), ts: z.number() })
export const ErrorFrame = z.object({
  type: z.literal("error"),
  code: ErrorCode,
  message: z.string(),
  topic: z.string().optional(),
  /** For `tier_required`. */
  required_tier: Tier.optional()
})

export const ControlFrame = z.discriminatedUnion("type", [WelcomeFrame, SubscribedFrame, UnsubscribedFrame, PongFrame, ErrorFrame])
export type ControlFrame = z.infer<typeof ControlFrame>
export type ErrorFrame = z.infer<typeof ErrorFrame>
export type SubscribedFrame = z.infer<typeof SubscribedFrame>
export type WelcomeFrame = z.infer<typeof WelcomeFrame>

export const DataFrame = z.object({ topic: z.string(), seq: Seq, data: z.unknown() })
export type DataFrame = z.infer<typeof DataFrame>

// ---- topic payloads (the `data` of data frames, and the bus payloads behind them) ------------------------------

/** `chain:head` (stream `console.chain-head`): the newest block stored, published by the block listener. */
export const ChainHead = z.object({ number: z.number().int(), hash: z.string(), ts: z.string() })
export type ChainHead = z.infer<typeof ChainHead>

/**
 * `feed:trades`: one whale record as published on `chain.tx`, without its messageId. Anonymous connections get
 * `wallet` masked (`0x1234…abcd`).
 */
export const FeedTrade = ChainTxMessage.omit({ messageId: true })
export type FeedTrade = z.infer<typeof FeedTrade>

/**
 * `feed:trades`: a trade shown earlier was rolled back by a reorg (a `chain.tx` retraction); the console removes
 * the trade with the same `tx_hash`, `log_index` and `token` (the wallet is masked for anonymous connections).
 */
export const FeedRetraction = z.object({
  kind: z.literal("retraction"),
  ...WhaleTx.pick({ tx_hash: true, log_index: true, block: true, wallet: true, token: true }).shape,
  reason: z.literal("reorg")
})
export type FeedRetraction = z.infer<typeof FeedRetraction>

const SnapshotMeta = { source: DataSource, demo: z.boolean(), generated_at: z.string() }

/** `index` (stream `console.index`): the sentiment index as the public endpoint computes it. */
export const IndexSnapshot = z.object({ index: WhaleIndex, ...SnapshotMeta })
export type IndexSnapshot = z.infer<typeof IndexSnapshot>

/** `top-tokens` (stream `console.top-tokens`). */
export const TopTokensSnapshot = z.object({ top: TopTokens, ...SnapshotMeta })
export type TopTokensSnapshot = z.infer<typeof TopTokensSnapshot>

/**
 * `user:<id>` (stream `console.user`, routed by `user_id`): that user's events, one `kind` each — an alert delivered
 * (`alert`), an Echo portfolio update (`echo`), a whale trade of a watched token or its retraction (`watchlist`).
 * Publishers are typed by it (schema/bus.ts); the console follows one kind with `onUserEvent` (client/src/api/
 * userEvents.ts), several pages sharing the topic. A new kind: one more member here.
 */
export const UserEvent = z.discriminatedUnion("kind", [
  z.object({ user_id: z.number().int(), kind: z.literal("alert"), data: ConsoleAlert }),
  z.object({ user_id: z.number().int(), kind: z.literal("echo"), data: EchoUserEvent }),
  z.object({ user_id: z.number().int(), kind: z.literal("watchlist"), data: z.union([WatchlistLive, WatchlistLiveRetraction]) })
])
export type UserEvent = z.infer<typeof UserEvent>
export type UserEventKind = UserEvent["kind"]
/** The data of an event of kind `K`. */
export type UserEventData<K extends UserEventKind> = Extract<UserEvent, { kind: K }>["data"]
/** What the hub routes by: an event's user and kind, its data passed on as it is (its kind's follower parses it). */
export const UserEventEnvelope = z.object({ user_id: z.number().int(), kind: z.string(), data: z.unknown() })

/** One actor's health in an `ops:actors` report. */
export const ActorReport = z.object({
  name: z.string(),
  kind: z.enum(["stream", "loop"]),
  state: z.enum(["starting", "running", "standby", "restarting", "failed", "stopped"]),
  restarts: z.number().int(),
  last_error: z.string().nullable(),
  last_error_at: z.string().nullable(),
  handled: z.number().int(),
  handled_per_sec: z.number(),
  failures: z.number().int(),
  stream: z.string().nullable(),
  lag: z.number().nullable(),
  pending: z.number().nullable(),
  dead_letters: z.number().nullable(),
  last_heartbeat: z.string().nullable(),
  started_at: z.string().nullable()
})
export type ActorReport = z.infer<typeof ActorReport>

/** `ops:actors` (stream `ops.actors`): one process's actors, bus and database figures; state keyed by `process`. */
export const OpsReport = z.object({
  process: z.string(),
  host: z.string(),
  pid: z.number().int(),
  roles: z.array(z.string()),
  at: z.string(),
  uptime_seconds: z.number(),
  actors: z.array(ActorReport),
  bus: z.object({ kind: z.enum(["redis", "memory"]), ok: z.boolean(), published: z.number(), acked: z.number(), dead_lettered: z.number() }),
  streams: z.array(z.object({ name: z.string(), length: z.number().int(), dead_letters: z.number().int() })),
  db: z.object({ kind: z.string(), ok: z.boolean(), ms: z.number(), total: z.number().int(), idle: z.number().int(), waiting: z.number().int(), max: z.number().int() }),
  ws: z.object({ connections: z.number().int() }).nullable()
})
export type OpsReport = z.infer<typeof OpsReport>

/** `ops.cmd`: operators' commands to the processes that run actors. */
export const OpsCommand = z.object({ messageId: z.string(), command: z.literal("restart"), actor: z.string(), by: z.number().int(), at: z.string() })
export type OpsCommand = z.infer<typeof OpsCommand>
