/**
 * SQL of the users' alert settings (`alert_user_settings`: channels, the messenger chat, the webhook, the global
 * mute) and of the messenger connect codes (`alert_messenger_codes`), migration 0050, and only that. Infrastructure
 * faults are defects here; every method is a span (`SettingsRepo.<method>`).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export interface SettingsRow {
  readonly user_id: number
  readonly muted_until: Date | null
  readonly messenger_enabled: boolean
  readonly messenger_chat_id: string | null
  readonly messenger_username: string | null
  readonly messenger_connected_at: Date | null
  readonly email_enabled: boolean
  readonly console_enabled: boolean
  readonly webhook_enabled: boolean
  readonly webhook_url: string | null
  readonly webhook_secret: string | null
  readonly webhook_disabled_reason: string | null
}

/** A partial update of a user's settings: absent keys keep their value. */
export interface SettingsPatch {
  readonly messenger_enabled?: boolean | undefined
  readonly email_enabled?: boolean | undefined
  readonly console_enabled?: boolean | undefined
  readonly webhook_enabled?: boolean | undefined
  readonly webhook_url?: string | null | undefined
  readonly webhook_secret?: string | undefined
  readonly webhook_disabled_reason?: string | null | undefined
  readonly muted_until?: Date | null | undefined
}

export class SettingsRepo extends Effect.Service<SettingsRepo>()("app/AlertSettingsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const die = Effect.orDie

    return {
      settings: Effect.fn("SettingsRepo.settings")((userId: number) =>
        sql<SettingsRow>`SELECT * FROM alert_user_settings WHERE user_id = ${userId}`.pipe(Effect.map((r) => r[0] ?? null), die)),

      settingsOf: Effect.fn("SettingsRepo.settingsOf")((userIds: ReadonlyArray<number>) =>
        sql<SettingsRow>`SELECT * FROM alert_user_settings WHERE user_id = ANY(${userIds}::bigint[])`.pipe(die)),

      /** Applies a partial update (absent keys keep their value), creating the row with defaults first. */
      patchSettings: Effect.fn("SettingsRepo.patchSettings")((userId: number, p: SettingsPatch) =>
        sql`INSERT INTO alert_user_settings (user_id) VALUES (${userId}) ON CONFLICT (user_id) DO NOTHING`.pipe(
          Effect.zipRight(sql<SettingsRow>`
            UPDATE alert_user_settings SET
              messenger_enabled = coalesce(${p.messenger_enabled ?? null}::boolean, messenger_enabled),
              email_enabled = coalesce(${p.email_enabled ?? null}::boolean, email_enabled),
              console_enabled = coalesce(${p.console_enabled ?? null}::boolean, console_enabled),
              webhook_enabled = coalesce(${p.webhook_enabled ?? null}::boolean, webhook_enabled),
              webhook_url = CASE WHEN ${p.webhook_url !== undefined}::boolean THEN ${p.webhook_url ?? null} ELSE webhook_url END,
              webhook_secret = coalesce(${p.webhook_secret ?? null}, webhook_secret),
              webhook_disabled_reason = CASE WHEN ${p.webhook_disabled_reason !== undefined}::boolean THEN ${p.webhook_disabled_reason ?? null} ELSE webhook_disabled_reason END,
              muted_until = CASE WHEN ${p.muted_until !== undefined}::boolean THEN ${p.muted_until ?? null}::timestamptz ELSE muted_until END,
              updated_at = now()
            WHERE user_id = ${userId}
            RETURNING *`),
          Effect.map((rows) => rows[0]!), die)),

      /** The users muted now (the matching index's load). */
      mutedUsers: Effect.fn("SettingsRepo.mutedUsers")(() =>
        sql<{ user_id: number; muted_until: Date }>`
          SELECT user_id, muted_until FROM alert_user_settings WHERE muted_until > now()`.pipe(die)),

      /** Binds a chat to a user (a chat belongs to one user: an earlier binding of it is removed). */
      bindChat: Effect.fn("SettingsRepo.bindChat")((userId: number, chatId: string, username: string | null) =>
        sql.withTransaction(Effect.gen(function* () {
          const before = yield* sql<{ user_id: number }>`
            UPDATE alert_user_settings SET messenger_chat_id = NULL, messenger_username = NULL, messenger_connected_at = NULL
            WHERE messenger_chat_id = ${chatId} AND user_id <> ${userId} RETURNING user_id`
          yield* sql`INSERT INTO alert_user_settings (user_id) VALUES (${userId}) ON CONFLICT (user_id) DO NOTHING`
          yield* sql`
            UPDATE alert_user_settings SET messenger_chat_id = ${chatId}, messenger_username = ${username},
              messenger_connected_at = now(), messenger_enabled = true, updated_at = now()
            WHERE user_id = ${userId}`
          return before.map((r) => r.user_id)
        })).pipe(die)),

      unbindChat: Effect.fn("SettingsRepo.unbindChat")((chatId: string) =>
        sql<{ user_id: number }>`
          UPDATE alert_user_settings SET messenger_chat_id = NULL, messenger_username = NULL, messenger_connected_at = NULL, updated_at = now()
          WHERE messenger_chat_id = ${chatId} RETURNING user_id`.pipe(Effect.map((r) => r[0]?.user_id ?? null), die)),

      byChat: Effect.fn("SettingsRepo.byChat")((chatId: string) =>
        sql<SettingsRow>`SELECT * FROM alert_user_settings WHERE messenger_chat_id = ${chatId}`.pipe(Effect.map((r) => r[0] ?? null), die)),

      // -------------------------------------------------------------------------------------------------- codes
      putCode: Effect.fn("SettingsRepo.putCode")((userId: number, hash: string, expiresAt: Date) =>
        sql`
          INSERT INTO alert_messenger_codes (user_id, code_hash, expires_at) VALUES (${userId}, ${hash}, ${expiresAt})
          ON CONFLICT (user_id) DO UPDATE SET code_hash = excluded.code_hash, expires_at = excluded.expires_at, created_at = now()`.pipe(
          Effect.as(true),
          // The same code already live for another user (one in a million): the caller draws again.
          Effect.catchAll(() => Effect.succeed(false)))),

      /** Consumes a live code: its user, or null. */
      takeCode: Effect.fn("SettingsRepo.takeCode")((hash: string) =>
        sql<{ user_id: number }>`
          DELETE FROM alert_messenger_codes WHERE code_hash = ${hash} AND expires_at > now() RETURNING user_id`.pipe(
          Effect.map((r) => r[0]?.user_id ?? null), die))
    } as const
  })
}) {}
