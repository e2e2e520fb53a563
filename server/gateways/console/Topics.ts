/**
 * The console's public topics, registered by the console gateway's module:
 *
 *   feed:trades    anyone; anonymous connections get it `anonDelayMs` late with wallet addresses masked; a reorg's
 *                  retraction of a trade (chain.tx) is relayed in order as a FeedRetraction, and the console drops it
 *   index          anyone (the public sentiment index)
 *   top-tokens     anyone (the public top tokens)
 *   chain:head     anyone: the newest block stored (number, hash, time), live
 *
 * `user:<id>` and `ops:actors` are the platform's own (server/platform/ws/Topics.ts); `playbook:live` is the playbook
 * domain's (server/domains/playbook/Topics.ts).
 */
import { ChainStreamMessage, isRetraction, STREAMS } from "../../../schema/streams"
import { ChainHead, CONSOLE_STREAMS, IndexSnapshot, TopTokensSnapshot, type FeedRetraction } from "../../../schema/ws"
import { Gate, parsed, type TopicDef } from "../../platform/ws/Topics"
import { masked } from "./AnonymousView"

export const CONSOLE_TOPICS: ReadonlyArray<TopicDef> = [
  {
    topic: "feed:trades",
    source: {
      stream: STREAMS.chainTx, kind: "log", delayedForAnon: true,
      route: (payload) => {
        const message = parsed(ChainStreamMessage, payload)
        if (!message) return null
        if (isRetraction(message)) {
          const live: FeedRetraction = {
            kind: "retraction", tx_hash: message.tx_hash, log_index: message.log_index, block: message.block,
            wallet: message.wallet, token: message.token, reason: message.reason
          }
          return { topic: "feed:trades", key: "", live, delayed: masked(live) }
        }
        const { messageId: _ignored, ...live } = message
        // A trade's delay runs from its block time: the backlog stored at start is served to anonymous visitors at once.
        const happenedAt = Date.parse(live.ts)
        return { topic: "feed:trades", key: "", live, delayed: masked(live), ...(Number.isFinite(happenedAt) ? { happenedAt } : {}) }
      }
    },
    gate: Gate.everyoneDelayedForAnon
  },
  {
    topic: "index",
    source: {
      stream: CONSOLE_STREAMS.index, kind: "state", delayedForAnon: false,
      route: (payload) => {
        const snapshot = parsed(IndexSnapshot, payload)
        return snapshot && { topic: "index", key: "", live: snapshot }
      }
    },
    gate: Gate.everyone
  },
  {
    topic: "top-tokens",
    source: {
      stream: CONSOLE_STREAMS.topTokens, kind: "state", delayedForAnon: false,
      route: (payload) => {
        const snapshot = parsed(TopTokensSnapshot, payload)
        return snapshot && { topic: "top-tokens", key: snapshot.top.timeframe, live: snapshot }
      }
    },
    gate: Gate.everyone
  },
  {
    topic: "chain:head",
    source: {
      stream: CONSOLE_STREAMS.chainHead, kind: "state", delayedForAnon: false,
      route: (payload) => {
        const head = parsed(ChainHead, payload)
        return head && { topic: "chain:head", key: "", live: head }
      }
    },
    gate: Gate.everyone
  }
]
