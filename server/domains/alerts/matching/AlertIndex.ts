/**
 * The live matching index of a fan-out process: every alert in a `MatchIndex`, and what decides whether a matched
 * alert may fire now — snooze, its owner's mute, its owner's tier (a downgrade pauses higher types and channels) —
 * and each alert's last fire as the database knows it (the cooldown gates' floor after a restart).
 *
 * It is loaded from the database and kept current by following `alerts.changes` (`AlertChanges`: every create,
 * update, delete, snooze and mute) before each round (`sync`); it is also reloaded whole every
 * `ALERTS_INDEX_RELOAD_SECONDS`, and the owners' tiers are read again every `ALERTS_TIER_REFRESH_SECONDS` (a tier
 * also ends by time, with nothing announced). A load also drops convergence buys older than every window (the
 * window's housekeeping rides on the reload). It also holds the owners' private labels of their custom wallets
 * (`ownLabels`): only an owner's own deliveries of the wallet's records say the label (a `user` change reloads theirs).
 *
 * `current`, `live` and `ownLabels` are the hot path's per-record calls: plain functions, no Effect, no span.
 */
import { Deferred, Effect, Exit, FiberId } from "effect"
import { PARAMS, type AlertSpec, type AlertType, type Channel } from "../../../../schema/http/alerts"
import type { Tier } from "../../../../schema/tiers"
import { Entitlements } from "../../accounts/Entitlements"
import { SettingsRepo } from "../channels/SettingsRepo"
import { AlertsConfig } from "../Config"
import { AlertConvergence } from "../convergence/Convergence"
import { policyOf } from "../Policy"
import { AlertChanges } from "../subscriptions/Changes"
import { SubscriptionsRepo, type SubRow } from "../subscriptions/SubscriptionsRepo"
import { WalletsRepo } from "../wallets/WalletsRepo"
import { isLive, MatchIndex, type Sub } from "./MatchIndex"
import { ALL_USERS, ownsUser, type Shard } from "./Shard"

/** Changes read per step of a follow. */
const FOLLOW_STEP = 1000

/** A stored row as the matching index holds it; null when its params no longer parse (never expected). */
export const toSub = (row: SubRow): Sub | null => {
  const parsed = PARAMS[row.type as AlertType]?.safeParse(row.params)
  if (!parsed?.success) return null
  return {
    id: row.id,
    userId: row.user_id,
    spec: { type: row.type, params: parsed.data } as AlertSpec,
    channels: row.channels as Array<Channel>,
    enabled: row.enabled,
    snoozedUntil: row.snoozed_until?.getTime() ?? null
  }
}

/**
 * The index of one shard's users (ALERT_SHARDS, matching/Shard.ts): it loads and follows only their alerts, mutes,
 * tiers and labels. `ALL_USERS` is the whole index (one shard, the default).
 */
