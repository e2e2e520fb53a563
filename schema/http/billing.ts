/** Wire contracts of billing (server/domains/billing, the /billing console page). */
import { z } from "zod"
import { endpoint } from "./endpoint"

export const PaidTier = z.enum(["pro", "alpha", "whale"])
export const BillingInterval = z.enum(["monthly", "yearly"])

/** Cancel reason codes: the card provider's own cancellation feedback values. */
export const CancelReason = z.enum(["too_expensive", "missing_features", "switched_service", "unused", "customer_service", "too_complex", "low_quality", "other"])

export const CheckoutRequest = z.object({ tier: PaidTier, interval: BillingInterval.default("monthly") })
export const CheckoutResponse = z.object({ url: z.string(), id: z.string() })
export const PortalResponse = z.object({ url: z.string(), id: z.string() })
export const CancelRequest = z.object({ reason: CancelReason.optional() })
export const CancelFeedbackRequest = z.object({ reason: z.enum(["downgraded", "stayed"]) })
export const DowngradeRequest = z.object({ tier: PaidTier })
export const CryptoSubscribeRequest = z.object({
  tier: PaidTier,
  interval: BillingInterval.default("monthly"),
  currency: z.string().trim().toLowerCase().regex(/^[a-z0-9]{2,20}$/, { message: "a currency code such as btc or eth" }).optional()
})
export const CryptoInvoiceResponse = z.object({ invoice_url: z.string(), id: z.string(), price_usd: z.number(), tier: PaidTier, interval: z.string() })
export const CurrenciesResponse = z.object({ currencies: z.array(z.string()), test_payments: z.boolean() })
export const OkResponse = z.object({ ok: z.literal(true) })

export const SubscriptionView = z.object({
  provider: z.enum(["card", "crypto"]),
  tier: z.string(),
  interval: BillingInterval,
  price_usd: z.number().nullable(),
  status: z.string(),
  current_period_end: z.string().nullable(),
  cancel_at_period_end: z.boolean(),
  cancel_reason: z.string().nullable(),
  pending_change: z.object({ tier: z.string(), interval: BillingInterval, effective_at: z.string().nullable() }).nullable()
})
export type SubscriptionView = z.infer<typeof SubscriptionView>

export const PlanPrice = z.object({ tier: PaidTier, display_name: z.string(), monthly_usd: z.number(), yearly_usd: z.number() })

export const BillingStatusResponse = z.object({
  tier: z.string(),
  subscription: SubscriptionView.nullable(),
  has_card_customer: z.boolean(),
  card_available: z.boolean(),
  crypto_available: z.boolean(),
  /** The providers are the local stand-ins: nothing is charged. */
  test_payments: z.boolean(),
  cancel_reasons: z.array(CancelReason),
  plans: z.array(PlanPrice)
})
export type BillingStatusResponse = z.infer<typeof BillingStatusResponse>

export const WebhookAck = z.object({ received: z.literal(true), outcome: z.string(), duplicate: z.boolean() })

// ------------------------------------------------------------------------------------------------------------
// Endpoints

const tags = ["billing"]

export const BillingEndpoints = {
  status: endpoint({
    method: "GET", path: "/api/billing/status", summary: "The caller's plan, subscription, pending change and what they can do", tags,
    response: BillingStatusResponse
  }),
  checkout: endpoint({
    method: "POST", path: "/api/subscribe/cardprocessor", summary: "A hosted card checkout session (subscription) for a tier and interval", tags,
    body: CheckoutRequest, response: CheckoutResponse
  }),
  portal: endpoint({
    method: "POST", path: "/api/billing/portal", summary: "A card-provider customer portal session (409 without a card customer)", tags, response: PortalResponse
  }),
  switchYearly: endpoint({
    method: "POST", path: "/api/billing/switch-yearly", summary: "Monthly to yearly at the founding price, confirmed on the provider's hosted page", tags,
    response: PortalResponse
  }),
  cancel: endpoint({
    method: "POST", path: "/api/subscribe/cancel", summary: "Cancel at period end; the reason and the confirmation mail are best-effort", tags,
    body: CancelRequest, response: SubscriptionView
  }),
  cancelFeedback: endpoint({
    method: "POST", path: "/api/subscribe/cancel-feedback", summary: "Bookkeeping only: a cancel flow opened but not completed", tags,
    body: CancelFeedbackRequest, response: OkResponse
  }),
  downgrade: endpoint({
    method: "POST", path: "/api/subscribe/downgrade", summary: "Cancel now, keep access to the period end, then re-subscribe at the lower tier", tags,
    body: DowngradeRequest, response: SubscriptionView
  }),
  currencies: endpoint({ method: "GET", path: "/api/crypto/currencies", summary: "Crypto currencies accepted for payment (cached)", tags, response: CurrenciesResponse }),
  crypto: endpoint({
    method: "POST", path: "/api/subscribe/crypto", summary: "A crypto payment invoice for a tier and interval", tags,
    body: CryptoSubscribeRequest, response: CryptoInvoiceResponse
  }),
  /** The providers' webhooks: the signature is verified on the raw bytes, so the body is read raw. */
  cardWebhook: endpoint({
    method: "POST", path: "/webhooks/cardprocessor", summary: "Card provider events (Stripe-Signature verified on the raw body)", tags: ["webhooks"],
    bodyKind: "raw", body: z.any(), response: WebhookAck
  }),
  cryptoWebhook: endpoint({
    method: "POST", path: "/webhooks/cryptoprocessor", summary: "Crypto processor IPNs (x-nowpayments-sig verified)", tags: ["webhooks"],
    bodyKind: "raw", body: z.any(), response: WebhookAck
  })
}
