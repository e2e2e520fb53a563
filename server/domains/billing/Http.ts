/**
 * Billing routes (spec §4.2, §4.4; contracts in schema/http/billing.ts): parse → call the service → respond. Errors
 * answer as `BillingErrors` says.
 */
import { Effect } from "effect"
import { BillingEndpoints as E } from "../../../schema/http/billing"
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
    route(E.status, {
      guard: user,
      handler: ({ auth }) =>
        billing.overview(auth.id).pipe(Effect.map(({ card_test, ...o }) => ({
          ...o, crypto_available: cryptoGateway.configured, test_payments: card_test || cryptoGateway.standIn !== null
        })))
    }),
    route(E.checkout, { guard: user, handler: ({ auth, body }) => billing.checkout(auth, body.tier, body.interval) }),
    route(E.portal, { guard: user, handler: ({ auth }) => billing.portal(auth.id) }),
    route(E.switchYearly, { guard: user, handler: ({ auth }) => billing.switchYearly(auth.id) }),
    route(E.cancel, { guard: user, handler: ({ auth, body }) => billing.cancel(auth, body.reason).pipe(Effect.map(billing.view)) }),
    route(E.cancelFeedback, { guard: user, handler: ({ auth, body }) => billing.cancelFeedback(auth.id, body.reason).pipe(Effect.as(ok)) }),
    route(E.downgrade, { guard: user, handler: ({ auth, body }) => billing.downgrade(auth, body.tier).pipe(Effect.map(billing.view)) }),
    route(E.currencies, {
      guard: Guard.anon,
      handler: () => cryptoGateway.currencies().pipe(Effect.map((currencies) => ({ currencies, test_payments: cryptoGateway.standIn !== null })))
    }),
    route(E.crypto, { guard: user, handler: ({ auth, body }) => crypto.subscribe(auth, body.tier, body.interval, body.currency) }),
    route(E.cardWebhook, {
      guard: Guard.anon,
      handler: ({ rawBody, req }) =>
        webhook.receive(rawBody, req.header("stripe-signature")).pipe(Effect.map(({ event_id: _id, ...r }) => r))
    }),
    route(E.cryptoWebhook, { guard: Guard.anon, handler: ({ rawBody, req }) => crypto.receive(rawBody, req.header("x-nowpayments-sig")) }),
    ...(testPayments ? yield* TestPaymentRoutes : [])
  ]
})
