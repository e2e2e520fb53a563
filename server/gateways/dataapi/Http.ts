import { Effect } from "effect"
import { z } from "zod"
import { Positioning, Stats, TopTokens, WhaleIndex } from "../../../schema/http/analytics"
import { envelope, FlowsData, FlowsQuery, TimeframeQuery, TransactionsData, TransactionsQuery, UsageData, WalletSearchQuery, WalletSearchData } from "../../../schema/http/dataapi"
import { Analytics } from "../../domains/analytics/Analytics"
import { ReadModels } from "../../domains/analytics/ReadModels"
import { isoWithOffset } from "../../domains/analytics/Windows"
import { ApiKeys, type KeyOwner } from "../../domains/apikeys/ApiKeys"
import { ApiKeyGuard } from "../../domains/apikeys/Guard"
import type { AppError } from "../../platform/http/Errors"
import { route } from "../../platform/http/Route"
import { DataApi, type Produced } from "./DataApi"
import { Quota, type QuotaState } from "./Quota"

/** Endpoints without parameters (any query is ignored, the key's `api_key` included). */
export const NoQuery = z.object({})

/**
 * The query schema as documentation only: every field falls back to undefined, so the server's own validation
 * never answers first. The handler validates with the real schema and answers 422 with the quota headers.
 */
const documented = (schema: z.ZodObject) =>
  z.object(Object.fromEntries(Object.entries(schema.shape).map(([k, v]) => [k, (v as z.ZodType).optional().catch(undefined)])))

export const DataApiRoutes = Effect.gen(function* () {
  const api = yield* DataApi
  const { guard, peek: cachedOwner } = yield* ApiKeyGuard
  const models = yield* ReadModels
  const analytics = yield* Analytics
  const keys = yield* ApiKeys
  const quota = yield* Quota

  const keyed = <S extends z.ZodObject>(
    name: string, summary: string, schema: S, data: z.ZodType,
    produce: (query: z.output<S>, owner: KeyOwner, q: QuotaState) => Effect.Effect<Produced, AppError>,
    peek?: (query: z.output<S>, owner: KeyOwner) => Produced | undefined
  ) => {
    const path = `/api/v1/${name}`
    const serve = api.serve(path, schema, produce, peek)
    return route({
      method: "GET", path, summary, tags: ["data-api"], guard, response: envelope(data),
      ...(schema === NoQuery ? {} : { query: documented(schema) }),
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
    keyed("whale-index", "Whale Sentiment Index: today's score, components with weights, 30-day history", NoQuery, WhaleIndex,
      () => models.whaleIndex(), () => models.peek.whaleIndex()),
    keyed("top-tokens", "Top tokens by whale volume for tf = 1H, 24H or 7D (stablecoins excluded)", TimeframeQuery, TopTokens,
      (q) => models.topTokens(q.tf, q.limit), (q) => models.peek.topTokens(q.tf, q.limit)),
    keyed("flows", "Per-token flows: dex_buy_usd, dex_sell_usd, exchange_withdraw_usd, exchange_deposit_usd", FlowsQuery, FlowsData,
      (q) => models.flows(q.tf, q.limit, q.token), (q) => models.peek.flows(q.tf, q.limit, q.token)),
    keyed("transactions", "Whale transactions, newest first; page with before_id → next_before_id", TransactionsQuery, TransactionsData,
      (q) => analytics.transactions(q).pipe(Effect.map((value) => ({ value })))),
    keyed("positioning", "Accumulation by asset and size cohort with divergence and top accumulators", NoQuery, Positioning,
      (_, owner) => models.positioning(owner.tier), (_, owner) => models.peek.positioning(owner.tier)),
    keyed("stats", "Tracked wallets, 24h whale buy and sell volume, latest block", NoQuery, Stats, () => models.stats(), () => models.peek.stats()),
    keyed("wallets", "Search tracked wallets by address prefix or label", WalletSearchQuery, WalletSearchData,
      (q) => analytics.searchWallets(q.q, q.limit).pipe(Effect.map((wallets) => ({ value: { wallets } })))),
    keyed("usage", "The caller's requests today (all keys of the account), limit and reset time", NoQuery, UsageData,
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
        }))
  ]
})
