/** SQL of the keyed API's persisted daily usage (migration 0032). Counts only ever grow (the highest wins). */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { inTransaction } from "../../platform/infra/Sql"
import { spanned } from "../../platform/ops/Spans"

export interface UsageRecord {
  readonly userId: number
  readonly keyId: number
  readonly day: string
  readonly count: number
  readonly keyCount: number
  readonly limit: number
  readonly at: string
}

export class UsageRepo extends Effect.Service<UsageRepo>()("app/UsageRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return spanned("UsageRepo", {
      /** Raises the stored counts to the event's, in one statement (accounts and keys deleted meanwhile are skipped). */
      raise: (u: UsageRecord) => sql`
        WITH account AS (
          INSERT INTO api_usage_daily (user_id, day, requests, daily_limit)
          SELECT ${u.userId}, ${u.day}::date, ${u.count}, ${u.limit} WHERE EXISTS (SELECT 1 FROM users WHERE id = ${u.userId})
          ON CONFLICT (user_id, day) DO UPDATE SET requests = greatest(api_usage_daily.requests, EXCLUDED.requests),
            daily_limit = EXCLUDED.daily_limit, updated_at = now()
        ), per_key AS (
          INSERT INTO api_key_usage_daily (key_id, day, requests)
          SELECT ${u.keyId}, ${u.day}::date, ${u.keyCount} WHERE EXISTS (SELECT 1 FROM api_keys WHERE id = ${u.keyId})
          ON CONFLICT (key_id, day) DO UPDATE SET requests = greatest(api_key_usage_daily.requests, EXCLUDED.requests), updated_at = now()
        )
        UPDATE api_keys SET last_used_at = ${u.at}::timestamptz
        WHERE id = ${u.keyId} AND (last_used_at IS NULL OR last_used_at < ${u.at}::timestamptz)`.pipe(Effect.asVoid, Effect.orDie),

      /** Records the thresholds not warned about yet; returns those recorded now. */
      claimWarnings: (userId: number, day: string, thresholds: ReadonlyArray<number>) =>
        thresholds.length === 0
          ? Effect.succeed([] as ReadonlyArray<number>)
          : sql<{ threshold: number }>`
            INSERT INTO api_quota_warnings (user_id, day, threshold)
            SELECT ${userId}, ${day}::date, t FROM unnest(${thresholds}::int[]) AS t
            WHERE EXISTS (SELECT 1 FROM users WHERE id = ${userId})
            ON CONFLICT DO NOTHING RETURNING threshold`.pipe(Effect.map((rows) => rows.map((r) => r.threshold)), Effect.orDie),

      usage: (userId: number, day: string) => sql<{ requests: number; daily_limit: number }>`
        SELECT requests, daily_limit FROM api_usage_daily WHERE user_id = ${userId} AND day = ${day}::date`.pipe(
        Effect.map((rows) => rows[0] ?? null),
        Effect.orDie
      ),

      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => inTransaction(sql, effect)
    } as const)
  })
}) {}
