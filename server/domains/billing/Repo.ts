/** The billing domain's SQL (migration 0100, and the `subscriptions` table of 0021 it owns). */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { ProviderInterval } from "./Plans"
import type { Stored, SubFields, SubStatus } from "./Status"
import { spanned } from "../../platform/ops/Spans"

export interface SubRow {
  readonly id: number
  readonly user_id: number
  readonly provider: "card" | "crypto"
  readonly tier: string
  readonly status: SubStatus
  readonly interval: ProviderInterval
  readonly price_usd: string | number | null
  readonly current_period_end: Date | null
  readonly cancel_at_period_end: boolean
  readonly trial_end: Date | null
  readonly canceled_at: Date | null
  readonly ended_at: Date | null
  readonly cancel_reason: string | null
  readonly provider_customer_id: string | null
  readonly provider_subscription_id: string | null
  readonly provider_price_id: string | null
  readonly provider_invoice_id: string | null
  readonly provider_state_at: Date | null
  readonly pending_tier: string | null
  readonly pending_interval: ProviderInterval | null
  readonly updated_at: Date
}

export const storedOf = (r: SubRow): Stored => ({
  status: r.status,
  tier: r.tier,
  interval: r.interval,
  priceUsd: r.price_usd === null ? null : Number(r.price_usd),
  currentPeriodEnd: r.current_period_end,
  cancelAtPeriodEnd: r.cancel_at_period_end,
  trialEnd: r.trial_end,
  canceledAt: r.canceled_at,
  endedAt: r.ended_at,
  stateAt: r.provider_state_at
})

export interface Cause {
  readonly cause: "card_event" | "crypto_ipn" | "user" | "schedule"
  readonly ref: string
}

