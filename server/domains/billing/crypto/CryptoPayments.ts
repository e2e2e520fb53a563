/**
 * Paying by crypto: `POST /api/subscribe/crypto` asks the processor for an invoice; the processor's IPNs at
 * `POST /webhooks/cryptoprocessor` move it. An IPN is taken only with a valid `x-nowpayments-sig`; it is
 * idempotent per (payment id, status); its amount and currency must be the invoice's. `finished` activates or
 * extends the subscription by one period (once per invoice); `partially_paid`, `failed`, `expired`, `refunded`
 * do not; the in-between statuses (`waiting`, `confirming`, `confirmed`, `sending`) are recorded only.
 */
import { randomBytes } from "node:crypto"
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { z } from "zod"
import { AppConfig } from "../../../platform/Config"
import { BadPayload, BadSignature, NotApplicable } from "../Errors"
import { Ledger } from "../Ledger"
import { priceOf, toProviderInterval, type BillingInterval, type PaidTier } from "../Plans"
import { BillingRepo } from "../Repo"
import { Billing, type BillingUser } from "../Billing"
import { CryptoGateway } from "./CryptoGateway"
import { CryptoRepo } from "./CryptoRepo"
import { verifyIpnSignature } from "./Signature"
import { inTransaction } from "../../../platform/infra/Sql"

const Ipn = z.object({
  payment_id: z.union([z.number().int(), z.string().regex(/^\d{1,30}$/)]).transform(String),
  invoice_id: z.union([z.number().int(), z.string()]).nullish().transform((v) => (v === null || v === undefined ? null : String(v))),
  payment_status: z.string().min(1).max(40),
  price_amount: z.union([z.number(), z.string()]).transform(Number),
  price_currency: z.string(),
  actually_paid: z.union([z.number(), z.string()]).nullish().transform((v) => (v === null || v === undefined ? null : Number(v))),
  pay_currency: z.string().nullish(),
  order_id: z.string().nullish()
})

const NO_EFFECT = new Set(["partially_paid", "failed", "expired", "refunded"])

export class CryptoPayments extends Effect.Service<CryptoPayments>()("app/billing/CryptoPayments", {
  dependencies: [CryptoRepo.Default, BillingRepo.Default, Ledger.Default, CryptoGateway.Default, Billing.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* CryptoRepo
    const billingRepo = yield* BillingRepo
    const ledger = yield* Ledger
    const gateway = yield* CryptoGateway
    const billing = yield* Billing
    const base = (yield* AppConfig).publicBaseUrl

    const subscribe = Effect.fn("CryptoPayments.subscribe")(function* (user: BillingUser, tier: PaidTier, interval: BillingInterval, currency: string | undefined) {
      if (currency !== undefined) {
        const known = yield* gateway.currencies()
        if (!known.includes(currency)) return yield* Effect.fail(new NotApplicable({ code: "unknown_currency", message: `${currency} is not accepted; see /api/crypto/currencies` }))
      }
      const prices = yield* billing.tierPrices(tier)
      const pi = toProviderInterval(interval)
      const amount = priceOf(prices, pi)
      const invoice = yield* repo.insertInvoice({ orderId: `whale-${randomBytes(9).toString("base64url")}`, userId: user.id, tier, interval: pi, priceUsd: amount, payCurrency: currency ?? null })
      const created = yield* gateway.createInvoice({
        orderId: invoice.order_id, priceUsd: amount, payCurrency: currency, description: billing.productName(prices.display_name, pi),
        ipnUrl: `${base}/webhooks/cryptoprocessor`, successUrl: `${base}/billing?crypto=success`, cancelUrl: `${base}/billing?crypto=cancelled`
      }).pipe(Effect.tapError(() => repo.markInvoiceFailed(invoice.id)))
      yield* repo.setProviderInvoice(invoice.id, created.id, created.invoice_url)
      return { invoice_url: created.invoice_url, id: invoice.order_id, price_usd: amount, tier, interval }
    })

    const receive = Effect.fn("CryptoPayments.receive")(function* (raw: Buffer, signature: string | undefined) {
      if (!gateway.ipnSecret) return yield* Effect.fail(new BadSignature({ reason: "no IPN secret configured" }))
      let json: unknown
      try {
        json = JSON.parse(raw.toString("utf8"))
      } catch {
        return yield* Effect.fail(new BadPayload({ reason: "body is not JSON" }))
      }
      if (json === null || typeof json !== "object" || Array.isArray(json)) return yield* Effect.fail(new BadPayload({ reason: "body is not an object" }))
      if (!verifyIpnSignature(json, signature, gateway.ipnSecret)) return yield* Effect.fail(new BadSignature({ reason: "x-nowpayments-sig does not match" }))
      const parsed = Ipn.safeParse(json)
      if (!parsed.success) return yield* Effect.fail(new BadPayload({ reason: "not a payment notification" }))
      const ipn = parsed.data
      const now = new Date(yield* Clock.currentTimeMillis)
      const eventId = `${ipn.payment_id}:${ipn.payment_status}`

      const outcome = yield* inTransaction(sql, Effect.gen(function* () {
        const invoice = ipn.order_id ? yield* repo.byOrder(ipn.order_id) : undefined
        const taken = yield* repo.takePayment({ paymentId: ipn.payment_id, status: ipn.payment_status, invoiceId: invoice?.id ?? null, priceAmount: ipn.price_amount, actuallyPaid: ipn.actually_paid, payCurrency: ipn.pay_currency ?? null })
        if (!taken) return "duplicate"
        yield* billingRepo.takeEvent("crypto", eventId, `payment.${ipn.payment_status}`, ipn.payment_id, now)
        const decide = Effect.gen(function* () {
          if (!invoice) return "unknown_order"
          if (invoice.provider_invoice_id !== null && ipn.invoice_id !== null && invoice.provider_invoice_id !== ipn.invoice_id) return "invoice_mismatch"
          if (Math.abs(Number(invoice.price_usd) - ipn.price_amount) > 0.005 || ipn.price_currency.toLowerCase() !== "usd") return "amount_mismatch"
          if (NO_EFFECT.has(ipn.payment_status)) {
            if (invoice.status !== "paid") yield* repo.setInvoiceStatus(invoice.id, ipn.payment_status, null)
            return `no_activation:${ipn.payment_status}`
          }
          if (ipn.payment_status !== "finished") return `noted:${ipn.payment_status}`
          if (invoice.status === "paid") return "already_paid"
          yield* repo.setInvoiceStatus(invoice.id, "paid", now)
          yield* ledger.extendCrypto({
            userId: invoice.user_id, tier: invoice.tier, interval: invoice.interval, priceUsd: Number(invoice.price_usd), paidAt: now,
            paymentId: ipn.payment_id, cause: { cause: "crypto_ipn", ref: `payment:${eventId}` }
          })
          return "applied"
        })
        const result = yield* decide
        yield* repo.setPaymentOutcome(ipn.payment_id, ipn.payment_status, result)
        yield* billingRepo.setOutcome("crypto", eventId, result)
        return result
      }))
      yield* Effect.logInfo(`crypto IPN ${outcome}`).pipe(Effect.annotateLogs({ payment_id: ipn.payment_id, status: ipn.payment_status }))
      return { received: true as const, outcome, duplicate: outcome === "duplicate" }
    })

    return { subscribe, receive, invoicesOf: (userId: number) => repo.openOf(userId, 10) } as const
  })
}) {}
