/**
 * The watchlist-live actor: consumes `chain.tx` (its own consumer group) and, for every whale record of a token
 * some users watch, publishes one `UserEvent` (kind `watchlist`) per watcher on `console.user`; the hub relays it
 * on that user's `user:<id>` topic, so the /watchlist page updates prices and flows live. Retractions (reorgs)
 * are published too (`data.retracted: true`) so a page can drop the trade it showed.
 * No state: who watches a token is read from the database, one query per read of the stream (a read's messages are
 * handled in one call: a 2,400-record block costs one query, not 2,400), so an item added a moment ago gets the next
 * trade.
 * Idempotency: each event carries `messageId` = `wl:<record messageId>:<user>`; a redelivered record republishes
 * the same ids, and a live price update shown twice changes nothing.
 */
import { Effect } from "effect"
import { type FlowCategory, isFlowCategory } from "../../schema/records"
import { CONSOLE_STREAMS } from "../../schema/ws"
import { ChainStreamMessage, isRetraction, STREAMS } from "../../schema/streams"
import type { WatchlistLive } from "../../schema/http/watchlist"
import { Bus } from "../../server/platform/infra/Bus"
import { Watchlist } from "../../server/domains/watchlist/Watchlist"
import { streamActor } from "../../server/platform/actors/Actor"

export const WatchlistLiveActor = streamActor({
  name: "watchlist-live",
  stream: STREAMS.chainTx,
  group: "watchlist-live",
  schema: ChainStreamMessage,
  startFrom: "$",
  // A read's messages in one call (no fiber per message): one query for the watchers of all its tokens, one publish (a
  // whole block in one read).
  batch: 4096,
  // Waits for the block's alerts (Priority.ts).
  priority: "deferrable",
  behaviourMany: Effect.gen(function* () {
    const watchlist = yield* Watchlist
    const bus = yield* Bus
    return (messages: ReadonlyArray<ChainStreamMessage>) =>
      Effect.gen(function* () {
        const rows = yield* watchlist.watchers([...new Set(messages.map((m) => m.token))])
        if (rows.length === 0) return
        const byToken = new Map<string, Array<(typeof rows)[number]>>()
        for (const w of rows) {
          const list = byToken.get(w.token)
          if (list) list.push(w)
          else byToken.set(w.token, [w])
        }
        // Exchange housekeeping is no flow: never news on a watched token.
        const events = messages.filter((m) => isRetraction(m) || isFlowCategory(m.category)).flatMap((m) => (byToken.get(m.token) ?? []).map((w) => {
          const messageId = `wl:${m.messageId}:${w.user_id}`
          if (isRetraction(m)) {
            return { messageId, user_id: w.user_id, kind: "watchlist" as const, data: { item_id: w.id, token: m.token, tx_hash: m.tx_hash, retracted: true as const } }
          }
          const data: WatchlistLive = {
            item_id: w.id, token: m.token, symbol: m.symbol, price_usd: m.price_usd, category: m.category as FlowCategory, usd: m.usd, ts: m.ts
          }
          return { messageId, user_id: w.user_id, kind: "watchlist" as const, data }
        }))
        if (events.length > 0) yield* bus.publishMany(CONSOLE_STREAMS.user, events)
      })
  })
})
