/**
 * The hub's topics: which bus stream feeds each, whether it is a log (every message matters, resumed message by
 * message) or a state (each message is the whole state of a key, resumed with the latest per key), and who may
 * subscribe. The gates are enforced here, on the server:
 *
 *   feed:trades    anyone; anonymous connections get it `anonDelayMs` late with wallet addresses masked
 *   index          anyone (the public sentiment index)
 *   top-tokens     anyone (the public top tokens)
 *   playbook:live  whale tier and above (the playbook is whale-gated)
 *   user:<id>      only the signed-in user <id>
 *   ops:actors     administrators
 */
import { z } from "zod"
import { ChainTxMessage, STREAMS } from "../../schema/streams"
import { TIER_RANK, type Tier } from "../../schema/tiers"
import {
  CONSOLE_STREAMS, IndexSnapshot, OpsReport, TopTokensSnapshot, USER_TOPIC, UserEvent,
  type ErrorCode, type WsUser
} from "../../schema/ws"
import type { StreamPayload } from "../infra/Bus"

/** `live`: as it happens; `delayed`: the anonymous view of a topic that has one. */
export type Audience = "live" | "delayed"

/** One stream entry as the hub relays it: the topic it belongs to, its state key, and its data per audience. */
export interface Routed {
  readonly topic: string
  readonly key: string
  readonly live: unknown
  /** Data for the delayed audience; absent when the source has none. */
  readonly delayed?: unknown
}

export interface TopicSource {
  readonly stream: string
  readonly kind: "log" | "state"
  /** Whether anonymous connections get this source late (`anonDelayMs`). */
  readonly delayedForAnon: boolean
  /** Turns a stream payload into what is sent, or null for a payload that does not parse (skipped). */
  readonly route: (payload: StreamPayload) => Routed | null
}

/** `0x1234…abcd`: enough to tell wallets apart in a list, not to look one up. */
export const maskAddress = (address: string) => (address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address)

const withoutMessageId = (payload: StreamPayload) => {
  const { messageId: _ignored, ...rest } = payload
  return rest
}

const parsed = <A>(schema: z.ZodType<A>, payload: StreamPayload): A | null => {
  const result = schema.safeParse(payload)
  return result.success ? result.data : null
}

export const SOURCES: ReadonlyArray<TopicSource> = [
  {
    stream: STREAMS.chainTx, kind: "log", delayedForAnon: true,
    route: (payload) => {
      const tx = parsed(ChainTxMessage, payload)
      if (!tx) return null
      const { messageId: _ignored, ...live } = tx
      return { topic: "feed:trades", key: "", live, delayed: { ...live, wallet: maskAddress(live.wallet) } }
    }
  },
  {
    stream: CONSOLE_STREAMS.index, kind: "state", delayedForAnon: false,
    route: (payload) => {
      const snapshot = parsed(IndexSnapshot, payload)
      return snapshot && { topic: "index", key: "", live: snapshot }
    }
  },
  {
    stream: CONSOLE_STREAMS.topTokens, kind: "state", delayedForAnon: false,
    route: (payload) => {
      const snapshot = parsed(TopTokensSnapshot, payload)
      return snapshot && { topic: "top-tokens", key: snapshot.top.timeframe, live: snapshot }
    }
  },
  {
    stream: CONSOLE_STREAMS.playbook, kind: "log", delayedForAnon: false,
    route: (payload) => ({ topic: "playbook:live", key: "", live: withoutMessageId(payload) })
  },
  {
    stream: CONSOLE_STREAMS.user, kind: "log", delayedForAnon: false,
    route: (payload) => {
      const event = parsed(UserEvent, payload)
      return event && { topic: `user:${event.user_id}`, key: "", live: { kind: event.kind, data: event.data } }
    }
  },
  {
    stream: CONSOLE_STREAMS.opsActors, kind: "state", delayedForAnon: false,
    route: (payload) => {
      const report = parsed(OpsReport, payload)
      return report && { topic: "ops:actors", key: report.process, live: report }
    }
  }
]

const BY_TOPIC = new Map<string, TopicSource>([
  ["feed:trades", SOURCES[0]!], ["index", SOURCES[1]!], ["top-tokens", SOURCES[2]!], ["playbook:live", SOURCES[3]!],
  ["ops:actors", SOURCES[5]!]
])

/** The source of a topic name, or undefined for a topic that does not exist. */
export const sourceOf = (topic: string): TopicSource | undefined => BY_TOPIC.get(topic) ?? (USER_TOPIC.test(topic) ? SOURCES[4] : undefined)

export type Access =
  | { readonly ok: true; readonly audience: Audience }
  | { readonly ok: false; readonly code: ErrorCode; readonly message: string; readonly requiredTier?: Tier }

const needTier = (user: WsUser | null, min: Tier): Access =>
  user === null
    ? { ok: false, code: "login_required", message: `Sign in with the ${min} tier to follow this topic`, requiredTier: min }
    : TIER_RANK[user.tier] >= TIER_RANK[min]
      ? { ok: true, audience: "live" }
      : { ok: false, code: "tier_required", message: `This topic needs the ${min} tier or higher`, requiredTier: min }

/** Whether `user` (null: anonymous) may follow `topic`, and as which audience. */
export const access = (topic: string, user: WsUser | null, anonDelayMs: number): Access => {
  switch (topic) {
    case "feed:trades":
      return { ok: true, audience: user === null && anonDelayMs > 0 ? "delayed" : "live" }
    case "index":
    case "top-tokens":
      return { ok: true, audience: "live" }
    case "playbook:live":
      return needTier(user, "whale")
    case "ops:actors":
      return user === null
        ? { ok: false, code: "login_required", message: "Sign in as an administrator to follow this topic" }
        : user.admin ? { ok: true, audience: "live" } : { ok: false, code: "admin_required", message: "Administrators only" }
  }
  const m = USER_TOPIC.exec(topic)
  if (!m) return { ok: false, code: "unknown_topic", message: `No topic ${topic}` }
  if (user === null) return { ok: false, code: "login_required", message: "Sign in to follow your own topic" }
  return Number(m[1]) === user.id ? { ok: true, audience: "live" } : { ok: false, code: "forbidden", message: "Only that user may follow this topic" }
}

/** The uWS pub/sub topic an audience of a topic is published under. */
export const channelOf = (topic: string, audience: Audience) => (audience === "live" ? topic : `${topic}~delayed`)
