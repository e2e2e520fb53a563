/**
 * Persisted daily usage of the keyed API (this domain's tables, migration 0032), fed by the quota-counter actor: per
 * account and per key, and one warning e-mail per account and day at 80 % and at 100 % of the limit (written to the
 * outbox in the same transaction as the warning row, so a re-delivered event neither double-counts nor mails twice).
 */
import { Effect } from "effect"
import { Accounts } from "../accounts/Accounts"
import { Mailer } from "../../platform/infra/Mailer"
import { UsageRepo, type UsageRecord } from "./UsageRepo"

export const WARN_AT = [80, 100] as const

/** The thresholds (percent) a count has reached. */
export const reached = (count: number, limit: number) => WARN_AT.filter((t) => count >= Math.ceil((limit * t) / 100))

const mailFor = (threshold: number, u: UsageRecord) => {
  const full = threshold >= 100
  const subject = full
    ? "Whale Intelligence API: daily limit reached"
    : `Whale Intelligence API: ${threshold}% of today's requests used`
  const text = [
    full
      ? `Your account has used all ${u.limit.toLocaleString("en-US")} data API requests of ${u.day} (UTC).`
      : `Your account has used ${u.count.toLocaleString("en-US")} of its ${u.limit.toLocaleString("en-US")} data API requests of ${u.day} (UTC).`,
    full
      ? "Further requests are refused with 429 until the limit resets at 00:00 UTC."
      : "Requests past the limit are refused with 429 until it resets at 00:00 UTC.",
    "The limit counts every key of your account together. See GET /api/v1/usage for the live figures."
  ].join("\n\n")
  return { subject, text, kind: full ? "api_quota_100" : "api_quota_80" }
}

export class UsageLedger extends Effect.Service<UsageLedger>()("app/UsageLedger", {
  dependencies: [UsageRepo.Default, Mailer.Default, Accounts.Default],
  effect: Effect.gen(function* () {
    const repo = yield* UsageRepo
    const mailer = yield* Mailer
    const accounts = yield* Accounts

    // Transient: what this process has persisted already, to skip re-deliveries and known warnings.
    const persisted = new Map<string, number>()
    const warned = new Set<string>()
    const known = (key: string, n: number) => (persisted.get(key) ?? -1) >= n
    const remember = (key: string, n: number) => {
      if (persisted.size > 100_000) persisted.clear()
      if (!known(key, n)) persisted.set(key, n)
    }

    const write = (u: UsageRecord, thresholds: ReadonlyArray<number>) =>
      thresholds.length === 0
        ? repo.raise(u)
        : repo.transaction(
          Effect.gen(function* () {
            yield* repo.raise(u)
            const claimed = yield* repo.claimWarnings(u.userId, u.day, thresholds)
            if (claimed.length === 0) return
            const owner = yield* accounts.me(u.userId).pipe(Effect.option)
            if (owner._tag === "None") return
            for (const threshold of claimed) {
              yield* mailer.enqueue({ to: owner.value.email, userId: u.userId, ...mailFor(threshold, u) })
            }
          })
        )

    const record = Effect.fn("UsageLedger.record")(function* (u: UsageRecord) {
      const account = `u${u.userId}:${u.day}`
      const key = `k${u.keyId}:${u.day}`
      const thresholds = reached(u.count, u.limit).filter((t) => !warned.has(`${account}:${t}`))
      if (known(account, u.count) && known(key, u.keyCount) && thresholds.length === 0) return
      yield* write(u, thresholds)
      remember(account, u.count)
      remember(key, u.keyCount)
      for (const t of thresholds) warned.add(`${account}:${t}`)
    })

    return { record, usage: repo.usage } as const
  })
}) {}
