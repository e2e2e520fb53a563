/** The watchlist's calls, by their shared contracts (schema/http/watchlist.ts). */
import { WatchlistEndpoints as E } from "../../../../schema/http/watchlist"
import { call } from "../../api/http"

export const watchlistApi = {
  list: () => call(E.list),
  add: (token: string) => call(E.add, { body: { token } }),
  remove: (id: number) => call(E.remove, { params: { item_id: id } })
}
