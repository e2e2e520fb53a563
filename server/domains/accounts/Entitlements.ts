/**
 * The ONE place a user's effective tier is computed. Sources, highest tier wins:
 *  - operator grants (`npm run admin -- set-tier`): their tier until `expires_at` (none = for good);
 *  - subscriptions (written by billing, server/domains/billing):
 *      `active` → its tier until `current_period_end`; a card subscription that renews by itself (not set to
 *        cancel) keeps it `RENEWAL_GRACE_HOURS` longer, while the renewal's webhooks arrive;
 *      `trialing` → its tier until `trial_end`; `canceled` but paid → its tier until `current_period_end`;
 *      `past_due`, `unpaid`, `incomplete`, `paused`, … → nothing;
 *  - the account's 7-day trial (an `activate_trial` link): its tier until it ends.
 * No source: `free` (every account is at least free; `anon` is for callers without an account).
 * "Now" is Effect's `Clock`, so tests move time (period ends, trials) with a controlled clock.
 */
import { Clock, Effect } from "effect"
import { TIER_RANK, type Tier } from "../../../schema/tiers"
import { EntitlementsRepo, type EntitlementRow } from "./EntitlementsRepo"

/** Trials: length and tier (spec §3.2, §4.1, §8). */
export const TRIAL_DAYS = 7
export const TRIAL_TIER: Tier = "alpha"

/** How long an auto-renewing card subscription keeps its tier past its period end while the renewal comes in. */
export const RENEWAL_GRACE_HOURS = 48

const after = (date: Date | null, now: Date) => date !== null && date.getTime() > now.getTime()
const now$ = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/** Whether one source grants its tier at `now`. */
export const grantsNow = (row: EntitlementRow, now: Date): boolean => {
  switch (row.source) {
    case "grant":
      return row.until === null || after(row.until, now)
    case "trial":
      return after(row.until, now)
    case "subscription":
      switch (row.status) {
        case "active": {
          if (row.until === null) return true
          const renews = row.provider === "card" && row.cancel_at_period_end !== true
          return after(renews ? new Date(row.until.getTime() + RENEWAL_GRACE_HOURS * 3_600_000) : row.until, now)
        }
        case "trialing":
          return after(row.trial_end ?? row.until, now)
        case "canceled":
          return after(row.until, now)
        default:
          return false
      }
  }
}

/** The effective tier from a user's sources. */
export const effectiveTier = (rows: ReadonlyArray<EntitlementRow>, now: Date = new Date()): Tier =>
  rows.reduce<Tier>((best, row) => (grantsNow(row, now) && TIER_RANK[row.tier] > TIER_RANK[best] ? row.tier : best), "free")

export interface EntitlementSummary {
  readonly tier: Tier
  /** End of the running trial when a trial is what gives the tier (else null). */
  readonly trialEndsAt: Date | null
  /** The account used its one trial already (running or over). */
  readonly trialUsed: boolean
}

export const summarise = (rows: ReadonlyArray<EntitlementRow>, now: Date = new Date()): EntitlementSummary => {
  const tier = effectiveTier(rows, now)
  const trial = rows.find((r) => r.source === "trial")
  const trialGives = trial !== undefined && grantsNow(trial, now) && trial.tier === tier
  const otherGives = rows.some((r) => r.source !== "trial" && grantsNow(r, now) && r.tier === tier)
  return { tier, trialEndsAt: trialGives && !otherGives ? trial.until : null, trialUsed: trial !== undefined }
}

export class Entitlements extends Effect.Service<Entitlements>()("app/Entitlements", {
  dependencies: [EntitlementsRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* EntitlementsRepo
    return {
      /** The user's effective tier now. */
      tierOf: Effect.fn("Entitlements.tierOf")(function* (userId: number) {
        return effectiveTier(yield* repo.sourcesOf(userId), yield* now$)
      }),
      /** The effective tier now of each of these users (one query; `free` for a user with no source). */
      tiersOf: Effect.fn("Entitlements.tiersOf")(function* (userIds: ReadonlyArray<number>) {
        const tiers = new Map<number, Tier>(userIds.map((id) => [id, "free"]))
        if (userIds.length === 0) return tiers
        const now = yield* now$
        const byUser = new Map<number, Array<EntitlementRow>>()
        for (const row of yield* repo.sourcesOfMany(userIds)) {
          const id = Number(row.user_id)
          byUser.set(id, [...(byUser.get(id) ?? []), row])
        }
        for (const [id, rows] of byUser) tiers.set(id, effectiveTier(rows, now))
        return tiers
      }),
      summaryOf: Effect.fn("Entitlements.summaryOf")(function* (userId: number) {
        return summarise(yield* repo.sourcesOf(userId), yield* now$)
      }),
      /** An operator grant; `free` removes the grant (the user falls back to what they pay for). */
      setGrant: Effect.fn("Entitlements.setGrant")(function* (userId: number, tier: Exclude<Tier, "anon">, grantedBy: string, note?: string) {
        if (tier === "free") yield* repo.deleteGrant(userId)
        else yield* repo.upsertGrant(userId, tier, grantedBy, note ?? null)
      }),
      /** Starts the account's one trial; undefined when it already had one. Joins the caller's transaction. */
      startTrial: Effect.fn("Entitlements.startTrial")(function* (userId: number) {
        return yield* repo.insertTrial(userId, TRIAL_TIER, TRIAL_DAYS)
      }),
      /** Trials ending in [from, to), with their users (trial reminders). */
      trialsEnding: Effect.fn("Entitlements.trialsEnding")(function* (from: Date, to: Date) {
        return yield* repo.trialsEnding(from, to)
      }),
      hasHadTrial: Effect.fn("Entitlements.hasHadTrial")(function* (userId: number) {
        return yield* repo.hasTrial(userId)
      })
    } as const
  })
}) {}
