/** Tier names and their order. The `tiers` table (migration 0001) carries the same ranks for prices and features. */
import { z } from "zod"

export const TIERS = ["anon", "free", "pro", "alpha", "whale", "staff"] as const
export const Tier = z.enum(TIERS)
export type Tier = z.infer<typeof Tier>

/** `staff` is the internal-only tier: above every public tier, never listed in pricing. */
export const TIER_RANK: Record<Tier, number> = { anon: 0, free: 1, pro: 2, alpha: 3, whale: 4, staff: 9 }

export const tierAtLeast = (tier: Tier, minimum: Tier) => TIER_RANK[tier] >= TIER_RANK[minimum]
