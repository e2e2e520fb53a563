/**
 * The billing domain's service: what a signed-in user does with their subscription. Card actions go through the
 * provider (its hosted pages for anything that charges); the provider's webhooks then sync our rows. Cancel and
 * downgrade keep access to the period end. Reason capture and mails are best-effort: they never block or reverse
 * the cancellation itself.
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { AppConfig } from "../../platform/Config"
import { Mailer } from "../../platform/infra/Mailer"
import { Pricing } from "../pricing/Pricing"
import { Entitlements } from "../accounts/Entitlements"
import type { SubscriptionView } from "../../../schema/http/billing"
import { CardGateway } from "./card/CardGateway"
import { StripeSubscription, snapshotOf } from "./card/Snapshot"
import { NoCustomer, NoSubscription, NotApplicable } from "./Errors"
import { Ledger } from "./Ledger"
import { cancellationMail, downgradeMail } from "./Mails"
import { CANCEL_REASONS, fromProviderInterval, priceOf, toProviderInterval, type BillingInterval, type PaidTier, type ProviderInterval, PAID_TIERS } from "./Plans"
import { BillingRepo, type Cause, type SubRow } from "./Repo"
import { inTransaction } from "../../platform/infra/Sql"

export interface BillingUser {
  readonly id: number
  readonly email: string
}

const LIVE = new Set(["active", "trialing", "past_due"])
const userCause = (action: string, userId: number): Cause => ({ cause: "user", ref: `${action}:user:${userId}` })

export class Billing extends Effect.Service<Billing>()("app/billing/Billing", {
  dependencies: [BillingRepo.Default, Ledger.Default, Mailer.Default, CardGateway.Default, Pricing.Default, Entitlements.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* BillingRepo
    const ledger = yield* Ledger
    const mailer = yield* Mailer
    const card = yield* CardGateway
    const pricing = yield* Pricing
    const entitlements = yield* Entitlements
    const config = yield* AppConfig
    const base = config.publicBaseUrl
    const nowDate = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))
    const transact = <A, E>(e: Effect.Effect<A, E>) => inTransaction(sql, e)

    const tierPrices = (tier: PaidTier) =>
      pricing.current().pipe(
        Effect.orDie,
        Effect.map((doc) => doc.body.tiers.find((t) => t.name === tier)),
        Effect.flatMap((t) => (t ? Effect.succeed(t) : Effect.fail(new NotApplicable({ code: "tier_unavailable", message: `The ${tier} tier is not on sale` }))))
      )
    const productName = (displayName: string, interval: ProviderInterval) => `Whale Intelligence ${displayName} (${interval === "month" ? "monthly" : "yearly"})`

    /** The user's card customer, created once (the provider call is idempotent per user too). */
    const customerOf = (user: BillingUser) =>
      Effect.gen(function* () {
        const existing = yield* repo.customerOf(user.id)
        if (existing) return existing
        const created = yield* card.createCustomer(user.id, user.email)
        return (yield* repo.insertCustomer(user.id, created)) ?? created
      })

    /** Applies the provider's answer at once (its webhook follows and finds the same state). */
    const applyAnswer = (userId: number, customer: string, raw: unknown, cause: Cause) =>
      Effect.gen(function* () {
        const sub = StripeSubscription.safeParse(raw)
        if (!sub.success) return
        const snap = snapshotOf(sub.data, new Date(Math.floor((yield* Clock.currentTimeMillis) / 1000) * 1000), card.prices)
        if (!snap.ok) return
        yield* transact(ledger.applyCard({ userId, customer, subscriptionId: sub.data.id, priceId: sub.data.items?.data[0]?.price?.id ?? null, snapshot: snap.snapshot, cause }))
      })

    const liveCard = (userId: number) =>
      repo.currentOf(userId, "card").pipe(Effect.map((r) => (r && LIVE.has(r.status) ? r : undefined)))

    const checkout = Effect.fn("Billing.checkout")(function* (user: BillingUser, tier: PaidTier, interval: BillingInterval) {
      const running = yield* liveCard(user.id)
      if (running && !running.cancel_at_period_end) {
        return yield* Effect.fail(new NotApplicable({ code: "already_subscribed", message: "You already have a running subscription; change it from the billing portal" }))
      }
      const prices = yield* tierPrices(tier)
      const pi = toProviderInterval(interval)
      const customer = yield* customerOf(user)
      return yield* card.createCheckout({
        customer, userId: user.id, tier, interval: pi, amountUsd: priceOf(prices, pi), productName: productName(prices.display_name, pi),
        successUrl: `${base}/billing?checkout=success&session_id={CHECKOUT_SESSION_ID}`, cancelUrl: `${base}/billing?checkout=cancelled`
      })
    })

    const portal = Effect.fn("Billing.portal")(function* (userId: number) {
      const customer = yield* repo.customerOf(userId)
      if (!customer) return yield* Effect.fail(new NoCustomer())
      return yield* card.createPortal(customer, `${base}/billing`)
    })

    const switchYearly = Effect.fn("Billing.switchYearly")(function* (userId: number) {
      const row = yield* liveCard(userId)
      if (!row || !row.provider_subscription_id || !row.provider_customer_id) return yield* Effect.fail(new NoSubscription({ what: "a running card subscription" }))
      if (row.interval === "year") return yield* Effect.fail(new NotApplicable({ code: "already_yearly", message: "Your subscription is yearly already" }))
      if (row.cancel_at_period_end) return yield* Effect.fail(new NotApplicable({ code: "cancel_pending", message: "Your subscription is cancelled; subscribe again instead" }))
      const tier = row.tier as PaidTier
      const prices = yield* tierPrices(tier)
      const sub = StripeSubscription.parse(yield* card.retrieveSubscription(row.provider_subscription_id))
      const itemId = sub.items?.data[0]?.id
      if (!itemId) return yield* Effect.fail(new NoSubscription({ what: "a subscription item" }))
      return yield* card.createPlanChangeConfirm(row.provider_customer_id, row.provider_subscription_id, itemId, tier, "year", priceOf(prices, "year"), productName(prices.display_name, "year"), `${base}/billing?switched=yearly`)
    })

    /** Cancel at period end. Card: through the provider; crypto: no renewal anyway, marked here. */
    const cancelRow = (user: BillingUser, row: SubRow, reason: string | undefined, action: string) =>
      Effect.gen(function* () {
        const now = yield* nowDate
        if (row.provider === "card" && row.provider_subscription_id && row.provider_customer_id) {
          const answer = yield* card.cancelAtPeriodEnd(row.provider_subscription_id, reason)
          yield* applyAnswer(user.id, row.provider_customer_id, answer, userCause(action, user.id))
        } else {
          const locked = (yield* transact(repo.byId(row.id)))!
          yield* transact(ledger.change(locked, { ...fieldsOf(locked), cancelAtPeriodEnd: true, canceledAt: now }, userCause(action, user.id), now, null))
        }
        return (yield* transact(repo.byId(row.id)))!
      })

    const bestEffort = (name: string, e: Effect.Effect<unknown, unknown>) =>
      e.pipe(Effect.asVoid, Effect.catchAllCause((cause) => Effect.logWarning(`${name} failed (the cancellation stands)`, cause)))

    const cancel = Effect.fn("Billing.cancel")(function* (user: BillingUser, reason: string | undefined) {
      const current = yield* repo.currentOf(user.id)
      if (!current || !LIVE.has(current.status)) return yield* Effect.fail(new NoSubscription({ what: "a running subscription" }))
      const row = current.cancel_at_period_end ? current : yield* cancelRow(user, current, reason, "cancel")
      const now = yield* nowDate
      yield* bestEffort("cancel reason", transact(Effect.gen(function* () {
        if (reason) {
          yield* repo.setCancelReason(row.id, reason)
          yield* repo.feedback(user.id, "cancel_reason", reason)
        }
        yield* repo.setPending(row.id, null, null)
        yield* ledger.note(row, user.id, userCause("cancel", user.id), "cancel_requested", { reason: reason ?? null }, now)
      })))
      yield* bestEffort("cancellation mail", transact(Effect.gen(function* () {
        if (yield* repo.claimMail("cancellation", `${row.id}:${row.current_period_end?.toISOString() ?? "-"}`)) {
          yield* mailer.enqueue({ ...cancellationMail(row.tier, row.current_period_end, `${base}/billing`), to: user.email, kind: "cancellation", userId: user.id })
        }
      })))
      return (yield* transact(repo.byId(row.id)))!
    })

    const cancelFeedback = Effect.fn("Billing.cancelFeedback")(function* (userId: number, reason: "downgraded" | "stayed") {
      yield* repo.feedback(userId, "flow_outcome", reason)
    })

    const downgrade = Effect.fn("Billing.downgrade")(function* (user: BillingUser, tier: PaidTier) {
      const current = yield* repo.currentOf(user.id)
      if (!current || !LIVE.has(current.status)) return yield* Effect.fail(new NoSubscription({ what: "a running subscription" }))
      if (PAID_TIERS.indexOf(tier) >= PAID_TIERS.indexOf(current.tier as PaidTier)) {
        return yield* Effect.fail(new NotApplicable({ code: "not_a_downgrade", message: `${tier} is not below your ${current.tier} tier` }))
      }
      const row = current.cancel_at_period_end ? current : yield* cancelRow(user, current, undefined, "downgrade")
      const now = yield* nowDate
      yield* transact(Effect.gen(function* () {
        yield* repo.setPending(row.id, tier, row.interval)
        yield* ledger.note(row, user.id, userCause("downgrade", user.id), "pending_change", { tier, interval: row.interval, effective_at: row.current_period_end }, now)
      }))
      yield* bestEffort("downgrade mail", mailer.enqueue({ ...downgradeMail(row.tier, tier, row.current_period_end, `${base}/billing`), to: user.email, kind: "downgrade", userId: user.id }))
      return (yield* transact(repo.byId(row.id)))!
    })

    const view = (r: SubRow): SubscriptionView => ({
      provider: r.provider,
      tier: r.tier,
      interval: fromProviderInterval(r.interval),
      price_usd: r.price_usd === null ? null : Number(r.price_usd),
      status: r.status,
      current_period_end: r.current_period_end?.toISOString() ?? null,
      cancel_at_period_end: r.cancel_at_period_end,
      cancel_reason: r.cancel_reason,
      pending_change: r.pending_tier
        ? { tier: r.pending_tier, interval: fromProviderInterval(r.pending_interval ?? r.interval), effective_at: r.current_period_end?.toISOString() ?? null }
        : null
    })

    /** What the billing page shows. */
    const overview = Effect.fn("Billing.overview")(function* (userId: number) {
      const tier = yield* entitlements.tierOf(userId)
      const row = yield* repo.currentOf(userId)
      const customer = yield* repo.customerOf(userId)
      const doc = yield* pricing.current().pipe(Effect.orDie)
      return {
        tier,
        subscription: row ? view(row) : null,
        has_card_customer: customer !== undefined,
        card_available: card.configured,
        card_test: card.standIn !== null,
        cancel_reasons: [...CANCEL_REASONS],
        plans: doc.body.tiers.filter((t) => (PAID_TIERS as ReadonlyArray<string>).includes(t.name)).map((t) => ({
          tier: t.name as PaidTier, display_name: t.display_name, monthly_usd: Number(t.monthly_usd), yearly_usd: priceOf(t, "year")
        }))
      }
    })

    return { overview, view, checkout, portal, switchYearly, cancel, cancelFeedback, downgrade, customerOf, tierPrices, productName } as const
  })
}) {}

const fieldsOf = (r: SubRow) => ({
  status: r.status, tier: r.tier, interval: r.interval, priceUsd: r.price_usd === null ? null : Number(r.price_usd),
  currentPeriodEnd: r.current_period_end, cancelAtPeriodEnd: r.cancel_at_period_end, trialEnd: r.trial_end, canceledAt: r.canceled_at, endedAt: r.ended_at
})
