/**
 * The wallet page's own store, created when the page mounts: the page's first screen (identity, size, flows, picks,
 * exchange movements), then its trades page by page (older with `before_id`), optionally one category. A 404 or 422
 * is kept as the page's state (`missing`), not as an error.
 */
import { createStore } from "solid-js/store"
import type { WhaleTrade } from "../../../../schema/http/analytics"
import type { WalletPage } from "../../../../schema/http/wallets"
import type { WhaleCategory } from "../../../../schema/records"
import { HttpError } from "../../api/http"
import { walletsApi } from "./api"

export interface WalletState {
  address: string
  page: WalletPage | null
  /** 404: nothing known (or not yours); 422: not an address. */
  missing: 404 | 422 | null
  error: string | null
  trades: ReadonlyArray<WhaleTrade>
  nextBeforeId: number | null
  category: WhaleCategory | null
  tradesLoading: boolean
}

export const createWalletStore = () => {
  const [state, setState] = createStore<WalletState>({
    address: "", page: null, missing: null, error: null, trades: [], nextBeforeId: null, category: null, tradesLoading: false
  })

  const loadTrades = async (older: boolean) => {
    const address = state.address
    setState({ tradesLoading: true })
    try {
      const got = await walletsApi.trades(address, older ? (state.nextBeforeId ?? undefined) : undefined, state.category ?? undefined)
      if (state.address !== address) return
      setState({ trades: older ? [...state.trades, ...got.trades] : got.trades, nextBeforeId: got.next_before_id, tradesLoading: false })
    } catch (e) {
      setState({ tradesLoading: false, error: (e as Error).message })
    }
  }

  const load = async (address: string) => {
    setState({ address, page: null, missing: null, error: null, trades: [], nextBeforeId: null, category: null })
    try {
      const page = await walletsApi.page(address)
      if (state.address !== address) return
      setState({ page })
      await loadTrades(false)
    } catch (e) {
      if (state.address !== address) return
      if (e instanceof HttpError && (e.status === 404 || e.status === 422)) setState({ missing: e.status })
      else setState({ error: (e as Error).message })
    }
  }

  const filter = (category: WhaleCategory | null) => {
    setState({ category, trades: [], nextBeforeId: null })
    void loadTrades(false)
  }

  return { state, load, more: () => loadTrades(true), filter }
}
export type WalletStore = ReturnType<typeof createWalletStore>
