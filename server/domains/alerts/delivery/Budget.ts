/**
 * The per-user budget (ALERTS_BUDGET_PER_HOUR per ALERTS_BUDGET_WINDOW_SECONDS): a round's first attempts count
 * against their users' windows, one statement for all of them; the overflow is marked `digested` (never dropped
 * silently) and, once its window has ended, becomes ONE digest per user and window (the notifier's retrier sends it).
 */
import { Effect } from "effect"
import { AlertsConfig } from "../Config"
import { digestOf } from "../Format"
import { BudgetRepo } from "./BudgetRepo"
import { untried, type Outcome } from "./Outcome"
import type { DeliveryRow } from "./Rows"

/** An ended window with an overflow, claimed for its digest. */
export interface EndedWindow {
  readonly user_id: number
  readonly hour: Date
  readonly overflow: number
}

export class AlertBudget extends Effect.Service<AlertBudget>()("app/AlertBudget", {
  dependencies: [BudgetRepo.Default, AlertsConfig.Default],
  effect: Effect.gen(function* () {
    const repo = yield* BudgetRepo
    const config = yield* AlertsConfig
    const windowMs = config.budgetWindowSeconds * 1000

    return {
      /** A round's rows counted (deliveries, once each; tests and digests are free): the rows to send, and the folded ones. */
      count: Effect.fn("AlertBudget.count")(function* (rows: ReadonlyArray<DeliveryRow>) {
        const counted = new Map<number, Array<number>>()
        const seen = new Set<number>()
        for (const r of rows) {
          if (r.test || r.type === "digest" || seen.has(r.id)) continue
          seen.add(r.id)
          const ids = counted.get(r.user_id)
          if (ids === undefined) counted.set(r.user_id, [r.id])
          else ids.push(r.id)
        }
        const digested: Array<Outcome> = []
        const users = [...counted.keys()].sort((a, b) => a - b)
        if (users.length === 0) return { live: rows, digested }
        const hour = new Date(Math.floor(Date.now() / windowMs) * windowMs)
        const used = yield* repo.useBudgets(hour, users, users.map((u) => counted.get(u)!.length))
        const over = new Set<number>()
        const overUsers: Array<number> = []
        for (const u of users) {
          const ids = counted.get(u)!
          const after = used.get(u) ?? ids.length
          const fold = ids.slice(Math.max(0, config.budgetPerHour - (after - ids.length)))
          if (fold.length === 0) continue
          overUsers.push(u)
          for (const id of fold) over.add(id)
        }
        if (overUsers.length === 0) return { live: rows, digested }
        yield* repo.addOverflows(hour, overUsers, overUsers.map((u) => counted.get(u)!.filter((id) => over.has(id)).length))
        for (const r of rows) if (over.has(r.id)) digested.push(untried(r, "digested", null))
        return { live: rows.filter((r) => !over.has(r.id)), digested }
      }),

      /** Claims the windows ended with an overflow and no digest yet (each claimed by one process). */
      endedWindows: Effect.fn("AlertBudget.endedWindows")(() =>
        repo.claimDigests(new Date(Math.floor(Date.now() / windowMs) * windowMs))),

      /** The digest of an ended window: what it folded, by title. */
      digest: Effect.fn("AlertBudget.digest")(function* (w: EndedWindow) {
        const items = yield* repo.digestedIn(w.user_id, w.hour, new Date(w.hour.getTime() + windowMs + 60_000))
        return digestOf(items, w.overflow, w.hour.getTime())
      })
    } as const
  })
}) {}
