/** What can be bought: paid tiers × intervals, the cancel reason codes, and the names of provider prices. */
import type { z } from "zod"
import { BillingInterval, CancelReason, PaidTier } from "../../../schema/http/billing"

export { BillingInterval, CancelReason, PaidTier }
export const PAID_TIERS = PaidTier.options
export type PaidTier = z.infer<typeof PaidTier>
/** Our interval names on the wire; the providers (and the `subscriptions` table) say `month` / `year`. */
export type BillingInterval = z.infer<typeof BillingInterval>
export type ProviderInterval = "month" | "year"

export const toProviderInterval = (i: BillingInterval): ProviderInterval => (i === "monthly" ? "month" : "year")
export const fromProviderInterval = (i: ProviderInterval): BillingInterval => (i === "month" ? "monthly" : "yearly")

/**
 * Cancel reason codes (the spec leaves them open; these are the card provider's own cancellation feedback
 * values, so they pass through to it unchanged).
 */
export const CANCEL_REASONS = CancelReason.options
export type CancelReason = z.infer<typeof CancelReason>

/** The prices of one tier, from the `tiers` table (USD). */
export interface TierPrices {
  readonly name: string
  readonly display_name: string
  readonly monthly_usd: number
  readonly yearly_usd: number
  readonly founding_yearly_usd: number | null
}

/** What one period costs: monthly, or yearly at the founding price when there is one. */
export const priceOf = (tier: TierPrices, interval: ProviderInterval): number =>
  interval === "month" ? Number(tier.monthly_usd) : Number(tier.founding_yearly_usd ?? tier.yearly_usd)

/** Key of a provider price in `STRIPE_PRICES` (`pro_monthly`, `whale_yearly`, …) and its lookup key at the provider. */
export const priceKey = (tier: PaidTier, interval: ProviderInterval) => `${tier}_${fromProviderInterval(interval)}`
export const lookupKey = (tier: PaidTier, interval: ProviderInterval) => `whale_${tier}_${interval}`

/** The tier and interval a provider price names: through `STRIPE_PRICES`, its metadata, or our lookup key. */
export const planOfPrice = (
  price: { id?: string; lookup_key?: string | null; metadata?: Record<string, string> | null } | null | undefined,
  configured: Readonly<Record<string, string>>
): { tier: PaidTier } | undefined => {
  if (!price) return undefined
  for (const [key, id] of Object.entries(configured)) {
    if (id === price.id) {
      const tier = PaidTier.safeParse(key.split("_")[0])
      if (tier.success) return { tier: tier.data }
    }
  }
  const fromMeta = PaidTier.safeParse(price.metadata?.tier)
  if (fromMeta.success) return { tier: fromMeta.data }
  const m = /^whale_(pro|alpha|whale)_(month|year)$/.exec(price.lookup_key ?? "")
  return m ? { tier: m[1] as PaidTier } : undefined
}

/** Adds one billing period (calendar month or year, UTC), as the providers do. */
export const addPeriod = (from: Date, interval: ProviderInterval): Date => {
  const d = new Date(from.getTime())
  if (interval === "month") d.setUTCMonth(d.getUTCMonth() + 1)
  else d.setUTCFullYear(d.getUTCFullYear() + 1)
  return d
}
