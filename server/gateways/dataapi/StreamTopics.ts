/**
 * The keyed feed's topics as relay sources (the console hub's `Relay`: same streams, same seq, same history and
 * resume), and the trade filters a subscription carries.
 *
 *   trades   `chain.tx`: every stored whale trade, and a reorg's retraction of one (`kind: "retraction"`)
 *   index    `console.index`: the Whale Sentiment Index on each change (state: a resume sends the newest)
 *   alerts   `console.user`, events of kind `alert` only, as topic `alerts:<user id>` (each caller gets its own)
 */
import { ChainStreamMessage, STREAMS } from "../../../schema/streams"
import { CONSOLE_STREAMS, IndexSnapshot, UserEventEnvelope } from "../../../schema/ws"
import type { TradeFilters } from "../../../schema/dataapi-stream"
import { parsed, withoutMessageId, type TopicSource } from "../../platform/ws/Topics"

export const alertsTopic = (userId: number) => `alerts:${userId}`

export const STREAM_SOURCES: ReadonlyArray<TopicSource> = [
  {
    stream: STREAMS.chainTx, kind: "log", delayedForAnon: false,
    route: (payload) => {
      const message = parsed(ChainStreamMessage, payload)
      if (!message) return null
      return { topic: "trades", key: "", live: withoutMessageId(payload) }
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
    stream: CONSOLE_STREAMS.user, kind: "log", delayedForAnon: false,
    route: (payload) => {
      const event = parsed(UserEventEnvelope, payload)
      return event && event.kind === "alert" ? { topic: alertsTopic(event.user_id), key: "", live: event.data } : null
    }
  }
]

/** A trade as the filters read it. */
export interface TradeLike {
  readonly token?: string
  readonly symbol?: string
  readonly wallet?: string
  readonly category?: string
  readonly usd?: number | null
}

/** A subscription's filters, compiled: token addresses and symbols as sets, wallets as a set. */
export interface Matcher {
  readonly test: (t: TradeLike) => boolean
}

export const ALL: Matcher = { test: () => true }

export const compileFilters = (f: TradeFilters | undefined): Matcher => {
  if (f === undefined) return ALL
  const tokens = f.tokens === undefined ? null : new Set(f.tokens.map((t) => (t.toUpperCase() === "ETH" ? "WETH" : /^0x/i.test(t) ? t.toLowerCase() : t.toUpperCase())))
  const wallets = f.wallets === undefined ? null : new Set(f.wallets)
  const category = f.side === undefined ? null : f.side === "buy" ? "dex_buy" : "dex_sell"
  const min = f.min_usd ?? null
  return {
    test: (t) =>
      (tokens === null || tokens.has(t.token ?? "") || tokens.has((t.symbol ?? "").toUpperCase())) &&
      (wallets === null || wallets.has(t.wallet ?? "")) &&
      (category === null || t.category === category) &&
      (min === null || (t.usd != null && t.usd >= min))
  }
}
