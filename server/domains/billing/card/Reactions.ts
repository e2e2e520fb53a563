/**
 * One reaction per card event type we act on, behind an exhaustive table (`REACTIONS` must name every type in
 * `HANDLED_TYPES`; the compiler checks it). A reaction runs inside the transaction that records the event id and
 * returns the outcome recorded with it. Mail is queued in the outbox in the same transaction (sent after commit).
 */
import { Effect } from "effect"
import type { z } from "zod"
import type { Mailer } from "../../../platform/infra/Mailer"
import type { Ledger } from "../Ledger"
import { paymentFailedMail } from "../Mails"
import type { BillingRepo, Cause } from "../Repo"
import { BadPayload } from "../Errors"
import { invoiceSubscription, snapshotOf, StripeCheckoutSession, StripeInvoice, StripeSubscription } from "./Snapshot"

export const HANDLED_TYPES = [
  "checkout.session.completed",
  "customer.subscription.created",
  "customer.subscription.updated",
  "customer.subscription.deleted",
  "invoice.paid",
  "invoice.payment_failed"
] as const
export type HandledType = (typeof HANDLED_TYPES)[number]
export const isHandled = (t: string): t is HandledType => (HANDLED_TYPES as ReadonlyArray<string>).includes(t)

export interface CardEvent {
  readonly id: string
  readonly type: HandledType
  readonly created: Date
  readonly object: unknown
}

export interface ReactionContext {
  readonly repo: BillingRepo
  readonly ledger: Ledger
  readonly mailer: Mailer
  readonly prices: Readonly<Record<string, string>>
  readonly emailOf: (userId: number) => Effect.Effect<string | undefined>
  readonly billingUrl: string
  /** The subscription re-read from the provider before the transaction, when the event needed it. */
  readonly fetched: StripeSubscription | undefined
}

type Reaction = (event: CardEvent, ctx: ReactionContext) => Effect.Effect<string, BadPayload>

const parse = <A>(schema: z.ZodType<A>, u: unknown, what: string): Effect.Effect<A, BadPayload> => {
  const r = schema.safeParse(u)
  return r.success ? Effect.succeed(r.data) : Effect.fail(new BadPayload({ reason: `not a ${what}` }))
}

const causeOf = (event: CardEvent): Cause => ({ cause: "card_event", ref: `${event.type}:${event.id}` })

/** Applies a provider subscription object for the customer's user; the outcome names what happened. */
const applySubscription = (sub: StripeSubscription, event: CardEvent, ctx: ReactionContext) =>
  Effect.gen(function* () {
    const userId = yield* ctx.repo.userOfCustomer(sub.customer)
    if (userId === undefined) return "unknown_customer"
    const snap = snapshotOf(sub, event.created, ctx.prices)
    if (!snap.ok) return `unusable:${snap.reason}`
    const price = sub.items?.data[0]?.price?.id ?? sub.plan?.id ?? null
    const { outcome } = yield* ctx.ledger.applyCard({ userId, customer: sub.customer, subscriptionId: sub.id, priceId: price, snapshot: snap.snapshot, cause: causeOf(event) })
    return outcome
  })

const onSubscriptionEvent: Reaction = (event, ctx) =>
  parse(StripeSubscription, event.object, "subscription").pipe(Effect.flatMap((sub) => applySubscription(sub, event, ctx)))

const onCheckoutCompleted: Reaction = (event, ctx) =>
  Effect.gen(function* () {
    const session = yield* parse(StripeCheckoutSession, event.object, "checkout session")
    if (!session.customer || (yield* ctx.repo.userOfCustomer(session.customer)) === undefined) return "unknown_customer"
    if (session.mode !== "subscription" || !session.subscription) return "ignored_mode"
    if (!ctx.fetched) return "subscription_unavailable"
    return yield* applySubscription(ctx.fetched, event, ctx)
  })

const invoiceRow = (inv: StripeInvoice, event: CardEvent, ctx: ReactionContext) =>
  Effect.gen(function* () {
    const subId = invoiceSubscription(inv)
    if (!inv.customer || (yield* ctx.repo.userOfCustomer(inv.customer)) === undefined) return { outcome: "unknown_customer" } as const
    if (!subId) return { outcome: "no_subscription" } as const
    let row = yield* ctx.repo.byProviderId("card", subId)
    if (!row && ctx.fetched) {
      // The invoice came before the subscription's own events: start from the provider's current state.
      yield* applySubscription(ctx.fetched, event, ctx)
      row = yield* ctx.repo.byProviderId("card", subId)
    }
    return row ? ({ outcome: "ok", row } as const) : ({ outcome: "unknown_subscription" } as const)
  })

const onInvoicePaid: Reaction = (event, ctx) =>
  Effect.gen(function* () {
    const inv = yield* parse(StripeInvoice, event.object, "invoice")
    const found = yield* invoiceRow(inv, event, ctx)
    if (found.outcome !== "ok") return found.outcome
    const paid = typeof inv.amount_paid === "number" ? inv.amount_paid / 100 : null
    yield* ctx.repo.setInvoice(found.row.id, inv.id, paid)
    yield* ctx.ledger.note(found.row, found.row.user_id, causeOf(event), "invoice_paid", { invoice: inv.id, amount_usd: paid }, event.created)
    return "applied"
  })

const onPaymentFailed: Reaction = (event, ctx) =>
  Effect.gen(function* () {
    const inv = yield* parse(StripeInvoice, event.object, "invoice")
    const found = yield* invoiceRow(inv, event, ctx)
    if (found.outcome !== "ok") return found.outcome
    yield* ctx.ledger.note(found.row, found.row.user_id, causeOf(event), "payment_failed", { invoice: inv.id }, event.created)
    if (yield* ctx.repo.claimMail("payment_failed", inv.id)) {
      const to = yield* ctx.emailOf(found.row.user_id)
      if (to) yield* ctx.mailer.enqueue({ ...paymentFailedMail(found.row.tier, ctx.billingUrl), to, kind: "payment_failed", userId: found.row.user_id })
    }
    return "applied"
  })

export const REACTIONS: { readonly [K in HandledType]: Reaction } = {
  "checkout.session.completed": onCheckoutCompleted,
  "customer.subscription.created": onSubscriptionEvent,
  "customer.subscription.updated": onSubscriptionEvent,
  "customer.subscription.deleted": onSubscriptionEvent,
  "invoice.paid": onInvoicePaid,
  "invoice.payment_failed": onPaymentFailed
}

/** The subscription id an event may need re-read from the provider before its transaction. */
export const subscriptionToFetch = (type: HandledType, object: unknown): string | undefined => {
  if (type === "checkout.session.completed") {
    const s = StripeCheckoutSession.safeParse(object)
    return s.success && s.data.mode === "subscription" ? (s.data.subscription ?? undefined) : undefined
  }
  if (type === "invoice.paid" || type === "invoice.payment_failed") {
    const inv = StripeInvoice.safeParse(object)
    return inv.success ? invoiceSubscription(inv.data) : undefined
  }
  return undefined
}
