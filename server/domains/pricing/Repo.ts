import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { PricingTier } from "../../../schema/http/pricing"
import { spanned } from "../../platform/ops/Spans"

export class PricingRepo extends Effect.Service<PricingRepo>()("app/PricingRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return spanned("PricingRepo", {
      /** Public, active tiers in rank order; the internal-only tier is filtered here, at the source. */
      publicTiers: sql<PricingTier>`
        SELECT name, display_name, tagline, rank, monthly_usd, yearly_usd, founding_yearly_usd,
               api_requests_per_day, alert_limit, features
        FROM tiers WHERE public AND active ORDER BY rank`.pipe(Effect.orDie)
    } as const)
  })
}) {}
