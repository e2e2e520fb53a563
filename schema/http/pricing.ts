import { z } from "zod"

export const PublicTierName = z.enum(["free", "pro", "alpha", "whale"])

export const PricingTier = z.object({
  name: PublicTierName,
  display_name: z.string(),
  tagline: z.string(),
  rank: z.number().int(),
  monthly_usd: z.number(),
  yearly_usd: z.number(),
  founding_yearly_usd: z.number().nullable(),
  api_requests_per_day: z.number().int(),
  alert_limit: z.number().int(),
  features: z.array(z.string())
})
export type PricingTier = z.infer<typeof PricingTier>

export const PricingResponse = z.object({ currency: z.literal("USD"), tiers: z.array(PricingTier) })
export type PricingResponse = z.infer<typeof PricingResponse>

export const WaitlistRequest = z.object({
  email: z.string().trim().toLowerCase().pipe(z.email({ message: "value is not a valid email address" }).max(254)),
  source: z.string().trim().max(64).optional()
})
export type WaitlistRequest = z.infer<typeof WaitlistRequest>

export const WaitlistResponse = z.object({ ok: z.literal(true), message: z.string() })
