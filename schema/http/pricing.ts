/** Public pricing, the founding waitlist (double opt-in) and the one-click marketing unsubscribe (spec §4.2). */
import { z } from "zod"
import { endpoint } from "./endpoint"

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

/** A signed link's token (an absent or unknown one answers the same page). */
export const LinkTokenQuery = z.object({ token: z.string().max(4096).optional().default("") })

export const PricingEndpoints = {
  pricing: endpoint({
    method: "GET", path: "/api/pricing", summary: "Public tiers with monthly and yearly prices and their feature gates", tags: ["billing"],
    response: PricingResponse
  }),
  joinWaitlist: endpoint({
    method: "POST", path: "/api/founding-waitlist", summary: "Join the founding waitlist: a confirmation link is mailed; the drip starts once confirmed",
    tags: ["billing"], body: WaitlistRequest, response: WaitlistResponse
  }),
  confirmWaitlist: endpoint({
    method: "GET", path: "/api/founding-waitlist/confirm", summary: "Confirms a waitlist address from its signed link (double opt-in)", tags: ["billing"],
    query: LinkTokenQuery, produces: "text/html"
  }),
  unsubscribe: endpoint({
    method: "GET", path: "/email/unsubscribe", summary: "One-click marketing unsubscribe; answers the same page whatever the token", tags: ["email"],
    query: LinkTokenQuery, produces: "text/html"
  }),
  unsubscribeOneClick: endpoint({
    method: "POST", path: "/email/unsubscribe", summary: "RFC 8058 one-click unsubscribe (List-Unsubscribe-Post)", tags: ["email"],
    query: LinkTokenQuery, bodyKind: "raw", body: z.any(), produces: "text/html"
  })
}
