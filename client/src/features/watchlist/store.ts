/**
 * The watchlist page's state: the items from `GET /api/watchlist`, kept live by the user's topic (`user:<id>`,
 * kind `watchlist`): each whale trade of a watched token updates its price and adds to its 24 h flow. Created when
 * the page mounts; the subscription ends with the page.
 */
import { createStore } from "solid-js/store"
import type { Watchlist } from "../../../../schema/http/watchlist"
import type { UserEventData } from "../../../../schema/ws"
import { onUserEvent } from "../../api/userEvents"
import type { Deps } from "../../store/types"
import { watchlistApi } from "./api"

export interface WatchlistState {
  readonly loaded: boolean
  readonly list: Watchlist | null
  readonly error: string | null
  readonly busy: boolean
  /** Item ids with a trade in the last few seconds (highlighted). */
  readonly flash: Record<number, number>
}

export const createWatchlistStore = (deps: Deps) => {
  const [state, setState] = createStore<WatchlistState>({ loaded: false, list: null, error: null, busy: false, flash: {} })
  const load = async () => {
    try {
      setState({ list: await watchlistApi.list(), loaded: true, error: null })
    } catch (e) {
      setState({ loaded: true, error: (e as Error).message })
    }
  }
  const onLive = (data: UserEventData<"watchlist">) => {
    // A retraction changes nothing shown here (the figures are the next load's).
    if ("retracted" in data || !state.list) return
    const i = state.list.items.findIndex((it) => it.id === data.item_id)
    if (i < 0) return
    const item = state.list.items[i]!
    const usd = data.usd ?? 0
    const buy = data.category === "dex_buy" ? usd : 0
    const sell = data.category === "dex_sell" ? usd : 0
    const net = data.category === "dex_buy" || data.category === "exchange_withdraw" ? usd : -usd
    const price = data.price_usd ?? item.price_usd
    setState("list", "items", i, {
      price_usd: price,
      change_pct: price !== null && item.price_at_add_usd ? Math.round(((price - item.price_at_add_usd) / item.price_at_add_usd) * 10_000) / 100 : item.change_pct,
      flow_24h: { buy_usd: item.flow_24h.buy_usd + buy, sell_usd: item.flow_24h.sell_usd + sell, net_usd: item.flow_24h.net_usd + net, trades: item.flow_24h.trades + 1 }
    })
    setState("flash", item.id, Date.now())
  }
  return {
    state,
    load,
    /** Follows the user's topic; returns the function that stops it. */
    follow: (userId: number) => onUserEvent(deps.ws, userId, "watchlist", onLive),
    add: async (token: string) => {
      setState({ busy: true, error: null })
      try {
        await watchlistApi.add(token)
        await load()
        return true
      } catch (e) {
        setState({ error: (e as Error).message })
        return false
      } finally {
        setState({ busy: false })
      }
    },
    remove: async (id: number) => {
      const before = state.list
      if (before) setState("list", "items", (items) => items.filter((it) => it.id !== id))
      try {
        await watchlistApi.remove(id)
      } catch (e) {
        setState({ list: before, error: (e as Error).message })
      }
    }
  }
}
