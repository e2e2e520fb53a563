/**
 * Writes to subscriptions, always with a history row naming the cause. Every method joins the caller's
 * transaction (webhook effects run inside the transaction that records their event id) and locks the row it
 * changes, so concurrent deliveries for one subscription apply one after the other.
 */
import { Effect } from "effect"
import { BillingRepo, storedOf, type Cause, type SubRow } from "./Repo"
import { diff, extendByPayment, reconcile, type Snapshot, type SubFields } from "./Status"
import type { ProviderInterval } from "./Plans"

/** What applying a provider state did (also the webhook's recorded outcome). */
export type ApplyOutcome = "applied" | "created" | "stale" | "unchanged" | "terminal" | "illegal"

const fieldsOf = (f: SubFields, keys: ReadonlyArray<keyof SubFields>) => Object.fromEntries(keys.map((k) => [k, f[k]]))

export class Ledger extends Effect.Service<Ledger>()("app/billing/Ledger", {
  dependencies: [BillingRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* BillingRepo

    /** Applies a card subscription's state (from an event or an API answer) under the status machine. */
    const applyCard = Effect.fn("Ledger.applyCard")(function* (input: {
      readonly userId: number
      readonly customer: string
      readonly subscriptionId: string
      readonly priceId: string | null
      readonly snapshot: Snapshot
      readonly cause: Cause
    }) {
      const { snapshot, cause } = input
      const { at: _at, ...fields } = snapshot
      let row = yield* repo.byProviderId("card", input.subscriptionId)
      if (!row) {
        const inserted = yield* repo.insert({
          ...fields, userId: input.userId, provider: "card", customer: input.customer, subscriptionId: input.subscriptionId,
          priceId: input.priceId, stateAt: snapshot.at
        })
        if (inserted) {
          yield* repo.history(inserted.id, input.userId, cause, "created", null, fields, snapshot.at)
          return { outcome: "created" as ApplyOutcome, row: inserted }
        }
        // Another delivery inserted it meanwhile: lock it and reconcile.
        row = (yield* repo.byProviderId("card", input.subscriptionId))!
      }
      const verdict = reconcile(storedOf(row), snapshot)
      if (verdict.kind !== "apply") return { outcome: verdict.kind as ApplyOutcome, row }
      const updated = yield* repo.update(row.id, verdict.next, snapshot.at, input.priceId)
      yield* repo.history(row.id, row.user_id, cause, verdict.changes.join(","), fieldsOf(storedOf(row), verdict.changes), fieldsOf(verdict.next, verdict.changes), snapshot.at)
      return { outcome: "applied" as ApplyOutcome, row: updated }
    })

    /** A finished crypto payment: activates or extends the user's crypto subscription by one period. */
    const extendCrypto = Effect.fn("Ledger.extendCrypto")(function* (input: {
      readonly userId: number
      readonly tier: string
      readonly interval: ProviderInterval
      readonly priceUsd: number
      readonly paidAt: Date
      readonly paymentId: string
      readonly cause: Cause
    }) {
      const key = `crypto:user:${input.userId}`
      const row = yield* repo.byProviderId("crypto", key)
      const next = extendByPayment(row ? storedOf(row) : undefined, input)
      if (!row) {
        const inserted = yield* repo.insert({ ...next, userId: input.userId, provider: "crypto", customer: null, subscriptionId: key, priceId: null, stateAt: input.paidAt })
        if (inserted) {
          yield* repo.setInvoice(inserted.id, input.paymentId, input.priceUsd)
          yield* repo.history(inserted.id, input.userId, input.cause, "created", null, next, input.paidAt)
          return inserted
        }
        return yield* Effect.die(new Error("concurrent crypto activation for one user"))
      }
      const changes = diff(storedOf(row), next)
      const updated = yield* repo.update(row.id, next, input.paidAt, null)
      yield* repo.setInvoice(row.id, input.paymentId, input.priceUsd)
      yield* repo.setPending(row.id, null, null)
      yield* repo.history(row.id, row.user_id, input.cause, `extended:${changes.join(",")}`, fieldsOf(storedOf(row), changes), fieldsOf(next, changes), input.paidAt)
      return updated
    })

    /** A change we make ourselves (a user's action, the scheduler): the fields, with their cause. */
    const change = Effect.fn("Ledger.change")(function* (row: SubRow, next: SubFields, cause: Cause, at: Date, stateAt: Date | null) {
      const changes = diff(storedOf(row), next)
      if (changes.length === 0) return row
      const updated = yield* repo.update(row.id, next, stateAt, null)
      yield* repo.history(row.id, row.user_id, cause, changes.join(","), fieldsOf(storedOf(row), changes), fieldsOf(next, changes), at)
      return updated
    })

    /** Records a change that is not a field of the subscription (reason, pending change, invoice, mail). */
    const note = (row: SubRow | null, userId: number, cause: Cause, what: string, detail: unknown, at: Date) =>
      repo.history(row?.id ?? null, userId, cause, what, null, detail, at)

    return { applyCard, extendCrypto, change, note } as const
  })
}) {}