export class BillingRepo extends Effect.Service<BillingRepo>()("app/billing/BillingRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const die = Effect.orDie
    const one = <A>(rows: ReadonlyArray<A>) => rows[0]

    return spanned("BillingRepo", {
      customerOf: (userId: number) =>
        sql<{ provider_customer_id: string }>`SELECT provider_customer_id FROM billing_customers WHERE user_id = ${userId}`.pipe(
          Effect.map((r) => one(r)?.provider_customer_id), die),
      userOfCustomer: (customerId: string) =>
        sql<{ user_id: number }>`SELECT user_id FROM billing_customers WHERE provider_customer_id = ${customerId}`.pipe(
          Effect.map((r) => (r[0] ? Number(r[0].user_id) : undefined)), die),
      /** Keeps the first customer of a user; returns the one kept. */
      insertCustomer: (userId: number, customerId: string) =>
        sql<{ provider_customer_id: string }>`
          WITH ins AS (INSERT INTO billing_customers (user_id, provider_customer_id) VALUES (${userId}, ${customerId})
                       ON CONFLICT DO NOTHING RETURNING provider_customer_id)
          SELECT provider_customer_id FROM ins
          UNION ALL SELECT provider_customer_id FROM billing_customers WHERE user_id = ${userId}
          LIMIT 1`.pipe(Effect.map((r) => one(r)?.provider_customer_id), die),

      eventSeen: (provider: "card" | "crypto", eventId: string) =>
        sql<{ outcome: string }>`SELECT outcome FROM billing_events WHERE provider = ${provider} AND event_id = ${eventId}`.pipe(
          Effect.map((r) => one(r)?.outcome), die),
      /** Takes an event id; false when it was taken before (a duplicate). Call in the effect's transaction. */
      takeEvent: (provider: "card" | "crypto", eventId: string, type: string, objectId: string | null, providerAt: Date | null) =>
        sql<{ event_id: string }>`
          INSERT INTO billing_events (provider, event_id, type, object_id, outcome, provider_at)
          VALUES (${provider}, ${eventId}, ${type}, ${objectId}, 'received', ${providerAt})
          ON CONFLICT DO NOTHING RETURNING event_id`.pipe(Effect.map((r) => r.length === 1), die),
      setOutcome: (provider: "card" | "crypto", eventId: string, outcome: string) =>
        sql`UPDATE billing_events SET outcome = ${outcome} WHERE provider = ${provider} AND event_id = ${eventId}`.pipe(Effect.asVoid, die),

      byProviderId: (provider: "card" | "crypto", subscriptionId: string) =>
        sql<SubRow>`SELECT * FROM subscriptions WHERE provider = ${provider} AND provider_subscription_id = ${subscriptionId} FOR UPDATE`.pipe(
          Effect.map(one), die),
      byId: (id: number) => sql<SubRow>`SELECT * FROM subscriptions WHERE id = ${id} FOR UPDATE`.pipe(Effect.map(one), die),
      /** The user's subscription that matters now: one giving access first, then the newest. */
      currentOf: (userId: number, provider?: "card" | "crypto") =>
        sql<SubRow>`
          SELECT * FROM subscriptions WHERE user_id = ${userId} ${provider ? sql`AND provider = ${provider}` : sql``}
          ORDER BY (status IN ('active', 'trialing', 'past_due')) DESC, current_period_end DESC NULLS LAST, id DESC
          LIMIT 1`.pipe(Effect.map(one), die),
      allOf: (userId: number) => sql<SubRow>`SELECT * FROM subscriptions WHERE user_id = ${userId} ORDER BY id DESC`.pipe(die),

      insert: (row: { userId: number; provider: "card" | "crypto"; customer: string | null; subscriptionId: string; priceId: string | null; stateAt: Date | null } & SubFields) =>
        sql<SubRow>`
          INSERT INTO subscriptions (user_id, provider, tier, status, interval, price_usd, current_period_end, cancel_at_period_end,
                                     trial_end, canceled_at, ended_at, provider_customer_id, provider_subscription_id, provider_price_id,
                                     provider_state_at)
          VALUES (${row.userId}, ${row.provider}, ${row.tier}, ${row.status}, ${row.interval}, ${row.priceUsd}, ${row.currentPeriodEnd},
                  ${row.cancelAtPeriodEnd}, ${row.trialEnd}, ${row.canceledAt}, ${row.endedAt}, ${row.customer}, ${row.subscriptionId},
                  ${row.priceId}, ${row.stateAt})
          ON CONFLICT (provider, provider_subscription_id) DO NOTHING RETURNING *`.pipe(Effect.map(one), die),

      update: (id: number, f: SubFields, stateAt: Date | null, priceId: string | null) =>
        sql<SubRow>`
          UPDATE subscriptions SET tier = ${f.tier}, status = ${f.status}, interval = ${f.interval}, price_usd = ${f.priceUsd},
            current_period_end = ${f.currentPeriodEnd}, cancel_at_period_end = ${f.cancelAtPeriodEnd}, trial_end = ${f.trialEnd},
            canceled_at = ${f.canceledAt}, ended_at = ${f.endedAt},
            provider_state_at = COALESCE(${stateAt}, provider_state_at),
            provider_price_id = COALESCE(${priceId}, provider_price_id), updated_at = now()
          WHERE id = ${id} RETURNING *`.pipe(Effect.map((r) => r[0]!), die),

      setInvoice: (id: number, invoiceId: string, priceUsd: number | null) =>
        sql`UPDATE subscriptions SET provider_invoice_id = ${invoiceId}, price_usd = COALESCE(${priceUsd}, price_usd), updated_at = now()
            WHERE id = ${id}`.pipe(Effect.asVoid, die),
      setCancelReason: (id: number, reason: string | null) =>
        sql`UPDATE subscriptions SET cancel_reason = ${reason}, updated_at = now() WHERE id = ${id}`.pipe(Effect.asVoid, die),
      setPending: (id: number, tier: string | null, interval: ProviderInterval | null) =>
        sql`UPDATE subscriptions SET pending_tier = ${tier}, pending_interval = ${interval}, updated_at = now() WHERE id = ${id}`.pipe(Effect.asVoid, die),
      /** Pending downgrades whose period is over. */
      duePending: (now: Date) =>
        sql<SubRow>`SELECT * FROM subscriptions WHERE pending_tier IS NOT NULL AND current_period_end <= ${now} ORDER BY id LIMIT 50`.pipe(die),

      history: (subscriptionId: number | null, userId: number, cause: Cause, change: string, before: unknown, after: unknown, at: Date) =>
        sql`
          INSERT INTO subscription_history (subscription_id, user_id, cause, cause_ref, change, before, after, at)
          VALUES (${subscriptionId}, ${userId}, ${cause.cause}, ${cause.ref}, ${change},
                  ${before === undefined ? null : JSON.stringify(before)}::jsonb, ${after === undefined ? null : JSON.stringify(after)}::jsonb, ${at})`.pipe(
          Effect.asVoid, die),
      historyOf: (userId: number, limit: number) =>
        sql<{ id: number; subscription_id: number | null; cause: string; cause_ref: string | null; change: string; before: unknown; after: unknown; at: Date }>`
          SELECT id, subscription_id, cause, cause_ref, change, before, after, at FROM subscription_history
          WHERE user_id = ${userId} ORDER BY id DESC LIMIT ${limit}`.pipe(die),

      feedback: (userId: number, kind: "cancel_reason" | "flow_outcome", reason: string) =>
        sql`INSERT INTO cancel_feedback (user_id, kind, reason) VALUES (${userId}, ${kind}, ${reason})`.pipe(Effect.asVoid, die),

      /** Claims a once-only mail; false when it was claimed before. Call in the transaction that queues it. */
      claimMail: (kind: string, ref: string) =>
        sql<{ kind: string }>`INSERT INTO billing_mail_sent (kind, ref) VALUES (${kind}, ${ref}) ON CONFLICT DO NOTHING RETURNING kind`.pipe(
          Effect.map((r) => r.length === 1), die)
    } as const)
  })
}) {}
