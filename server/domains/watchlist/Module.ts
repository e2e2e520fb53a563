/** The per-user watchlist: items with prices and whale flow, pending tokens, e-mailed quick-add and interest links. */
import { defineModule } from "../../platform/Module"
import { WatchlistErrors } from "./Errors"
import { WatchlistRoutes } from "./Http"
import { Watchlist } from "./Watchlist"

export const WatchlistModule = defineModule({ name: "watchlist", layer: Watchlist.Default, routes: WatchlistRoutes, errors: WatchlistErrors })
