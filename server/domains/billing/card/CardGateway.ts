/**
 * The card provider through the official `stripe` SDK. Configured by STRIPE_SECRET_KEY and STRIPE_API_BASE; with
 * no key (outside production) the stand-in (./StandIn.ts) starts in process and the SDK talks to it over HTTP, so
 * product code is the same either way. Every call is bounded (timeout, two network retries by the SDK) and every
 * provider failure becomes `ProviderFailed` (a 502 to the caller, never a 500).
 */
import { randomBytes } from "node:crypto"
import { join } from "node:path"
import { Effect } from "effect"
import Stripe from "stripe"
import { AppConfig } from "../../../platform/Config"
import { BillingConfig, secret } from "../Config"
import { ProviderFailed, ProviderUnavailable } from "../Errors"
import { lookupKey, priceKey, fromProviderInterval, type PaidTier, type ProviderInterval } from "../Plans"
import { StripeStandIn } from "./StandIn"

const failed = (e: unknown) => {
  const err = e as { message?: string; statusCode?: number }
  return new ProviderFailed({ provider: "card", message: String(err?.message ?? e).slice(0, 300), status: err?.statusCode })
}

export interface CheckoutInput {
  readonly customer: string
  readonly userId: number
  readonly tier: PaidTier
  readonly interval: ProviderInterval
  readonly amountUsd: number
  readonly productName: string
  readonly successUrl: string
  readonly cancelUrl: string
}

