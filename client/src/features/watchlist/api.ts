/** The watchlist's calls, parsed with the shared schemas (schema/http/watchlist.ts). */
import { z } from "zod"
import { AddWatchlistResponse, Watchlist } from "../../../../schema/http/watchlist"
import { call } from "../../api/http"

export const watchlistApi = {
  list: () => call(Watchlist, "GET", "/api/watchlist"),
  add: (token: string) => call(AddWatchlistResponse, "POST", "/api/watchlist", { token }),
  remove: (id: number) => call(z.object({ ok: z.literal(true) }), "DELETE", `/api/watchlist/${id}`)
}
