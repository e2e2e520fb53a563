/**
 * Reading the card provider's objects (pure). Both shapes are read: API versions before 2025-03 carry
 * `current_period_end` and `plan` on the subscription and `subscription` on the invoice; newer ones carry them on
 * the subscription items and under `invoice.parent.subscription_details`.
 */
import { z } from "zod"
import { planOfPrice, PaidTier, type ProviderInterval } from "../Plans"
import { isSubStatus, type Snapshot } from "../Status"

const Id = z.union([z.string(), z.object({ id: z.string() }).transform((o) => o.id)])
const Metadata = z.record(z.string(), z.string()).nullish()
const Price = z.object({
  id: z.string(),
  unit_amount: z.number().nullish(),
  lookup_key: z.string().nullish(),
  metadata: Metadata,
  recurring: z.object({ interval: z.string() }).nullish()
}).passthrough()

export const StripeSubscription = z.object({
  id: z.string(),
  object: z.literal("subscription"),
  customer: Id,
  status: z.string(),
  cancel_at_period_end: z.boolean().nullish(),
  canceled_at: z.number().nullish(),
  ended_at: z.number().nullish(),
  trial_end: z.number().nullish(),
  current_period_end: z.number().nullish(),
  metadata: Metadata,
  plan: Price.nullish(),
  items: z.object({
    data: z.array(z.object({ id: z.string(), price: Price.nullish(), plan: Price.nullish(), current_period_end: z.number().nullish() }).passthrough())
  }).passthrough().nullish(),
  cancellation_details: z.object({ feedback: z.string().nullish(), reason: z.string().nullish() }).passthrough().nullish()
}).passthrough()
export type StripeSubscription = z.infer<typeof StripeSubscription>

export const StripeCheckoutSession = z.object({
  id: z.string(),
  object: z.literal("checkout.session"),
  mode: z.string().nullish(),
  customer: Id.nullish(),
  subscription: Id.nullish(),
  client_reference_id: z.string().nullish(),
  metadata: Metadata
}).passthrough()

export const StripeInvoice = z.object({
  id: z.string(),
  object: z.literal("invoice"),
  customer: Id.nullish(),
  subscription: Id.nullish(),
  parent: z.object({ subscription_details: z.object({ subscription: Id.nullish() }).passthrough().nullish() }).passthrough().nullish(),
  amount_paid: z.number().nullish(),
  created: z.number().nullish(),
  lines: z.object({ data: z.array(z.object({ period: z.object({ end: z.number() }).nullish() }).passthrough()) }).passthrough().nullish()
}).passthrough()
export type StripeInvoice = z.infer<typeof StripeInvoice>

export const invoiceSubscription = (inv: StripeInvoice): string | undefined =>
  inv.subscription ?? inv.parent?.subscription_details?.subscription ?? undefined

const date = (s: number | null | undefined) => (s === null || s === undefined ? null : new Date(s * 1000))

/** The first item's price (new shape) or the subscription's plan (old shape). */
export const priceOfSubscription = (sub: StripeSubscription) => sub.items?.data[0]?.price ?? sub.items?.data[0]?.plan ?? sub.plan ?? null

export type SnapshotResult =
  | { readonly ok: true; readonly snapshot: Snapshot; readonly itemId: string | null; readonly userIdHint: number | null }
  | { readonly ok: false; readonly reason: string }

/** Our view of a provider subscription at the time `at`. */
export const snapshotOf = (sub: StripeSubscription, at: Date, prices: Readonly<Record<string, string>>): SnapshotResult => {
  if (!isSubStatus(sub.status)) return { ok: false, reason: `unknown status ${sub.status}` }
  const price = priceOfSubscription(sub)
  const interval = price?.recurring?.interval
  if (interval !== "month" && interval !== "year") return { ok: false, reason: "subscription without a monthly or yearly price" }
  const tier = planOfPrice(price, prices)?.tier ?? PaidTier.safeParse(sub.metadata?.tier).data
  if (!tier) return { ok: false, reason: "price names no tier of ours" }
  const periodEnd = sub.items?.data[0]?.current_period_end ?? sub.current_period_end
  const userId = Number(sub.metadata?.user_id)
  return {
    ok: true,
    itemId: sub.items?.data[0]?.id ?? null,
    userIdHint: Number.isSafeInteger(userId) && userId > 0 ? userId : null,
    snapshot: {
      at,
      status: sub.status,
      tier,
      interval: interval as ProviderInterval,
      priceUsd: typeof price?.unit_amount === "number" ? price.unit_amount / 100 : null,
      currentPeriodEnd: date(periodEnd),
      cancelAtPeriodEnd: sub.cancel_at_period_end ?? false,
      trialEnd: date(sub.trial_end),
      canceledAt: date(sub.canceled_at),
      endedAt: date(sub.ended_at)
    }
  }
}
