/** SQL of what grants a tier: `tier_grants`, `subscriptions` and `trials` (migration 0021). */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { Tier } from "../../../schema/tiers"
import { spanned } from "../../platform/ops/Spans"

/** One source of entitlement, whatever its table. */
export interface EntitlementRow {
  readonly source: "grant" | "subscription" | "trial"
  readonly tier: Tier
  /** Subscription status; null for grants and trials. */
  readonly status: string | null
  /** Grant expiry, subscription period end, or trial end. */
  readonly until: Date | null
  /** Subscription trial end; null otherwise. */
  readonly trial_end: Date | null
  /** Subscription provider (`card` renews by itself, `crypto` does not); null for grants and trials. */
  readonly provider?: string | null
  /** Subscription set to end at its period end; null for grants and trials. */
  readonly cancel_at_period_end?: boolean | null
}

export class EntitlementsRepo extends Effect.Service<EntitlementsRepo>()("app/EntitlementsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return spanned("EntitlementsRepo", {
      /** Every source of one user, in one round trip. */
      sourcesOf: (userId: number) =>
        sql<EntitlementRow>`
          SELECT 'grant' AS source, tier, NULL::text AS status, expires_at AS until, NULL::timestamptz AS trial_end,
                 NULL::text AS provider, NULL::boolean AS cancel_at_period_end
            FROM tier_grants WHERE user_id = ${userId}
          UNION ALL
          SELECT 'subscription', tier, status, current_period_end, trial_end, provider, cancel_at_period_end
            FROM subscriptions WHERE user_id = ${userId}
          UNION ALL
          SELECT 'trial', tier, NULL, ends_at, NULL, NULL, NULL FROM trials WHERE user_id = ${userId}`.pipe(Effect.orDie),

      /** Every source of many users, in one round trip (alerts check their owners' tiers in bulk). */
      sourcesOfMany: (userIds: ReadonlyArray<number>) =>
        sql<EntitlementRow & { readonly user_id: number }>`
          SELECT user_id, 'grant' AS source, tier, NULL::text AS status, expires_at AS until, NULL::timestamptz AS trial_end,
                 NULL::text AS provider, NULL::boolean AS cancel_at_period_end
            FROM tier_grants WHERE user_id = ANY(${userIds}::bigint[])
          UNION ALL
          SELECT user_id, 'subscription', tier, status, current_period_end, trial_end, provider, cancel_at_period_end
            FROM subscriptions WHERE user_id = ANY(${userIds}::bigint[])
          UNION ALL
          SELECT user_id, 'trial', tier, NULL, ends_at, NULL, NULL, NULL FROM trials WHERE user_id = ANY(${userIds}::bigint[])`.pipe(Effect.orDie),

      upsertGrant: (userId: number, tier: Tier, grantedBy: string, note: string | null) =>
        sql`
          INSERT INTO tier_grants (user_id, tier, granted_by, note) VALUES (${userId}, ${tier}, ${grantedBy}, ${note})
          ON CONFLICT (user_id) DO UPDATE
          SET tier = EXCLUDED.tier, granted_by = EXCLUDED.granted_by, note = EXCLUDED.note, granted_at = now(), expires_at = NULL`.pipe(
          Effect.asVoid,
          Effect.orDie
        ),

      deleteGrant: (userId: number) =>
        sql<{ user_id: number }>`DELETE FROM tier_grants WHERE user_id = ${userId} RETURNING user_id`.pipe(
          Effect.map((rows) => rows.length === 1),
          Effect.orDie
        ),

      /** Starts the account's one trial; undefined when it already had one. */
      insertTrial: (userId: number, tier: Tier, days: number) =>
        sql<{ ends_at: Date }>`
          INSERT INTO trials (user_id, tier, ends_at) VALUES (${userId}, ${tier}, now() + make_interval(days => ${days}))
          ON CONFLICT (user_id) DO NOTHING RETURNING ends_at`.pipe(Effect.map((rows) => rows[0]?.ends_at), Effect.orDie),

      /** Trials ending in [from, to) (the drip-mailer's reminders). */
      trialsEnding: (from: Date, to: Date) =>
        sql<{ user_id: number; tier: Tier; ends_at: Date }>`
          SELECT user_id, tier, ends_at FROM trials WHERE ends_at >= ${from} AND ends_at < ${to} ORDER BY ends_at LIMIT 500`.pipe(Effect.orDie),

      hasTrial: (userId: number) =>
        sql<{ user_id: number }>`SELECT user_id FROM trials WHERE user_id = ${userId}`.pipe(
          Effect.map((rows) => rows.length > 0),
          Effect.orDie
        )
    } as const)
  })
}) {}
