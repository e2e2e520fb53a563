/** SQL of API keys (migration 0032). Only hashes are stored. */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { spanned } from "../../platform/ops/Spans"

export interface KeyRow {
  readonly id: number
  readonly prefix: string
  readonly name: string
  readonly created_at: Date
  readonly last_used_at: Date | null
}

export interface ActiveKey {
  readonly id: number
  readonly user_id: number
  readonly prefix: string
}

/** Advisory lock namespace of per-user key creation (serialises the 10-key check). */
const LOCK_SPACE = 30_032

export class ApiKeysRepo extends Effect.Service<ApiKeysRepo>()("app/ApiKeysRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return spanned("ApiKeysRepo", {
      /**
       * Inserts a key unless the user has `max` active keys already; null when at the limit. `prefixTaken` keys are
       * retried by the caller (a user's active prefixes are unique).
       */
      insert: (userId: number, name: string, prefix: string, hash: string, max: number) =>
        sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`SELECT pg_advisory_xact_lock(${LOCK_SPACE}, ${userId}::int)`
            const active = yield* sql<{ n: number; taken: boolean }>`
              SELECT count(*)::int AS n, coalesce(bool_or(prefix = ${prefix}), false) AS taken
              FROM api_keys WHERE user_id = ${userId} AND revoked_at IS NULL`
            if (active[0]!.n >= max) return { kind: "limit" as const }
            if (active[0]!.taken) return { kind: "prefix-taken" as const }
            const rows = yield* sql<KeyRow>`
              INSERT INTO api_keys (user_id, name, prefix, key_hash) VALUES (${userId}, ${name}, ${prefix}, ${hash})
              RETURNING id, prefix, name, created_at, last_used_at`
            return { kind: "created" as const, row: rows[0]! }
          })
        ).pipe(Effect.orDie),

      active: (userId: number) => sql<KeyRow>`
        SELECT id, prefix, name, created_at, last_used_at FROM api_keys
        WHERE user_id = ${userId} AND revoked_at IS NULL ORDER BY created_at, id`.pipe(Effect.orDie),

      /** Revokes the user's active key with this prefix; its hash, or null when there is none. */
      revoke: (userId: number, prefix: string) => sql<{ key_hash: string }>`
        UPDATE api_keys SET revoked_at = now()
        WHERE user_id = ${userId} AND prefix = ${prefix} AND revoked_at IS NULL
        RETURNING key_hash`.pipe(Effect.map((rows) => rows[0]?.key_hash ?? null), Effect.orDie),

      /** The active key with this hash. */
      byHash: (hash: string) => sql<ActiveKey>`
        SELECT id, user_id, prefix FROM api_keys WHERE key_hash = ${hash} AND revoked_at IS NULL`.pipe(
        Effect.map((rows) => rows[0] ?? null),
        Effect.orDie
      )
    } as const)
  })
}) {}
