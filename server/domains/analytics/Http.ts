/**
 * The analytics read models where spec §4.8 puts them for the alerts pages: platform stats and the tracked-wallet
 * search (`q` default empty, `limit` default 20). Anonymous, from the read models (ANALYTICS_CACHE_SECONDS).
 */
import { Effect } from "effect"
import { Stats } from "../../../schema/http/analytics"
import { WalletSearchData, WalletSearchQuery } from "../../../schema/http/dataapi"
import { Guard } from "../../platform/http/Guards"
import { Reply } from "../../platform/http/Reply"
import { route } from "../../platform/http/Route"
import { Analytics } from "./Analytics"
import { ReadModels } from "./ReadModels"

export const AnalyticsRoutes = Effect.gen(function* () {
  const models = yield* ReadModels
  const analytics = yield* Analytics
  return [
    route({
      method: "GET", path: "/api/alerts/stats", summary: "Platform stats: tracked wallet count, 24h whale buy and sell volume, latest block",
      tags: ["alerts"], guard: Guard.anon, response: Stats,
      handler: () => models.stats().pipe(Effect.map(({ json }) => Reply.rawJson(json)))
    }),
    route({
      method: "GET", path: "/api/alerts/wallet-search", summary: "Search tracked wallets by address prefix or label",
      tags: ["alerts"], guard: Guard.anon, query: WalletSearchQuery, response: WalletSearchData,
      handler: ({ query }) => analytics.searchWallets(query.q, query.limit).pipe(Effect.map((wallets) => ({ wallets })))
    })
  ]
})
