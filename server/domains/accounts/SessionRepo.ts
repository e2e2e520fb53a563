/** SQL of `sessions` (one per login: a refresh-token family) and `refresh_tokens` (hashed, rotated). */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { spanned } from "../../platform/ops/Spans"

export interface RefreshLookup {
  readonly session_id: string
  readonly user_id: number
  readonly rotated_at: Date | null
  readonly revoked_at: Date | null
  readonly expires_at: Date
}

export class SessionRepo extends Effect.Service<SessionRepo>()("app/SessionRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return spanned("SessionRepo", {
      create: (s: { id: string; userId: number; expiresAt: Date; ip: string | null; userAgent: string | null }) =>
        sql`
          INSERT INTO sessions (id, user_id, expires_at, ip, user_agent)
          VALUES (${s.id}, ${s.userId}, ${s.expiresAt}, ${s.ip}, ${s.userAgent})`.pipe(Effect.asVoid, Effect.orDie),

      addRefreshToken: (hash: string, sessionId: string) =>
        sql`INSERT INTO refresh_tokens (token_hash, session_id) VALUES (${hash}, ${sessionId})`.pipe(Effect.asVoid, Effect.orDie),

      findRefreshToken: (hash: string) =>
        sql<RefreshLookup>`
          SELECT t.session_id, s.user_id, t.rotated_at, s.revoked_at, s.expires_at
          FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id
          WHERE t.token_hash = ${hash}`.pipe(Effect.map((rows) => rows[0]), Effect.orDie),

      /** Marks the token used; false when someone used it first (a concurrent or repeated use). */
      rotate: (hash: string) =>
        sql<{ session_id: string }>`
          UPDATE refresh_tokens SET rotated_at = now() WHERE token_hash = ${hash} AND rotated_at IS NULL
          RETURNING session_id`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie),

      /** Extends a live session; false when it was revoked or expired meanwhile. */
      extend: (sessionId: string, expiresAt: Date) =>
        sql<{ id: string }>`
          UPDATE sessions SET last_used_at = now(), expires_at = ${expiresAt}
          WHERE id = ${sessionId} AND revoked_at IS NULL AND expires_at > now() RETURNING id`.pipe(
          Effect.map((rows) => rows.length === 1),
          Effect.orDie
        ),

      revoke: (sessionId: string, reason: string) =>
        sql`
          UPDATE sessions SET revoked_at = now(), revoked_reason = ${reason}
          WHERE id = ${sessionId} AND revoked_at IS NULL`.pipe(Effect.asVoid, Effect.orDie),

      /** The user's sessions still alive, the most recently used first. */
      activeOf: (userId: number) =>
        sql<{ id: string; created_at: Date; last_used_at: Date; expires_at: Date; ip: string | null; user_agent: string | null }>`
          SELECT id, created_at, last_used_at, expires_at, ip, user_agent FROM sessions
          WHERE user_id = ${userId} AND revoked_at IS NULL AND expires_at > now()
          ORDER BY last_used_at DESC LIMIT 100`.pipe(Effect.orDie),

      /** Revokes one of the user's own sessions; false when it is not theirs or not alive. */
      revokeOwn: (userId: number, sessionId: string, reason: string) =>
        sql<{ id: string }>`
          UPDATE sessions SET revoked_at = now(), revoked_reason = ${reason}
          WHERE id = ${sessionId} AND user_id = ${userId} AND revoked_at IS NULL RETURNING id`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie),

      revokeAllOf: (userId: number, reason: string) =>
        sql<{ id: string }>`
          UPDATE sessions SET revoked_at = now(), revoked_reason = ${reason}
          WHERE user_id = ${userId} AND revoked_at IS NULL RETURNING id`.pipe(Effect.map((rows) => rows.length), Effect.orDie),

      /** Forgets rotated refresh tokens older than `days` (a replay of one is then refused as unknown, not as reuse). */
      pruneRotated: (days: number) =>
        sql<{ token_hash: string }>`
          DELETE FROM refresh_tokens WHERE rotated_at < now() - make_interval(days => ${days}) RETURNING token_hash`.pipe(
          Effect.map((rows) => rows.length),
          Effect.orDie
        ),

      /** Deletes sessions ended long ago (their tokens cascade). */
      prune: (olderThanDays: number) =>
        sql<{ id: string }>`
          DELETE FROM sessions
          WHERE COALESCE(revoked_at, expires_at) < now() - make_interval(days => ${olderThanDays}) RETURNING id`.pipe(
          Effect.map((rows) => rows.length),
          Effect.orDie
        )
    } as const)
  })
}) {}