export const makeAlertIndex = (shard: Shard) =>
  Effect.gen(function* () {
    const subscriptions = yield* SubscriptionsRepo
    const settings = yield* SettingsRepo
    const wallets = yield* WalletsRepo
    const changes = yield* AlertChanges
    const convergence = yield* AlertConvergence
    const config = yield* AlertsConfig
    const entitlements = yield* Entitlements

    const mine = (userId: number) => ownsUser(shard, Number(userId))

    let index = new MatchIndex()
    /** Each alert's last fire as the database knows it (`last_fired_at`): the cooldown gates' floor after a restart. */
    const lastFired = new Map<number, number>()
    const muted = new Map<number, number>()
    /** The owners' tiers (an alert fires only with what its owner's tier includes now); refreshed every minute. */
    const tiers = new Map<number, Tier>()
    let tiersAt = 0
    /** Custom wallets' private labels: address → (owner → label), and each owner's labelled addresses. */
    const labels = new Map<string, Map<number, string>>()
    const labelled = new Map<number, Set<string>>()
    let lastChange = "0-0"
    let loadedAt = 0
    /** Tickets order sync requests: a sync that started after a caller arrived covers that caller. */
    let ticket = 0
    let covered = 0
    let running: Deferred.Deferred<void> | null = null

    const applyUsers = (userIds: ReadonlyArray<number>) =>
      Effect.gen(function* () {
        if (userIds.length === 0) return
        const rows = yield* settings.settingsOf(userIds.filter(mine))
        for (const id of userIds) muted.delete(id)
        for (const r of rows) if (r.muted_until) muted.set(r.user_id, r.muted_until.getTime())
      })

    /** Reads the labels of these users' custom wallets again (null: everyone's, the whole map anew). */
    const applyLabels = (userIds: ReadonlyArray<number> | null) =>
      Effect.gen(function* () {
        if (userIds !== null && userIds.length === 0) return
        const rows = yield* wallets.labels(userIds)
        if (userIds === null) {
          labels.clear()
          labelled.clear()
        } else {
          for (const id of userIds) {
            for (const address of labelled.get(id) ?? []) {
              const owners = labels.get(address)
              owners?.delete(id)
              if (owners?.size === 0) labels.delete(address)
            }
            labelled.delete(id)
          }
        }
        for (const r of rows) {
          const userId = Number(r.user_id)
          if (!mine(userId)) continue
          let owners = labels.get(r.address)
          if (owners === undefined) labels.set(r.address, owners = new Map())
          owners.set(userId, r.label)
          let own = labelled.get(userId)
          if (own === undefined) labelled.set(userId, own = new Set())
          own.add(r.address)
        }
      })

    const refreshTiers = (userIds: ReadonlyArray<number>) =>
      Effect.gen(function* () {
        if (userIds.length === 0) return
        for (const [id, tier] of yield* entitlements.tiersOf(userIds)) tiers.set(id, tier)
      })
    const refreshTiersIfDue = Effect.suspend(() => {
      // A tier also ends by time (a period end, a trial's end), with no change announced: read them again now and then.
      if (Date.now() - tiersAt < config.tierRefreshSeconds * 1000) return Effect.void
      tiersAt = Date.now()
      return refreshTiers([...tiers.keys()])
    })

    const load = Effect.gen(function* () {
      const tail = yield* changes.latest()
      const next = new MatchIndex()
      const rows = shard.count === 1 ? yield* subscriptions.all() : yield* subscriptions.ofShard(shard.index, shard.count)
      for (const row of rows) {
        const sub = toSub(row)
        if (sub) next.upsert(sub)
        if (row.last_fired_at) lastFired.set(row.id, row.last_fired_at.getTime())
      }
      muted.clear()
      for (const m of yield* settings.mutedUsers()) if (mine(m.user_id)) muted.set(m.user_id, m.muted_until.getTime())
      tiers.clear()
      tiersAt = Date.now()
      yield* refreshTiers([...new Set(rows.map((r) => Number(r.user_id)))])
      yield* applyLabels(null)
      index = next
      yield* convergence.prune()
      lastChange = tail
      loadedAt = Date.now()
      yield* Effect.logInfo(`alert index loaded: ${index.size} alerts`)
    }).pipe(Effect.withSpan("AlertIndex.load"))

    const follow = Effect.gen(function* () {
      for (;;) {
        const read = yield* changes.since(lastChange, FOLLOW_STEP)
        if (read.length === 0) return
        lastChange = read[read.length - 1]!.streamId
        const alertIds = [...new Set(read.filter((c) => c.kind === "alert").map((c) => c.id))]
        const userIds = [...new Set(read.filter((c) => c.kind === "user" && mine(c.id)).map((c) => c.id))]
        if (alertIds.length > 0) {
          // Another shard's alert is not this index's: as good as deleted here (its owner's shard holds it).
          const found = (yield* subscriptions.byIds(alertIds)).filter((r) => mine(r.user_id))
          // A changed alert's owner may have changed tier too (an upgrade, then a new alert of a higher type).
          yield* refreshTiers([...new Set(found.map((r) => Number(r.user_id)))])
          const rows = new Map(found.map((r) => [r.id, r]))
          for (const id of alertIds) {
            const row = rows.get(id)
            const sub = row ? toSub(row) : null
            if (sub) index.upsert(sub)
            else index.remove(id)
            if (!row) lastFired.delete(id)
          }
        }
        yield* applyUsers(userIds)
        yield* refreshTiers(userIds)
        yield* applyLabels(userIds)
        if (read.length < FOLLOW_STEP) return
      }
    }).pipe(Effect.zipRight(refreshTiersIfDue), Effect.withSpan("AlertIndex.follow"))

    /**
     * Brings the index up to date with every change announced before the call. Concurrent callers share one sync:
     * a caller waits for the one running if it started after the caller arrived, else for the next one, and all
     * waiters of a sync wake together (hundreds of handlers of one read cost one follow).
     */
    const sync: Effect.Effect<void> = Effect.suspend(() => {
      const mine = ++ticket
      const step: Effect.Effect<void> = Effect.suspend(() => {
        if (covered >= mine) return Effect.void
        if (running !== null) return Deferred.await(running).pipe(Effect.zipRight(step))
        const done = Deferred.unsafeMake<void>(FiberId.none)
        running = done
        const covers = ticket
        return (Date.now() - loadedAt > config.indexReloadSeconds * 1000 ? load : follow).pipe(
          Effect.tap(() => Effect.sync(() => {
            covered = Math.max(covered, covers)
          })),
          Effect.onExit((exit) => Effect.suspend(() => {
            running = null
            return Deferred.done(done, Exit.asVoid(exit))
          })),
          Effect.zipRight(step)
        )
      })
      return step
    }).pipe(Effect.withSpan("AlertIndex.sync"))

    return {
      sync,
      /** The index as it stands (replaced whole by a reload: read it once per pass). */
      current: () => index,
      /**
       * The alert as it may fire now, or null: not snoozed, its owner not muted, its type still in the owner's tier
       * (a downgraded user's alerts of higher types are paused, not deleted), and only the channels the tier has.
       */
      live: (sub: Sub, now: number): Sub | null => {
        if (!isLive(sub, now, muted.get(sub.userId))) return null
        const policy = policyOf(tiers.get(sub.userId) ?? "free")
        if (!policy.types.includes(sub.spec.type)) return null
        const channels = sub.channels.filter((c) => policy.channels.includes(c))
        if (channels.length === 0) return null
        return channels.length === sub.channels.length ? sub : { ...sub, channels }
      },
      /**
       * The owners' private labels of a wallet (owner → label), or undefined: nearly every record's wallet is no one's
       * labelled custom wallet, and this costs it one lookup.
       */
      ownLabels: (wallet: string): ReadonlyMap<number, string> | undefined => labels.get(wallet),
      /** An alert's last fire as the database knew it at load (epoch ms), or null. */
      lastFiredOf: (alertId: number): number | null => lastFired.get(alertId) ?? null
    } as const
  })

export type AlertIndexShape = Effect.Effect.Success<ReturnType<typeof makeAlertIndex>>

export class AlertIndex extends Effect.Service<AlertIndex>()("app/AlertIndex", {
  dependencies: [SubscriptionsRepo.Default, SettingsRepo.Default, WalletsRepo.Default, AlertChanges.Default, AlertConvergence.Default, AlertsConfig.Default, Entitlements.Default],
  effect: makeAlertIndex(ALL_USERS)
}) {}
