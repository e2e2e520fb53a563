/** The account as other domains see it (`AuthUser`) and as its owner sees it (`/auth/me`). */
import type { MeResponse } from "../../../schema/http/auth"
import type { Tier } from "../../../schema/tiers"
import type { EntitlementSummary } from "./Entitlements"
import type { UserRow } from "./Repo"

export interface AuthUser {
  readonly id: number
  readonly email: string
  readonly displayName: string | null
  /** Effective tier (server/domains/accounts/Entitlements.ts). */
  readonly tier: Tier
  /** The admin role, independent of the tier. */
  readonly admin: boolean
  readonly emailVerified: boolean
  readonly accountType: "personal" | "business"
  /** The session the request came with (absent for callers authenticated another way). */
  readonly sessionId?: string
}

export const toAuthUser = (row: UserRow, tier: Tier, sessionId?: string): AuthUser => ({
  id: row.id,
  email: row.email,
  displayName: row.display_name,
  tier,
  admin: row.is_admin,
  emailVerified: row.email_verified_at !== null,
  accountType: row.account_type,
  ...(sessionId ? { sessionId } : {})
})

export const toMe = (row: UserRow, summary: EntitlementSummary): MeResponse => ({
  id: row.id,
  email: row.email,
  display_name: row.display_name,
  tier: summary.tier,
  admin: row.is_admin,
  email_verified: row.email_verified_at !== null,
  account_type: row.account_type,
  company:
    row.account_type === "business" && row.company_name !== null
      ? { name: row.company_name, vat_id: row.company_vat_id, address: row.company_address, country: row.company_country }
      : null,
  trial_ends_at: summary.trialEndsAt?.toISOString() ?? null,
  trial_used: summary.trialUsed,
  created_at: row.created_at.toISOString()
})
