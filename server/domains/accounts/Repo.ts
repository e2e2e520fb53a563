/** SQL of the `users` table (migration 0020). */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { spanned } from "../../platform/ops/Spans"

export interface UserRow {
  readonly id: number
  readonly email: string
  readonly password_hash: string
  readonly password_version: number
  readonly display_name: string | null
  readonly email_verified_at: Date | null
  readonly is_admin: boolean
  readonly account_type: "personal" | "business"
  readonly company_name: string | null
  readonly company_vat_id: string | null
  readonly company_address: string | null
  readonly company_country: string | null
  readonly created_at: Date
}

export interface NewUser {
  readonly email: string
  readonly passwordHash: string
  readonly displayName: string | null
  readonly verified: boolean
  readonly admin: boolean
}

export interface CompanyDetails {
  readonly name: string
  readonly vatId: string | null
  readonly address: string | null
  readonly country: string | null
}

const COLUMNS = "id, email, password_hash, password_version, display_name, email_verified_at, is_admin, account_type, company_name, company_vat_id, company_address, company_country, created_at"

export class AccountsRepo extends Effect.Service<AccountsRepo>()("app/AccountsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const one = (rows: ReadonlyArray<UserRow>) => rows[0]
    return spanned("AccountsRepo", {
      /** Creates the account unless the e-mail is taken; returns its id, or undefined when it existed. */
      insert: (u: NewUser) =>
        sql<{ id: number }>`
          INSERT INTO users (email, password_hash, display_name, email_verified_at, is_admin)
          VALUES (${u.email}, ${u.passwordHash}, ${u.displayName}, ${u.verified ? sql`now()` : null}, ${u.admin})
          ON CONFLICT (email) DO NOTHING RETURNING id`.pipe(Effect.map((rows) => rows[0]?.id), Effect.orDie),

      byEmail: (email: string) =>
        sql<UserRow>`SELECT ${sql.literal(COLUMNS)} FROM users WHERE email = ${email}`.pipe(Effect.map(one), Effect.orDie),

      byId: (id: number) =>
        sql<UserRow>`SELECT ${sql.literal(COLUMNS)} FROM users WHERE id = ${id}`.pipe(Effect.map(one), Effect.orDie),

      /** The user of a live session (not revoked, not expired), or undefined. */
      bySession: (sessionId: string, userId: number) =>
        sql<UserRow>`
          SELECT ${sql.literal(COLUMNS.split(", ").map((c) => `u.${c}`).join(", "))}
          FROM sessions s JOIN users u ON u.id = s.user_id
          WHERE s.id = ${sessionId} AND s.user_id = ${userId} AND s.revoked_at IS NULL AND s.expires_at > now()`.pipe(
          Effect.map(one),
          Effect.orDie
        ),

      setDisplayName: (id: number, name: string | null) =>
        sql`UPDATE users SET display_name = ${name}, updated_at = now() WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

      /** Makes the account a business one (or updates its company details). Touches nothing else. */
      setBusiness: (id: number, c: CompanyDetails) =>
        sql`
          UPDATE users SET account_type = 'business', company_name = ${c.name}, company_vat_id = ${c.vatId},
                 company_address = ${c.address}, company_country = ${c.country}, updated_at = now()
          WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

      /** Replaces the password and bumps its version (older reset links die); returns the new version. */
      setPassword: (id: number, passwordHash: string) =>
        sql<{ password_version: number }>`
          UPDATE users SET password_hash = ${passwordHash}, password_version = password_version + 1, updated_at = now()
          WHERE id = ${id} RETURNING password_version`.pipe(Effect.map((rows) => rows[0]?.password_version), Effect.orDie),

      /** Re-hash at today's cost without changing the version (the password is the same). */
      upgradeHash: (id: number, oldHash: string, newHash: string) =>
        sql`UPDATE users SET password_hash = ${newHash} WHERE id = ${id} AND password_hash = ${oldHash}`.pipe(Effect.asVoid, Effect.orDie),

      /** Marks the address verified if it is still the account's address; true when the row matched. */
      markVerified: (id: number, email: string) =>
        sql<{ id: number }>`
          UPDATE users SET email_verified_at = COALESCE(email_verified_at, now()), updated_at = now()
          WHERE id = ${id} AND email = ${email} RETURNING id`.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie),

      setAdmin: (id: number, admin: boolean) =>
        sql`UPDATE users SET is_admin = ${admin}, updated_at = now() WHERE id = ${id}`.pipe(Effect.asVoid, Effect.orDie),

      list: (limit: number) =>
        sql<UserRow>`SELECT ${sql.literal(COLUMNS)} FROM users ORDER BY id LIMIT ${limit}`.pipe(Effect.orDie)
    } as const)
  })
}) {}
