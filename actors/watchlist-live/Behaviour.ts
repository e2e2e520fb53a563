/**
 * The watchlist-live actor: consumes `chain.tx` (its own consumer group) and, for every whale record of a token
 * some users watch, publishes one `UserEvent` (kind `watchlist`) per watcher on `console.user`; the hub relays it
 * on that user's `user:<id>` topic, so the /watchlist page updates prices and flows live. Retractions (reorgs)
 * are published too (`data.retracted: true`) so a page can drop the trade it showed.
 * No state: who watches a token is one indexed read per record (whale records come a few per block), so an item
 * added a moment ago gets the next trade.
 * Idempotency: each event carries `messageId` = `wl:<record messageId>:<user>`; a redelivered record republishes
 * the same ids, and a live price update shown twice changes nothing.
 */
import { Effect } from "effect"
import { CONSOLE_STREAMS } from "../../schema/ws"
import { ChainStreamMessage, isRetraction, STREAMS } from "../../schema/streams"
import type { WatchlistLive } from "../../schema/http/watchlist"
import { Bus } from "../../server/platform/infra/Bus"
import { Watchlist } from "../../server/domains/watchlist/Watchlist"
import { streamActor } from "../runtime/Actor"

export const WatchlistLiveActor = streamActor({
  name: "watchlist-live",
  stream: STREAMS.chainTx,
  group: "watchlist-live",
  schema: ChainStreamMessage,
  startFrom: "$",
  behaviour: Effect.gen(function* () {
    const watchlist = yield* Watchlist
    const bus = yield* Bus
    const watchersOf = (token: string) => watchlist.watchers([token])
    return (message: ChainStreamMessage) =>
      Effect.gen(function* () {
        if (isRetraction(message)) {
          const m = message
          const rows = yield* watchersOf(m.token)
          if (rows.length === 0) return
          yield* bus.publishMany(CONSOLE_STREAMS.user, rows.map((w) => ({
            messageId: `wl:${m.messageId}:${w.user_id}`, user_id: w.user_id, kind: "watchlist",
            data: { item_id: w.id, token: m.token, tx_hash: m.tx_hash, retracted: true }
          })))
          return
        }
        const rows = yield* watchersOf(message.token)
        if (rows.length === 0) return
        yield* bus.publishMany(CONSOLE_STREAMS.user, rows.map((w) => {
          const data: WatchlistLive = {
            item_id: w.id, token: message.token, symbol: message.symbol, price_usd: message.price_usd,
            category: message.category, usd: message.usd, ts: message.ts
          }
          return { messageId: `wl:${message.messageId}:${w.user_id}`, user_id: w.user_id, kind: "watchlist", data }
        }))
      })
  })
})
