/**
 * The analytics read models where spec §4.8 puts them for the alerts pages: platform stats and the tracked-wallet
 * search (`q` default empty, `limit` default 20). Anonymous, from the read models (ANALYTICS_CACHE_SECONDS).
 * Contracts: schema/http/analytics.ts.
 */
import { Effect } from "effect"
import { AnalyticsEndpoints as E } from "../../../schema/http/analytics"
import { Guard } from "../../platform/http/Guards"
import { Reply } from "../../platform/http/Reply"
import { route } from "../../platform/http/Route"
import { Analytics } from "./Analytics"
import { ReadModels } from "./ReadModels"

export const AnalyticsRoutes = Effect.gen(function* () {
  const models = yield* ReadModels
  const analytics = yield* Analytics
  return [
    route(E.stats, { guard: Guard.anon, handler: () => models.stats().pipe(Effect.map(({ json }) => Reply.rawJson(json))) }),
    route(E.walletSearch, {
      guard: Guard.anon,
      handler: ({ query }) => analytics.searchWallets(query.q, query.limit).pipe(Effect.map((wallets) => ({ wallets })))
    })
  ]
})
