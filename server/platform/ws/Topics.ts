/**
 * Topics of the hub. A module registers each of its topics with its source and its own access gate
 * (`Module.topics`); the hub builds one `TopicTable` from them at start. A source names the bus stream that feeds the
 * topic, whether it is a log (every message matters, resumed message by message) or a state (each message is the
 * whole state of a key, resumed with the latest per key), and how a stream payload becomes what is sent.
 *
 * The platform registers its own two: `user:<id>` (only that signed-in user; fed by the reserved `console.user`
 * stream, where every domain publishes a user's events) and `ops:actors` (administrators).
 */
import type { z } from "zod"
import { TIER_RANK, type Tier } from "../../../schema/tiers"
import { CONSOLE_STREAMS, OpsReport, USER_TOPIC, UserEventEnvelope, type ErrorCode, type WsUser } from "../../../schema/ws"
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
  /**
   * When what the entry reports happened (ms), when earlier than its append to the stream: the delayed audience
   * gets it once `anonDelayMs` has passed since then (a trade stored late, e.g. at start, is not held back again).
   */
  readonly happenedAt?: number
}

export interface TopicSource {
  readonly stream: string
  readonly kind: "log" | "state"
  /** Whether anonymous connections get this source late (`anonDelayMs`). */
  readonly delayedForAnon: boolean
  /** Turns a stream payload into what is sent, or null for a payload that does not parse (skipped). */
  readonly route: (payload: StreamPayload) => Routed | null
}

export type Access =
  | { readonly ok: true; readonly audience: Audience }
  | { readonly ok: false; readonly code: ErrorCode; readonly message: string; readonly requiredTier?: Tier }

/** Who may follow a topic (`user` null: anonymous), and as which audience. */
export type TopicGate = (topic: string, user: WsUser | null, anonDelayMs: number) => Access

/** A topic as a module registers it: its name (or a family's pattern), its source and its gate. */
export interface TopicDef {
  readonly topic: string | RegExp
  readonly source: TopicSource
  readonly gate: TopicGate
}

const LIVE: Access = { ok: true, audience: "live" }

/** The usual gates. */
export const Gate = {
  everyone: (() => LIVE) satisfies TopicGate,
  /** Everyone; anonymous connections get the delayed view when a delay is set. */
  everyoneDelayedForAnon: ((_, user, anonDelayMs) => ({ ok: true, audience: user === null && anonDelayMs > 0 ? "delayed" : "live" })) satisfies TopicGate,
  tier: (min: Tier): TopicGate => (_, user) =>
    user === null
      ? { ok: false, code: "login_required", message: `Sign in with the ${min} tier to follow this topic`, requiredTier: min }
      : TIER_RANK[user.tier] >= TIER_RANK[min]
        ? LIVE
        : { ok: false, code: "tier_required", message: `This topic needs the ${min} tier or higher`, requiredTier: min },
  admin: ((_, user) =>
    user === null
      ? { ok: false, code: "login_required", message: "Sign in as an administrator to follow this topic" }
      : user.admin ? LIVE : { ok: false, code: "admin_required", message: "Administrators only" }) satisfies TopicGate
} as const

export const withoutMessageId = (payload: StreamPayload) => {
  const { messageId: _ignored, ...rest } = payload
  return rest
}

export const parsed = <A>(schema: z.ZodType<A>, payload: StreamPayload): A | null => {
  const result = schema.safeParse(payload)
  return result.success ? result.data : null
}

/** The platform's own topics. */
export const PLATFORM_TOPICS: ReadonlyArray<TopicDef> = [
  {
    topic: USER_TOPIC,
    source: {
      stream: CONSOLE_STREAMS.user, kind: "log", delayedForAnon: false,
      route: (payload) => {
        const event = parsed(UserEventEnvelope, payload)
        return event && { topic: `user:${event.user_id}`, key: "", live: { kind: event.kind, data: event.data } }
      }
    },
    gate: (topic, user) => {
      if (user === null) return { ok: false, code: "login_required", message: "Sign in to follow your own topic" }
      return Number(USER_TOPIC.exec(topic)![1]) === user.id ? LIVE : { ok: false, code: "forbidden", message: "Only that user may follow this topic" }
    }
  },
  {
    topic: "ops:actors",
    source: {
      stream: CONSOLE_STREAMS.opsActors, kind: "state", delayedForAnon: false,
      route: (payload) => {
        const report = parsed(OpsReport, payload)
        return report && { topic: "ops:actors", key: report.process, live: report }
      }
    },
    gate: Gate.admin
  }
]

/** Every registered topic: lookups by name, then by family pattern. */
export class TopicTable {
  private readonly named = new Map<string, TopicDef>()
  private readonly families: Array<TopicDef & { readonly topic: RegExp }> = []
  /** One source per stream (several topics may share a stream: their routes must agree). */
  readonly sources: ReadonlyArray<TopicSource>

  constructor(defs: ReadonlyArray<TopicDef>) {
    const byStream = new Map<string, TopicSource>()
    for (const def of defs) {
      if (typeof def.topic === "string") {
        if (this.named.has(def.topic)) throw new Error(`topic ${def.topic} is registered twice`)
        this.named.set(def.topic, def)
      } else {
        this.families.push(def as TopicDef & { readonly topic: RegExp })
      }
      if (!byStream.has(def.source.stream)) byStream.set(def.source.stream, def.source)
    }
    this.sources = [...byStream.values()]
  }

  private find(topic: string): TopicDef | undefined {
    return this.named.get(topic) ?? this.families.find((d) => d.topic.test(topic))
  }

  /** The source of a topic name, or undefined for a topic that does not exist. */
  sourceOf(topic: string): TopicSource | undefined {
    return this.find(topic)?.source
  }

  /** Whether `user` (null: anonymous) may follow `topic`, and as which audience. */
  access(topic: string, user: WsUser | null, anonDelayMs: number): Access {
    const def = this.find(topic)
    return def ? def.gate(topic, user, anonDelayMs) : { ok: false, code: "unknown_topic", message: `No topic ${topic}` }
  }
}

/** The uWS pub/sub topic an audience of a topic is published under. */
export const channelOf = (topic: string, audience: Audience) => (audience === "live" ? topic : `${topic}~delayed`)
