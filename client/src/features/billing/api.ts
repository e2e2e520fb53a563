/** The billing page's calls, by their shared contracts (schema/http/billing.ts). */
import type { z } from "zod"
import { BillingEndpoints as E, type BillingStatusResponse, type PaidTier } from "../../../../schema/http/billing"
import type { BodyOf } from "../../../../schema/http/endpoint"
import { call } from "../../api/http"

export type Tier = z.input<typeof PaidTier>
export type CancelReason = BodyOf<typeof E.cancel>["reason"]

export const billingApi = {
  status: () => call(E.status),
  checkout: (tier: Tier, interval: "monthly" | "yearly") => call(E.checkout, { body: { tier, interval } }),
  portal: () => call(E.portal),
  switchYearly: () => call(E.switchYearly),
  cancel: (reason?: CancelReason) => call(E.cancel, { body: reason ? { reason } : {} }),
  cancelFeedback: (reason: "downgraded" | "stayed") => call(E.cancelFeedback, { body: { reason } }),
  downgrade: (tier: Tier) => call(E.downgrade, { body: { tier } }),
  currencies: () => call(E.currencies),
  crypto: (tier: Tier, interval: "monthly" | "yearly", currency?: string) =>
    call(E.crypto, { body: { tier, interval, ...(currency ? { currency } : {}) } })
}

export type BillingStatus = z.infer<typeof BillingStatusResponse>
