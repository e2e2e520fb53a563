/**
 * SQL of the alert subscriptions (`alert_subscriptions`, migration 0050), and only that: the owner's CRUD, and the
 * matching index's reads (every alert at load, the changed ones after) and its `last_fired_at` floor. Infrastructure
 * faults are defects here; every method is a span (`SubscriptionsRepo.<method>`).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export interface SubRow {
  readonly id: number
  readonly user_id: number
  readonly type: string
  readonly name: string | null
  readonly params: Record<string, unknown>
  readonly channels: ReadonlyArray<string>
  readonly enabled: boolean
  readonly snoozed_until: Date | null
  readonly last_fired_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
}

/** What an alert is made of (a create or an update). */
export interface SubInput {
  readonly name: string | null
  readonly params: unknown
  readonly channels: ReadonlyArray<string>
  readonly enabled: boolean
}

const SUB_COLUMNS = "id, user_id, type, name, params, channels, enabled, snoozed_until, last_fired_at, created_at, updated_at"
/** Advisory lock namespace of per-user alert creation (the count check). */
const ALERT_LOCK = 30_050

export class SubscriptionsRepo extends Effect.Service<SubscriptionsRepo>()("app/AlertSubscriptionsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const die = Effect.orDie
    const columns = sql.literal(SUB_COLUMNS)

    return {
      list: Effect.fn("SubscriptionsRepo.list")((userId: number) =>
        sql<SubRow>`SELECT ${columns} FROM alert_subscriptions WHERE user_id = ${userId} ORDER BY id`.pipe(die)),

      byId: Effect.fn("SubscriptionsRepo.byId")((userId: number, id: number) =>
        sql<SubRow>`SELECT ${columns} FROM alert_subscriptions WHERE id = ${id} AND user_id = ${userId}`.pipe(
          Effect.map((rows) => rows[0] ?? null), die)),

      /** Inserts unless the user has `max` alerts already (serialised per user). */
      insert: Effect.fn("SubscriptionsRepo.insert")((userId: number, a: SubInput & { readonly type: string }, max: number) =>
        sql.withTransaction(Effect.gen(function* () {
          yield* sql`SELECT pg_advisory_xact_lock(${ALERT_LOCK}, ${userId}::int)`
          const counted = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM alert_subscriptions WHERE user_id = ${userId}`
          if (counted[0]!.n >= max) return null
          const rows = yield* sql<SubRow>`
            INSERT INTO alert_subscriptions (user_id, type, name, params, channels, enabled)
            VALUES (${userId}, ${a.type}, ${a.name}, ${JSON.stringify(a.params)}::jsonb, ${a.channels}::text[], ${a.enabled})
            RETURNING ${columns}`
          return rows[0]!
        })).pipe(die)),

      update: Effect.fn("SubscriptionsRepo.update")((userId: number, id: number, a: SubInput) =>
        sql<SubRow>`
          UPDATE alert_subscriptions SET name = ${a.name}, params = ${JSON.stringify(a.params)}::jsonb, channels = ${a.channels}::text[],
            enabled = ${a.enabled}, updated_at = now()
          WHERE id = ${id} AND user_id = ${userId}
          RETURNING ${columns}`.pipe(Effect.map((rows) => rows[0] ?? null), die)),

      remove: Effect.fn("SubscriptionsRepo.remove")((userId: number, id: number) =>
        sql`DELETE FROM alert_subscriptions WHERE id = ${id} AND user_id = ${userId} RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), die)),

      snooze: Effect.fn("SubscriptionsRepo.snooze")((userId: number, id: number, until: Date | null) =>
        sql<SubRow>`
          UPDATE alert_subscriptions SET snoozed_until = ${until}, updated_at = now()
          WHERE id = ${id} AND user_id = ${userId}
          RETURNING ${columns}`.pipe(Effect.map((rows) => rows[0] ?? null), die)),

      countOf: Effect.fn("SubscriptionsRepo.countOf")((userId: number) =>
        sql<{ n: number }>`SELECT count(*)::int AS n FROM alert_subscriptions WHERE user_id = ${userId}`.pipe(Effect.map((r) => r[0]!.n), die)),

      /** Every subscription (the matching index's load). */
      all: Effect.fn("SubscriptionsRepo.all")(() => sql<SubRow>`SELECT ${columns} FROM alert_subscriptions`.pipe(die)),
      /** The alerts of one shard's users (`user_id mod count = index`, matching/Shard.ts). */
      ofShard: Effect.fn("SubscriptionsRepo.ofShard")((index: number, count: number) =>
        sql<SubRow>`SELECT ${columns} FROM alert_subscriptions WHERE user_id % ${count} = ${index}`.pipe(die)),

      byIds: Effect.fn("SubscriptionsRepo.byIds")((ids: ReadonlyArray<number>) =>
        sql<SubRow>`SELECT ${columns} FROM alert_subscriptions WHERE id = ANY(${ids}::bigint[])`.pipe(die)),

      /** Remembers when alerts last fired (cooldowns survive a restart). */
      /**
       * Dates each alert's last firing (the cooldown's floor after a restart): one row per alert, its latest time (an
       * UPDATE … FROM with an alert twice would apply either one of its rows).
       */
      touchFired: Effect.fn("SubscriptionsRepo.touchFired")((ids: ReadonlyArray<number>, at: ReadonlyArray<string>) => {
        const latest = new Map<number, { at: string; ms: number }>()
        for (let i = 0; i < ids.length; i++) {
          const ms = Date.parse(at[i]!)
          const kept = latest.get(ids[i]!)
          if (kept === undefined || ms > kept.ms) latest.set(ids[i]!, { at: at[i]!, ms })
        }
        if (latest.size === 0) return Effect.void
        return sql`
          UPDATE alert_subscriptions s SET last_fired_at = greatest(s.last_fired_at, t.at)
          FROM unnest(${[...latest.keys()]}::bigint[], ${[...latest.values()].map((v) => v.at)}::timestamptz[]) AS t(id, at)
          WHERE s.id = t.id AND (s.last_fired_at IS NULL OR s.last_fired_at < t.at)`.pipe(Effect.asVoid, die)
      })
    } as const
  })
}) {}