export class CardGateway extends Effect.Service<CardGateway>()("app/billing/CardGateway", {
  scoped: Effect.gen(function* () {
    const app = yield* AppConfig
    const config = (yield* BillingConfig).card
    let standIn: StripeStandIn | null = null
    let key = secret(config.secretKey)
    let webhookSecret = secret(config.webhookSecret)
    let base = config.apiBase
    if (key === undefined && config.standIn) {
      key = `sk_test_standin_${randomBytes(8).toString("hex")}`
      webhookSecret = `whsec_standin_${randomBytes(16).toString("hex")}`
      const s = new StripeStandIn({
        apiKey: key,
        webhookSecret,
        // our own pages, relative: they work whatever address the browser used
        pageBase: "/billing/test-payments",
        stateFile: join(app.dataDir, "test-payments", "card.json"),
        webhookUrl: app.port !== 0 ? `${app.publicBaseUrl}/webhooks/cardprocessor` : undefined
      })
      const url = yield* Effect.acquireRelease(Effect.promise(() => s.start()), () => Effect.promise(() => s.stop()))
      base = { host: "127.0.0.1", port: Number(new URL(url).port), protocol: "http" }
      standIn = s
      yield* Effect.logInfo("card payments: no STRIPE_SECRET_KEY, using the local stand-in (test payments)")
    }
    const stripe = key === undefined
      ? null
      : new Stripe(key, { ...(base ?? {}), telemetry: false, maxNetworkRetries: 2, timeout: 15_000, appInfo: { name: "whale-intelligence" } })

    const call = <A>(f: (s: Stripe) => Promise<A>): Effect.Effect<A, ProviderFailed | ProviderUnavailable> =>
      stripe === null
        ? Effect.fail(new ProviderUnavailable({ provider: "card" }))
        : Effect.tryPromise({ try: () => f(stripe), catch: failed })

    /** A price id for a plan: configured, or found/created at the provider under our lookup key. */
    const ensurePrice = (tier: PaidTier, interval: ProviderInterval, amountUsd: number, productName: string): Effect.Effect<string, ProviderFailed | ProviderUnavailable> => {
      const configured = config.prices[priceKey(tier, interval)]
      if (configured) return Effect.succeed(configured)
      const lk = lookupKey(tier, interval)
      return call(async (s) => {
        const found = await s.prices.list({ lookup_keys: [lk], active: true, limit: 1 })
        const hit = found.data.find((p) => p.unit_amount === Math.round(amountUsd * 100))
        if (hit) return hit.id
        const created = await s.prices.create(
          {
            currency: "usd", unit_amount: Math.round(amountUsd * 100), recurring: { interval }, lookup_key: lk, transfer_lookup_key: true,
            metadata: { tier, interval }, product_data: { name: productName, metadata: { tier } }
          },
          { idempotencyKey: `price-${lk}-${Math.round(amountUsd * 100)}` }
        )
        return created.id
      })
    }

    return {
      configured: stripe !== null,
      standIn,
      webhookSecret,
      toleranceSeconds: config.toleranceSeconds,
      prices: config.prices,
      /** Verifies a webhook's signature on the raw bytes and returns the event (throws the SDK's error otherwise). */
      constructEvent: (raw: Buffer, header: string, receivedAtMs: number) =>
        Stripe.webhooks.constructEvent(raw, header, webhookSecret ?? "", config.toleranceSeconds, undefined, receivedAtMs),

      createCustomer: (userId: number, email: string) =>
        call((s) => s.customers.create({ email, metadata: { user_id: String(userId) } }, { idempotencyKey: `customer-user-${userId}` })).pipe(
          Effect.map((c) => c.id)
        ),

      createCheckout: (input: CheckoutInput) => {
        const configured = config.prices[priceKey(input.tier, input.interval)]
        const line: Stripe.Checkout.SessionCreateParams.LineItem = configured
          ? { price: configured, quantity: 1 }
          : {
              quantity: 1,
              price_data: {
                currency: "usd",
                unit_amount: Math.round(input.amountUsd * 100),
                recurring: { interval: input.interval },
                product_data: { name: input.productName, metadata: { tier: input.tier } }
              }
            }
        const metadata = { user_id: String(input.userId), tier: input.tier, interval: fromProviderInterval(input.interval) }
        return call((s) =>
          s.checkout.sessions.create({
            mode: "subscription",
            customer: input.customer,
            client_reference_id: String(input.userId),
            line_items: [line],
            metadata,
            subscription_data: { metadata },
            success_url: input.successUrl,
            cancel_url: input.cancelUrl
          })
        ).pipe(Effect.map((session) => ({ id: session.id, url: session.url ?? "" })))
      },

      createPortal: (customer: string, returnUrl: string) =>
        call((s) => s.billingPortal.sessions.create({ customer, return_url: returnUrl })).pipe(Effect.map((p) => ({ id: p.id, url: p.url }))),

      /** A hosted confirmation page for moving a subscription to another price; nothing is charged until confirmed. */
      createPlanChangeConfirm: (customer: string, subscriptionId: string, itemId: string, tier: PaidTier, interval: ProviderInterval, amountUsd: number, productName: string, returnUrl: string) =>
        ensurePrice(tier, interval, amountUsd, productName).pipe(
          Effect.flatMap((price) =>
            call((s) =>
              s.billingPortal.sessions.create({
                customer,
                return_url: returnUrl,
                flow_data: {
                  type: "subscription_update_confirm",
                  subscription_update_confirm: { subscription: subscriptionId, items: [{ id: itemId, price, quantity: 1 }] },
                  after_completion: { type: "redirect", redirect: { return_url: returnUrl } }
                }
              })
            )
          ),
          Effect.map((p) => ({ id: p.id, url: p.url }))
        ),

      retrieveSubscription: (id: string) => call((s) => s.subscriptions.retrieve(id)),

      cancelAtPeriodEnd: (id: string, reason: string | undefined) =>
        call((s) =>
          s.subscriptions.update(id, {
            cancel_at_period_end: true,
            ...(reason ? { cancellation_details: { feedback: reason as Stripe.SubscriptionUpdateParams.CancellationDetails.Feedback } } : {})
          })
        ),

      /** Starts a subscription on the customer's saved payment method (a pending downgrade after expiry). */
      subscribe: (customer: string, userId: number, tier: PaidTier, interval: ProviderInterval, amountUsd: number, productName: string, idempotencyKey: string) =>
        ensurePrice(tier, interval, amountUsd, productName).pipe(
          Effect.flatMap((price) =>
            call((s) =>
              s.subscriptions.create(
                { customer, items: [{ price }], metadata: { user_id: String(userId), tier, interval: fromProviderInterval(interval) } },
                { idempotencyKey }
              )
            )
          )
        )
    } as const
  })
}) {}
