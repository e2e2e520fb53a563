/**
 * SQL of the per-user hourly budget (`alert_budget`, migration 0050), and only that: counts per window, the
 * overflow folded into a digest, the ended windows whose digest is owed. Infrastructure faults are defects here;
 * every method is a span (`BudgetRepo.<method>`).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export class BudgetRepo extends Effect.Service<BudgetRepo>()("app/AlertBudgetRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const die = Effect.orDie

    return {
      /**
       * Adds `counts[i]` to user `userIds[i]`'s count of the window, for many users in one statement; each user's
       * count after. Rows are locked in user order, so two rounds never wait on each other in a circle.
       */
      useBudgets: Effect.fn("BudgetRepo.useBudgets")((hour: Date, userIds: ReadonlyArray<number>, counts: ReadonlyArray<number>) =>
        userIds.length === 0 ? Effect.succeed(new Map<number, number>()) : sql<{ user_id: number; used: number }>`
          INSERT INTO alert_budget (user_id, hour, used)
          SELECT u, ${hour}::timestamptz, n FROM unnest(${userIds}::bigint[], ${counts}::int[]) AS t(u, n) ORDER BY u
          ON CONFLICT (user_id, hour) DO UPDATE SET used = alert_budget.used + excluded.used
          RETURNING user_id, used`.pipe(Effect.map((rows) => new Map(rows.map((r) => [Number(r.user_id), r.used]))), die)),

      /** Adds overflow (deliveries folded into the window's digest) for many users in one statement. */
      addOverflows: Effect.fn("BudgetRepo.addOverflows")((hour: Date, userIds: ReadonlyArray<number>, counts: ReadonlyArray<number>) =>
        userIds.length === 0 ? Effect.void : sql`
          UPDATE alert_budget b SET overflow = b.overflow + t.n
          FROM unnest(${userIds}::bigint[], ${counts}::int[]) AS t(u, n)
          WHERE b.user_id = t.u AND b.hour = ${hour}`.pipe(Effect.asVoid, die)),

      /** Claims the windows that ended with an overflow and no digest yet (each is claimed by one process). */
      claimDigests: Effect.fn("BudgetRepo.claimDigests")((before: Date) =>
        sql<{ user_id: number; hour: Date; overflow: number }>`
          UPDATE alert_budget SET digest_sent = true
          WHERE (user_id, hour) IN (SELECT user_id, hour FROM alert_budget WHERE hour < ${before} AND overflow > 0 AND NOT digest_sent
                                    LIMIT 100 FOR UPDATE SKIP LOCKED)
          RETURNING user_id, hour, overflow`.pipe(die)),

      /** The titles of a user's deliveries folded into the digest of [from, to). */
      digestedIn: Effect.fn("BudgetRepo.digestedIn")((userId: number, from: Date, to: Date) =>
        sql<{ id: number; title: string }>`
          SELECT DISTINCT d.id, d.title FROM alert_deliveries d JOIN alert_delivery_channels c ON c.delivery_id = d.id
          WHERE d.user_id = ${userId} AND c.status = 'digested' AND d.created_at >= ${from} AND d.created_at < ${to}
          ORDER BY d.id`.pipe(die))
    } as const
  })
}) {}
