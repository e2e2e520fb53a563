/** Billing routes (spec §4.2, §4.4): parse → call the service → respond. Errors answer as `BillingErrors` says. */
import { Effect } from "effect"
import { z } from "zod"
import {
  BillingStatusResponse, CancelFeedbackRequest, CancelRequest, CheckoutRequest, CheckoutResponse, CryptoInvoiceResponse,
  CryptoSubscribeRequest, CurrenciesResponse, DowngradeRequest, OkResponse, PortalResponse, WebhookAck
} from "../../../schema/http/billing"
import { AuthGuards } from "../accounts/Guards"
import { Guard } from "../../platform/http/Guards"
import { route } from "../../platform/http/Route"
import { Billing } from "./Billing"
import { CardGateway } from "./card/CardGateway"
import { CardWebhook } from "./card/CardWebhook"
import { CryptoGateway } from "./crypto/CryptoGateway"
import { CryptoPayments } from "./crypto/CryptoPayments"
import { TestPaymentRoutes } from "./TestPayments"

export const BillingRoutes = Effect.gen(function* () {
  const billing = yield* Billing
  const guards = yield* AuthGuards
  const webhook = yield* CardWebhook
  const crypto = yield* CryptoPayments
  const card = yield* CardGateway
  const cryptoGateway = yield* CryptoGateway
  const user = guards.user
  const tags = ["billing"]
  const ok = { ok: true as const }
  const testPayments = card.standIn !== null || cryptoGateway.standIn !== null

  // Stand-ins without a reachable URL of ours deliver through the same verifying receivers, in process.
  if (card.standIn && !card.standIn.options.webhookUrl) {
    card.standIn.options.sink = (payload, header) =>
      Effect.runPromise(webhook.receive(Buffer.from(payload), header).pipe(Effect.as(200), Effect.catchAll(() => Effect.succeed(400)), Effect.catchAllDefect(() => Effect.succeed(500))))
  }
  if (cryptoGateway.standIn && !cryptoGateway.standIn.options.sink) {
    cryptoGateway.standIn.options.sink = (body, sig) =>
      Effect.runPromise(crypto.receive(Buffer.from(body), sig).pipe(Effect.as(200), Effect.catchAll(() => Effect.succeed(400)), Effect.catchAllDefect(() => Effect.succeed(500))))
  }

  return [
    route({
      method: "GET", path: "/api/billing/status", summary: "The caller's plan, subscription, pending change and what they can do", tags,
      guard: user, response: BillingStatusResponse,
      handler: ({ auth }) =>
        billing.overview(auth.id).pipe(Effect.map(({ card_test, ...o }) => ({
          ...o, crypto_available: cryptoGateway.configured, test_payments: card_test || cryptoGateway.standIn !== null
        })))
    }),
    route({
      method: "POST", path: "/api/subscribe/cardprocessor", summary: "A hosted card checkout session (subscription) for a tier and interval", tags,
      guard: user, body: CheckoutRequest, response: CheckoutResponse,
      handler: ({ auth, body }) => billing.checkout(auth, body.tier, body.interval)
    }),
    route({
      method: "POST", path: "/api/billing/portal", summary: "A card-provider customer portal session (409 without a card customer)", tags,
      guard: user, response: PortalResponse,
      handler: ({ auth }) => billing.portal(auth.id)
    }),
    route({
      method: "POST", path: "/api/billing/switch-yearly", summary: "Monthly to yearly at the founding price, confirmed on the provider's hosted page", tags,
      guard: user, response: PortalResponse,
      handler: ({ auth }) => billing.switchYearly(auth.id)
    }),
    route({
      method: "POST", path: "/api/subscribe/cancel", summary: "Cancel at period end; the reason and the confirmation mail are best-effort", tags,
      guard: user, body: CancelRequest, response: BillingStatusResponse.shape.subscription,
      handler: ({ auth, body }) => billing.cancel(auth, body.reason).pipe(Effect.map(billing.view))
    }),
    route({
      method: "POST", path: "/api/subscribe/cancel-feedback", summary: "Bookkeeping only: a cancel flow opened but not completed", tags,
      guard: user, body: CancelFeedbackRequest, response: OkResponse,
      handler: ({ auth, body }) => billing.cancelFeedback(auth.id, body.reason).pipe(Effect.as(ok))
    }),
    route({
      method: "POST", path: "/api/subscribe/downgrade", summary: "Cancel now, keep access to the period end, then re-subscribe at the lower tier", tags,
      guard: user, body: DowngradeRequest, response: BillingStatusResponse.shape.subscription,
      handler: ({ auth, body }) => billing.downgrade(auth, body.tier).pipe(Effect.map(billing.view))
    }),
    route({
      method: "GET", path: "/api/crypto/currencies", summary: "Crypto currencies accepted for payment (cached)", tags,
      guard: Guard.anon, response: CurrenciesResponse,
      handler: () => cryptoGateway.currencies().pipe(Effect.map((currencies) => ({ currencies, test_payments: cryptoGateway.standIn !== null })))
    }),
    route({
      method: "POST", path: "/api/subscribe/crypto", summary: "A crypto payment invoice for a tier and interval", tags,
      guard: user, body: CryptoSubscribeRequest, response: CryptoInvoiceResponse,
      handler: ({ auth, body }) => crypto.subscribe(auth, body.tier, body.interval, body.currency)
    }),
    route({
      method: "POST", path: "/webhooks/cardprocessor", summary: "Card provider events (Stripe-Signature verified on the raw body)", tags: ["webhooks"],
      guard: Guard.anon, bodyKind: "raw", body: z.any(), response: WebhookAck,
      handler: ({ rawBody, req }) =>
        webhook.receive(rawBody, req.header("stripe-signature")).pipe(Effect.map(({ event_id: _id, ...r }) => r))
    }),
    route({
      method: "POST", path: "/webhooks/cryptoprocessor", summary: "Crypto processor IPNs (x-nowpayments-sig verified)", tags: ["webhooks"],
      guard: Guard.anon, bodyKind: "raw", body: z.any(), response: WebhookAck,
      handler: ({ rawBody, req }) => crypto.receive(rawBody, req.header("x-nowpayments-sig"))
    }),
    ...(testPayments ? yield* TestPaymentRoutes : [])
  ]
})
