/** The billing page's calls, each parsed with the shared schema (schema/http/billing.ts). */
import { z } from "zod"
import {
  BillingStatusResponse, CheckoutResponse, CryptoInvoiceResponse, CurrenciesResponse, OkResponse, PortalResponse, SubscriptionView
} from "../../../../schema/http/billing"
import { call } from "../../api/http"

export const billingApi = {
  status: () => call(BillingStatusResponse, "GET", "/api/billing/status"),
  checkout: (tier: string, interval: "monthly" | "yearly") => call(CheckoutResponse, "POST", "/api/subscribe/cardprocessor", { tier, interval }),
  portal: () => call(PortalResponse, "POST", "/api/billing/portal", {}),
  switchYearly: () => call(PortalResponse, "POST", "/api/billing/switch-yearly", {}),
  cancel: (reason?: string) => call(SubscriptionView, "POST", "/api/subscribe/cancel", reason ? { reason } : {}),
  cancelFeedback: (reason: "downgraded" | "stayed") => call(OkResponse, "POST", "/api/subscribe/cancel-feedback", { reason }),
  downgrade: (tier: string) => call(SubscriptionView, "POST", "/api/subscribe/downgrade", { tier }),
  currencies: () => call(CurrenciesResponse, "GET", "/api/crypto/currencies"),
  crypto: (tier: string, interval: "monthly" | "yearly", currency?: string) =>
    call(CryptoInvoiceResponse, "POST", "/api/subscribe/crypto", { tier, interval, ...(currency ? { currency } : {}) })
}

export type BillingStatus = z.infer<typeof BillingStatusResponse>
