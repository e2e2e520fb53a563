/**
 * `POST /webhooks/cardprocessor`: the signature (`Stripe-Signature`) is verified by the official SDK on the raw
 * bytes, with a tolerance of STRIPE_WEBHOOK_TOLERANCE_SECONDS (300) either side of our clock; the event id is
 * recorded under a unique key in the same transaction as its effect. Answers:
 *  - bad signature, stale or future timestamp, tampered body, not an event → 400, nothing recorded;
 *  - a duplicate → 200 `duplicate`, no second effect;
 *  - an unknown type, an unknown customer, an older state than the stored one → 200, recorded with that outcome;
 *  - the provider unreachable while re-reading a subscription → 503 (the provider retries later).
 */
import { SqlClient } from "@effect/sql"
import { Clock, Effect } from "effect"
import { z } from "zod"
import { AppConfig } from "../../../platform/Config"
import { Mailer } from "../../../platform/infra/Mailer"
import { Accounts } from "../../accounts/Accounts"
import { BadPayload, BadSignature, RetryLater } from "../Errors"
import { Ledger } from "../Ledger"
import { BillingRepo } from "../Repo"
import { CardGateway } from "./CardGateway"
import { isHandled, REACTIONS, subscriptionToFetch } from "./Reactions"
import { StripeSubscription } from "./Snapshot"
import { inTransaction } from "../../../platform/infra/Sql"

const Envelope = z.object({
  id: z.string().min(1).max(255),
  object: z.literal("event"),
  type: z.string().min(1).max(255),
  created: z.number().int(),
  data: z.object({ object: z.record(z.string(), z.unknown()) })
})

export interface WebhookResult {
  readonly received: true
  readonly event_id: string
  readonly outcome: string
  readonly duplicate: boolean
}

export class CardWebhook extends Effect.Service<CardWebhook>()("app/billing/CardWebhook", {
  dependencies: [BillingRepo.Default, Ledger.Default, Mailer.Default, CardGateway.Default, Accounts.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* BillingRepo
    const ledger = yield* Ledger
    const mailer = yield* Mailer
    const gateway = yield* CardGateway
    const accounts = yield* Accounts
    const config = yield* AppConfig
    const billingUrl = `${config.publicBaseUrl}/billing`

    const emailOf = (userId: number) => accounts.me(userId).pipe(Effect.map((m) => m.email as string | undefined), Effect.orElseSucceed(() => undefined))

    const verify = (raw: Buffer, header: string | undefined, nowMs: number) =>
      Effect.gen(function* () {
        if (!gateway.webhookSecret) return yield* Effect.fail(new BadSignature({ reason: "no webhook secret configured" }))
        if (!header) return yield* Effect.fail(new BadSignature({ reason: "missing Stripe-Signature header" }))
        const t = Number(/(?:^|,)t=(\d+)/.exec(header)?.[1])
        if (Number.isFinite(t) && t * 1000 - nowMs > gateway.toleranceSeconds * 1000) {
          return yield* Effect.fail(new BadSignature({ reason: "timestamp in the future" }))
        }
        const event = yield* Effect.try({
          try: () => gateway.constructEvent(raw, header, nowMs),
          catch: (e) => new BadSignature({ reason: e instanceof Error ? e.message.split("\n")[0]!.slice(0, 200) : "invalid signature" })
        })
        const parsed = Envelope.safeParse(event)
        if (!parsed.success) return yield* Effect.fail(new BadPayload({ reason: "not an event envelope" }))
        return parsed.data
      })

    const receive = Effect.fn("CardWebhook.receive")(function* (raw: Buffer, header: string | undefined) {
      const now = yield* Clock.currentTimeMillis
      const event = yield* verify(raw, header, now)
      const log = Effect.annotateLogs({ event_id: event.id, type: event.type })
      const seen = yield* repo.eventSeen("card", event.id)
      if (seen !== undefined) return { received: true, event_id: event.id, outcome: seen, duplicate: true } satisfies WebhookResult
      const objectId = typeof event.data.object.id === "string" ? event.data.object.id : null
      const created = new Date(event.created * 1000)

      if (!isHandled(event.type)) {
        const taken = yield* sql.withTransaction(
          repo.takeEvent("card", event.id, event.type, objectId, created).pipe(Effect.tap((t) => (t ? repo.setOutcome("card", event.id, "ignored_type") : Effect.void)))
        ).pipe(Effect.orDie)
        yield* Effect.logDebug("card event ignored (type not handled)").pipe(log)
        return { received: true, event_id: event.id, outcome: "ignored_type", duplicate: !taken } satisfies WebhookResult
      }
      const type = event.type

      // Re-read the subscription an event only names (outside the transaction: no connection held over HTTP).
      const toFetch = subscriptionToFetch(type, event.data.object)
      const known = toFetch ? yield* repo.byProviderId("card", toFetch) : undefined
      let fetched: StripeSubscription | undefined
      if (toFetch && (type === "checkout.session.completed" || !known)) {
        const customer = (event.data.object as { customer?: unknown }).customer
        const customerKnown = typeof customer === "string" && (yield* repo.userOfCustomer(customer)) !== undefined
        if (customerKnown) {
          // The provider unreachable: 503, so it delivers the event again.
          const raw = yield* gateway.retrieveSubscription(toFetch).pipe(Effect.mapError(() => new RetryLater({ provider: "card" })))
          const sub = StripeSubscription.safeParse(raw)
          fetched = sub.success ? sub.data : undefined
        }
      }

      const result = yield* inTransaction(sql,
        Effect.gen(function* () {
          if (!(yield* repo.takeEvent("card", event.id, type, objectId, created))) return { outcome: "duplicate", duplicate: true }
          const outcome = yield* REACTIONS[type]({ id: event.id, type, created, object: event.data.object }, {
            repo, ledger, mailer, prices: gateway.prices, emailOf, billingUrl, fetched
          })
          yield* repo.setOutcome("card", event.id, outcome)
          return { outcome, duplicate: false }
        })
      )
      yield* Effect.logInfo(`card event ${result.outcome}`).pipe(log)
      return { received: true, event_id: event.id, ...result } satisfies WebhookResult
    })

    return { receive } as const
  })
}) {}
