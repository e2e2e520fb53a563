/** The wallet pages' calls, by their shared contracts (schema/http/wallets.ts; the search is the alerts pages' one). */
import { AnalyticsEndpoints } from "../../../../schema/http/analytics"
import { WalletEndpoints as E } from "../../../../schema/http/wallets"
import type { WhaleCategory } from "../../../../schema/records"
import { call } from "../../api/http"

export const walletsApi = {
  page: (address: string) => call(E.page, { params: { address } }),
  trades: (address: string, beforeId?: number, category?: WhaleCategory) =>
    call(E.trades, { params: { address }, query: { limit: 50, ...(beforeId ? { before_id: beforeId } : {}), ...(category ? { category } : {}) } }),
  search: (q: string) => call(AnalyticsEndpoints.walletSearch, { query: { q, limit: 50 } })
}
