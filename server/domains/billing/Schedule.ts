/**
 * What time does in billing (run by the drip-mailer actor): trial-ending reminders (TRIAL_REMINDER_HOURS before
 * the end, once per trial, not to paying users) and pending downgrades whose period is over (card: a new
 * subscription at the lower tier on the saved payment method, idempotent per pending change; crypto: a mail
 * inviting the user to pay the lower tier, as crypto never charges by itself).
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { AppConfig } from "../../platform/Config"
import { Mailer } from "../../platform/infra/Mailer"
import { Accounts } from "../accounts/Accounts"
import { Entitlements } from "../accounts/Entitlements"
import { Billing } from "./Billing"
import { CardGateway } from "./card/CardGateway"
import { BillingConfig } from "./Config"
import { Ledger } from "./Ledger"
import { downgradeMail, trialEndingMail } from "./Mails"
import { priceOf, type PaidTier } from "./Plans"
import { BillingRepo } from "./Repo"
import { inTransaction } from "../../platform/infra/Sql"

const LIVE = new Set(["active", "trialing", "past_due"])

export class BillingSchedule extends Effect.Service<BillingSchedule>()("app/billing/BillingSchedule", {
  dependencies: [BillingRepo.Default, Ledger.Default, Mailer.Default, Billing.Default, CardGateway.Default, Entitlements.Default, Accounts.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* BillingRepo
    const ledger = yield* Ledger
    const mailer = yield* Mailer
    const billing = yield* Billing
    const card = yield* CardGateway
    const entitlements = yield* Entitlements
    const accounts = yield* Accounts
    const billingUrl = `${(yield* AppConfig).publicBaseUrl}/billing`
    const settings = (yield* BillingConfig).drip
    const transact = <A, E>(e: Effect.Effect<A, E>) => inTransaction(sql, e)
    const emailOf = (userId: number) => accounts.me(userId).pipe(Effect.map((m) => m.email as string | undefined), Effect.orElseSucceed(() => undefined))

    const trialReminders = Effect.fn("BillingSchedule.trialReminders")(function* () {
      const now = new Date(yield* Clock.currentTimeMillis)
      const trials = yield* entitlements.trialsEnding(now, new Date(now.getTime() + settings.trialReminderHours * 3_600_000))
      let sent = 0
      for (const trial of trials) {
        const paying = yield* repo.currentOf(trial.user_id)
        if (paying && LIVE.has(paying.status)) continue
        const to = yield* emailOf(trial.user_id)
        if (!to) continue
        const queued = yield* transact(Effect.gen(function* () {
          if (!(yield* repo.claimMail("trial_reminder", `${trial.user_id}:${new Date(trial.ends_at).toISOString()}`))) return false
          yield* mailer.enqueue({ ...trialEndingMail(trial.tier, new Date(trial.ends_at), billingUrl), to, kind: "trial_reminder", userId: trial.user_id })
          return true
        }))
        if (queued) sent++
      }
      return sent
    })

    const pendingChanges = Effect.fn("BillingSchedule.pendingChanges")(function* () {
      const now = new Date(yield* Clock.currentTimeMillis)
      const due = yield* repo.duePending(now)
      for (const row of due) {
        const tier = row.pending_tier as PaidTier
        const interval = row.pending_interval ?? row.interval
        const cause = { cause: "schedule" as const, ref: `pending_change:${row.id}` }
        // The user subscribed again meanwhile: the pending change is moot (never a second subscription).
        const current = yield* repo.currentOf(row.user_id)
        if (current && current.id !== row.id && LIVE.has(current.status)) {
          yield* transact(Effect.all([repo.setPending(row.id, null, null), ledger.note(row, row.user_id, cause, "pending_change_dropped", { tier, reason: "subscribed_again" }, now)]))
          continue
        }
        if (row.provider === "card" && row.provider_customer_id) {
          const prices = yield* billing.tierPrices(tier)
          const result = yield* card.subscribe(row.provider_customer_id, row.user_id, tier, interval, priceOf(prices, interval), billing.productName(prices.display_name, interval), `pending-change-${row.id}`).pipe(Effect.either)
          if (result._tag === "Left") {
            yield* Effect.logWarning("pending downgrade: the provider refused; retried on the next round").pipe(Effect.annotateLogs({ subscription: row.id }))
            continue
          }
          yield* transact(Effect.all([repo.setPending(row.id, null, null), ledger.note(row, row.user_id, cause, "pending_change_applied", { tier, interval, provider_subscription: result.right.id }, now)]))
        } else {
          const to = yield* emailOf(row.user_id)
          yield* transact(Effect.gen(function* () {
            yield* repo.setPending(row.id, null, null)
            yield* ledger.note(row, row.user_id, cause, "pending_change_due", { tier, interval }, now)
            if (to && (yield* repo.claimMail("pending_change", String(row.id)))) {
              yield* mailer.enqueue({ ...downgradeMail(row.tier, tier, row.current_period_end, billingUrl), to, kind: "pending_change", userId: row.user_id })
            }
          }))
        }
      }
      return due.length
    })

    return { trialReminders, pendingChanges } as const
  })
}) {}
