/**
 * The keyed data API's routes (contracts in schema/http/dataapi.ts): each counts the request, then validates its
 * query itself (`rawQuery`: a 422 carries the quota headers), then answers the data in its envelope.
 */
import { Clock, Effect } from "effect"
import { z } from "zod"
import { DataApiEndpoints as E, type UsageData } from "../../../schema/http/dataapi"
import type { Endpoint } from "../../../schema/http/endpoint"
import { Analytics } from "../../domains/analytics/Analytics"
import { ReadModels } from "../../domains/analytics/ReadModels"
import { scopeOf } from "../../domains/analytics/Whales"
import { DAY_MS, dayStart, isoWithOffset } from "../../domains/analytics/Windows"
import { AuthGuards } from "../../domains/accounts/Guards"
import { ApiKeys, type KeyOwner } from "../../domains/apikeys/ApiKeys"
import { ApiKeyGuard } from "../../domains/apikeys/Guard"
import type { AppError } from "../../platform/http/Errors"
import { route } from "../../platform/http/Route"
import { DataApi, type Produced } from "./DataApi"
import { Quota, type QuotaState } from "./Quota"

/** Endpoints without parameters (any query is ignored, the key's `api_key` included). */
export const NoQuery = z.object({})

export const DataApiRoutes = Effect.gen(function* () {
  const api = yield* DataApi
  const { guard, peek: cachedOwner } = yield* ApiKeyGuard
  const models = yield* ReadModels
  const analytics = yield* Analytics
  const keys = yield* ApiKeys
  const quota = yield* Quota
  const guards = yield* AuthGuards

  const keyed = <S extends z.ZodType = typeof NoQuery>(
    endpoint: Endpoint<any, S, any, any>,
    produce: (query: z.output<S>, owner: KeyOwner, q: QuotaState) => Effect.Effect<Produced, AppError>,
    peek?: (query: z.output<S>, owner: KeyOwner) => Produced | undefined
  ) => {
    const serve = api.serve(endpoint.path, endpoint.query ?? (NoQuery as unknown as S), produce, peek)
    return route(endpoint, {
      guard, rawQuery: true,
      handler: ({ auth, req }) => serve.effect(auth, req),
      // A key already resolved in this process skips the Effect guard; any other goes the ordinary way.
      fast: (req, respond) => {
        const owner = cachedOwner(req)
        if (owner === undefined) return false
        serve.respondTo(owner, req, Date.now(), respond)
        return true
      }
    })
  }

  return [
    // Figures count whales only; `include=bots` counts bots, routers, pools, exchanges and bridges too (Whales.ts).
    keyed(E.whaleIndex, (q) => models.whaleIndex(scopeOf(q)), (q) => models.peek.whaleIndex(scopeOf(q))),
    keyed(E.topTokens, (q) => models.topTokens(q.tf, q.limit, scopeOf(q)), (q) => models.peek.topTokens(q.tf, q.limit, scopeOf(q))),
    keyed(E.flows, (q) => models.flows(q.tf, q.limit, q.token, scopeOf(q)), (q) => models.peek.flows(q.tf, q.limit, q.token, scopeOf(q))),
    keyed(E.transactions, (q) => analytics.transactions(q).pipe(Effect.map((value) => ({ value })))),
    keyed(E.positioning, (q, owner) => models.positioning(owner.tier, scopeOf(q)), (q, owner) => models.peek.positioning(owner.tier, scopeOf(q))),
    keyed(E.stats, (q) => models.stats(scopeOf(q)), (q) => models.peek.stats(scopeOf(q))),
    keyed(E.wallets, (q) => analytics.searchWallets(q.q, q.limit).pipe(Effect.map((wallets) => ({ value: { wallets } })))),
    keyed(E.usage,
      (_, owner, q) =>
        Effect.gen(function* () {
          const active = yield* keys.active(owner.userId)
          const counts = yield* quota.keyCounts(active.map((k) => k.id))
          return {
            value: {
              used: q.count, limit: q.limit, remaining: q.remaining, reset_at: isoWithOffset(q.resetAtMs),
              keys: active.map((k, i) => ({ prefix: k.prefix, name: k.name, requests: counts[i] ?? 0 }))
            } satisfies UsageData
          }
        })),
    // The account page's view of the same figures: by session, any tier (0 keys below whale), never counted.
    route(E.accountUsage, {
      guard: guards.user,
      handler: ({ auth }) =>
        Effect.gen(function* () {
          const active = yield* keys.active(auth.id)
          const [used, counts, now] = yield* Effect.all([quota.accountCount(auth.id), quota.keyCounts(active.map((k) => k.id)), Clock.currentTimeMillis])
          return {
            used, limit: quota.limit, remaining: Math.max(0, quota.limit - used), reset_at: isoWithOffset(dayStart(now) + DAY_MS),
            keys: active.map((k, i) => ({ prefix: k.prefix, name: k.name, requests: counts[i] ?? 0 }))
          } satisfies UsageData
        })
    })
  ]
})
