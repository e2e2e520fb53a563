/**
 * The fan-out: matches `chain.tx` records and `domain.events` to subscriptions through the in-memory index, and
 * records one delivery per (alert, record) — the unique key makes a redelivered record a no-op — then publishes
 * what is owed on `notify`, one message per user.
 *
 * The index is loaded from the database and kept current by following `alerts.changes` (every create, update,
 * delete, snooze and mute is announced there) before each record; it is also reloaded whole every
 * `ALERTS_INDEX_RELOAD_SECONDS`. Snoozed alerts and muted users are skipped; per-type cooldowns fold a noisy
 * alert's matches (counted, not recorded; its next message says how many). Concurrent handlers share one database
 * write per round (`makeBatcher`), so a 2,400-record block costs a few statements, not thousands.
 */
import { Deferred, Effect, Exit, FiberId } from "effect"
import type { AlertSpec, ConvergenceParams } from "../../../schema/http/alerts"
import type { Tier } from "../../../schema/tiers"
import { deliverManyMessage, isRetraction, STREAMS, type ChainTxMessage, type ChainTxRetraction, type DomainEvent } from "../../../schema/streams"
import { Bus } from "../../platform/infra/Bus"
import { Kv } from "../../platform/infra/Kv"
import { makeBatcher } from "../../platform/infra/Batcher"
import { Entitlements } from "../accounts/Entitlements"
import { ConvergenceRepo, type ConvergenceBuy } from "./convergence/ConvergenceRepo"
import { DeliveriesRepo } from "./delivery/DeliveriesRepo"
import { recordKeyOf, type NewDelivery } from "./delivery/Rows"
import { SettingsRepo } from "./channels/SettingsRepo"
import { SubscriptionsRepo } from "./subscriptions/SubscriptionsRepo"
import { AlertsConfig } from "./Config"
import { ConvergenceWindow, MAX_WINDOW_MS, type Convergence } from "./convergence/Window"
import { contentOfConvergence, contentOfIndexCross, contentOfPick, contentOfPlaybook, contentOfRecord, shortAddress, type Content, type RecordFacts } from "./Format"
import { isLive, MatchIndex, type Sub } from "./matching/MatchIndex"
import { ALERT_STREAMS } from "./subscriptions/Changes"
import type { SubRow } from "./subscriptions/SubscriptionsRepo"
import { PARAMS, type AlertType, type Channel } from "../../../schema/http/alerts"
import { policyOf } from "./Policy"
import { DEFAULT_COOLDOWNS } from "./Throttle"

/** A stored row as the matching index holds it; null when its params no longer parse (never expected). */
const toSub = (row: SubRow): Sub | null => {
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

/** Delivery ids per `notify` message (several notifier processes share a block's by taking messages). */
const NOTIFY_CHUNK = 500
/** Deliveries recorded per statement, and statements at once (on as many connections). */
const RECORD_CHUNK = 1000
const RECORD_PARALLEL = 2

/** A buy and the convergence alerts watching its token. */
interface Buy {
  readonly m: ChainTxMessage
  readonly at: number
  readonly subs: ReadonlyArray<Sub>
}

/** What a run of handled messages adds to a round. */
interface Matched {
  readonly items: ReadonlyArray<NewDelivery>
  readonly buys: ReadonlyArray<Buy>
  /** Further matches folded into an item at match time (same alert, same block time), counted, not built. */
  readonly extras: ReadonlyMap<NewDelivery, number>
}

/** A run's first match of an alert with a cooldown at one block time, and how many more matches it folded. */
interface Fold {
  readonly sub: Sub
  readonly ts: string
  readonly first: NewDelivery
  extra: number
}

/**
 * The folds of a run (records matched synchronously against one index), found by the alert's slot in the index: its
 * latest fold in a flat array — a block's records share one time, so a match costs one read and one compare (a block
 * makes ~350k matches) — and its earlier ones, of a run over several blocks, in a map.
 */
class Folds {
  readonly all: Array<Fold> = []
  private readonly latest: Array<Fold | undefined>
  private readonly earlier = new Map<Sub, Array<Fold>>()
  constructor(slots: number) {
    this.latest = new Array<Fold | undefined>(slots).fill(undefined)
  }
  find(sub: Sub, ts: string): Fold | undefined {
    const f = this.latest[sub.slot!]
    if (f === undefined || f.sub !== sub) return undefined
    return f.ts === ts ? f : this.earlier.get(sub)?.find((e) => e.ts === ts)
  }
  add(fold: Fold) {
    const slot = fold.sub.slot!
    const previous = this.latest[slot]
    if (previous !== undefined && previous.sub === fold.sub) {
      const list = this.earlier.get(fold.sub)
      if (list === undefined) this.earlier.set(fold.sub, [previous])
      else list.push(previous)
    }
    this.latest[slot] = fold
    this.all.push(fold)
  }
}

export class AlertFanout extends Effect.Service<AlertFanout>()("app/AlertFanout", {
  dependencies: [ConvergenceRepo.Default, DeliveriesRepo.Default, SettingsRepo.Default, SubscriptionsRepo.Default, AlertsConfig.Default, Entitlements.Default],
  effect: Effect.gen(function* () {
    const buysRepo = yield* ConvergenceRepo
    const deliveriesRepo = yield* DeliveriesRepo
    const settingsRepo = yield* SettingsRepo
    const subsRepo = yield* SubscriptionsRepo
    const config = yield* AlertsConfig
    const entitlements = yield* Entitlements
    const bus = yield* Bus
    const kv = yield* Kv

    let index = new MatchIndex()
    /** Each alert's last fire as the database knows it (`last_fired_at`): the cooldown gates' floor after a restart. */
    const lastFired = new Map<number, number>()
    const muted = new Map<number, number>()
    /** The owners' tiers (an alert fires only with what its owner's tier includes now); refreshed every minute. */
    const tiers = new Map<number, Tier>()
    let tiersAt = 0
    let lastChange = "0-0"
    let loadedAt = 0
    /** Tickets order sync requests: a sync that started after a caller arrived covers that caller. */
    let ticket = 0
    let covered = 0
    let running: Deferred.Deferred<void> | null = null

    const applyUsers = (userIds: ReadonlyArray<number>) =>
      Effect.gen(function* () {
        if (userIds.length === 0) return
        const rows = yield* settingsRepo.settingsOf(userIds)
        for (const id of userIds) muted.delete(id)
        for (const r of rows) if (r.muted_until) muted.set(r.user_id, r.muted_until.getTime())
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
      const [tail] = yield* bus.tail(ALERT_STREAMS.changes, 1)
      const next = new MatchIndex()
      const rows = yield* subsRepo.all()
      for (const row of rows) {
        const sub = toSub(row)
        if (sub) next.upsert(sub)
        if (row.last_fired_at) lastFired.set(row.id, row.last_fired_at.getTime())
      }
      muted.clear()
      for (const m of yield* settingsRepo.mutedUsers()) muted.set(m.user_id, m.muted_until.getTime())
      tiers.clear()
      tiersAt = Date.now()
      yield* refreshTiers([...new Set(rows.map((r) => Number(r.user_id)))])
      index = next
      // Buys older than the longest window (and a little clock skew) are of no use.
      yield* buysRepo.pruneBuys(new Date(Date.now() - MAX_WINDOW_MS - 3_600_000))
      lastChange = tail?.id ?? "0-0"
      loadedAt = Date.now()
      yield* Effect.logInfo(`alert index loaded: ${index.size} alerts`)
    })

    const follow = Effect.gen(function* () {
      for (;;) {
        const changes = yield* bus.rangeAfter(ALERT_STREAMS.changes, lastChange, 1000)
        if (changes.length === 0) return
        lastChange = changes[changes.length - 1]!.id
        const alertIds = [...new Set(changes.filter((c) => c.payload.kind === "alert").map((c) => Number(c.payload.id)))]
        const userIds = [...new Set(changes.filter((c) => c.payload.kind === "user").map((c) => Number(c.payload.id)))]
        if (alertIds.length > 0) {
          const found = yield* subsRepo.byIds(alertIds)
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
        if (changes.length < 1000) return
      }
    })

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
        return (Date.now() - loadedAt > config.indexReloadSeconds * 1000 ? load : Effect.zipRight(follow, refreshTiersIfDue)).pipe(
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
    })

    // ------------------------------------------------------------------------------------------ batched writes
    /**
     * The handlers of one read share one write: the convergence windows of their buys decided, their deliveries
     * recorded, the owed ones published on `notify`.
     */
    const submit = makeBatcher<Matched>((matched) =>
      Effect.gen(function* () {
        const extras = new Map<NewDelivery, number>()
        for (const m of matched) for (const [item, n] of m.extras) extras.set(item, n)
        // The record alerts and convergence side by side: convergence (no cooldown; its window read and fires taken in
        // the database) does not hold up the rest, nor they it.
        yield* Effect.all([
          cooldown(matched.flatMap((m) => m.items), extras).pipe(Effect.flatMap(record)),
          convergence(matched.flatMap((m) => m.buys)).pipe(Effect.flatMap((items) => cooldown(items, new Map())), Effect.flatMap(record))
        ], { concurrency: 2, discard: true })
      }))

    /**
     * Records deliveries and publishes what is owed: parts of RECORD_CHUNK, RECORD_PARALLEL at a time, each published
     * on `notify` as soon as it is written (the notifier starts on the first while the next are written).
     */
    const record = (items: ReadonlyArray<NewDelivery>) =>
      Effect.gen(function* () {
        if (items.length === 0) return
        const parts: Array<ReadonlyArray<NewDelivery>> = []
        for (let i = 0; i < items.length; i += RECORD_CHUNK) parts.push(items.slice(i, i + RECORD_CHUNK))
        const fired = items.filter((i) => i.status === "pending" && i.alertId !== null)
        yield* Effect.forEach(parts, (part) =>
          Effect.gen(function* () {
            const owed = yield* deliveriesRepo.recordDeliveries(part)
            // Few large messages (a user's deliveries together): the notifier handles a read of them in one round.
            const ids = [...owed].sort((a, b) => a.user_id - b.user_id || a.id - b.id).map((d) => d.id)
            const messages = []
            for (let j = 0; j < ids.length; j += NOTIFY_CHUNK) messages.push(deliverManyMessage(ids.slice(j, j + NOTIFY_CHUNK)))
            if (messages.length > 0) yield* bus.publishMany(STREAMS.notify, messages)
          }), { concurrency: RECORD_PARALLEL, discard: true })
        // After the deliveries are stored (the cooldown's floor after a restart must never be ahead of them).
        yield* subsRepo.touchFired(fired.map((i) => i.alertId!), fired.map((i) => i.eventAt))
      })

    /**
     * Convergence, over the window in the database (shared by every fan-out process, kept across restarts): the
     * round's buys are stored, the window of their tokens read back, each watching alert judged on it in block-time
     * order, and a fire taken in the database (at most one per alert, token and window, whichever process asks).
     */
    const convergence = (buys: ReadonlyArray<Buy>) =>
      Effect.gen(function* () {
        if (buys.length === 0) return []
        const rows = buys.map((b): ConvergenceBuy => ({ token: b.m.token, key: recordKeyOf(b.m), wallet: b.m.wallet, label: b.m.wallet_label, usd: b.m.usd ?? 0, at: b.at }))
        yield* buysRepo.addBuys(rows)
        const times = buys.map((b) => b.at)
        const stored = yield* buysRepo.buysOf([...new Set(rows.map((r) => r.token))], new Date(Math.min(...times) - MAX_WINDOW_MS), new Date(Math.max(...times)))
        const window = new ConvergenceWindow()
        const labels = new Map<string, string>()
        for (const r of stored) {
          window.add(r.token, r)
          if (r.label) labels.set(r.wallet, r.label)
        }
        const fires = new Map<string, { sub: Sub; buy: Buy; found: Convergence; params: ConvergenceParams }>()
        for (const buy of [...buys].sort((a, b) => a.at - b.at)) {
          for (const sub of buy.subs) {
            const params = (sub.spec as Extract<AlertSpec, { type: "convergence" }>).params
            const found = window.evaluate(sub.id, params, buy.m.token, buy.at)
            const key = `${sub.id}|${buy.m.token}`
            if (found !== null && !fires.has(key)) fires.set(key, { sub, buy, found, params })
          }
        }
        if (fires.size === 0) return []
        const taken = yield* buysRepo.takeFires([...fires.values()].map((f) => ({
          alertId: f.sub.id, token: f.buy.m.token, at: f.buy.at, key: `conv:${recordKeyOf(f.buy.m)}`, windowMs: f.params.window_minutes * 60_000
        })))
        const out: Array<NewDelivery> = []
        for (const f of fires.values()) {
          const key = `conv:${recordKeyOf(f.buy.m)}`
          if (!taken.has(`${f.sub.id}|${key}`)) continue
          const content = contentOfConvergence(f.buy.m, {
            wallets: f.found.wallets, totalUsd: f.found.totalUsd, windowMinutes: f.params.window_minutes,
            labels: f.found.wallets.map((w) => labels.get(w) ?? shortAddress(w))
          })
          out.push(delivery(f.sub, key, content, f.buy.m.ts))
        }
        return out
      })

    /**
     * Per-type cooldowns, shared by every fan-out process (Kv gates, decided in order in one step per round): a match
     * inside its alert's cooldown is only counted, and the alert's next delivery says how many it folded (a noisy
     * alert costs a counter, not a row per match). Time is the record's block time, so a replay decides the same way.
     */
    const cooldown = (items: ReadonlyArray<NewDelivery>, extras: ReadonlyMap<NewDelivery, number>) =>
      Effect.gen(function* () {
        // One gate per alert and time: the further matches of an alert at the same block time are held whatever the
        // first one's answer (a block matches a broad alert many times), counted with it as `extra` (most of them
        // already at match time, see `matchRecord`).
        type Gate = { first: NewDelivery; at: number; extra: number }
        const gates: Array<Gate> = []
        const byAlert = new Map<number, Array<Gate>>()
        const folded = new Set<NewDelivery>()
        // A round's items share a few block times: each text parsed once.
        const times = new Map<string, number>()
        for (const i of items) {
          const seconds = DEFAULT_COOLDOWNS[i.type as keyof typeof DEFAULT_COOLDOWNS] ?? 0
          if (i.alertId === null || seconds <= 0) continue
          let at = times.get(i.eventAt)
          if (at === undefined) {
            const parsed = Date.parse(i.eventAt)
            times.set(i.eventAt, at = Number.isFinite(parsed) ? parsed : Date.now())
          }
          const own = byAlert.get(i.alertId)
          const gate = own?.find((g) => g.at === at)
          if (gate !== undefined) {
            gate.extra++
            folded.add(i)
            continue
          }
          const fresh = { first: i, at, extra: extras.get(i) ?? 0 }
          if (own === undefined) byAlert.set(i.alertId, [fresh])
          else own.push(fresh)
          gates.push(fresh)
        }
        if (gates.length === 0) return items
        const answers = yield* kv.passGates(gates.map((g) => ({
          key: `alerts:cooldown:${g.first.alertId}`, id: g.first.recordKey, at: g.at, extra: g.extra,
          cooldownMs: DEFAULT_COOLDOWNS[g.first.type as keyof typeof DEFAULT_COOLDOWNS] * 1000, knownLast: lastFired.get(g.first.alertId!) ?? null
        })))
        const verdicts = new Map(gates.map((g, k) => [g.first, answers[k]!] as const))
        return items.flatMap((i): Array<NewDelivery> => {
          if (folded.has(i)) return []
          const held = verdicts.get(i) ?? 0
          if (held < 0) return []
          if (held === 0) return [i]
          const data = { ...i.data, folded: held }
          return [{ ...i, data, dataJson: JSON.stringify(data) }]
        })
      })

    // -------------------------------------------------------------------------------------------------- matching
    /** The delivery of a match (before its cooldown is decided, per round). */
    const delivery = (sub: Sub, recordKey: string, content: Content, eventAt: string): NewDelivery => {
      // The alerts a record matches share its content: one data object and one JSON text unless a count is added.
      let shared = sharedData.get(content)
      if (shared === undefined) {
        const data = { ...content.data, url: content.url }
        sharedData.set(content, shared = { data, json: JSON.stringify(data) })
      }
      return {
        alertId: sub.id, userId: sub.userId, type: sub.spec.type, recordKey, title: content.title, summary: content.summary,
        data: shared.data, dataJson: shared.json, channels: sub.channels, eventAt, status: "pending"
      }
    }
    const sharedData = new WeakMap<Content, { readonly data: Record<string, unknown>; readonly json: string }>()

    /**
     * The alert as it may fire now, or null: not snoozed, its owner not muted, its type still in the owner's tier
     * (a downgraded user's alerts of higher types are paused, not deleted), and only the channels the tier has.
     */
    const live = (sub: Sub, now: number): Sub | null => {
      if (!isLive(sub, now, muted.get(sub.userId))) return null
      const policy = policyOf(tiers.get(sub.userId) ?? "free")
      if (!policy.types.includes(sub.spec.type)) return null
      const channels = sub.channels.filter((c) => policy.channels.includes(c))
      if (channels.length === 0) return null
      return channels.length === sub.channels.length ? sub : { ...sub, channels }
    }

    /**
     * The deliveries a record causes, but for convergence (decided per round over the shared window). With `folds`
     * (a run of records), a further match of an alert with a cooldown at the same block time is only counted on the
     * first one: the cooldown gate would fold it anyway, and a block matches a broad alert hundreds of times.
     */
    const matchRecord = (m: ChainTxMessage, now: number, folds?: Folds): Array<NewDelivery> => {
      const facts: RecordFacts = m
      const key = recordKeyOf(m)
      const out: Array<NewDelivery> = []
      // One content per alert type the record matches (whale_trade, exchange_flow, wallet_activity), not per alert.
      const contents = new Map<string, Content>()
      for (const matched of index.matchRecord(m)) {
        const foldable = folds !== undefined && DEFAULT_COOLDOWNS[matched.spec.type] > 0
        const fold = foldable ? folds.find(matched, m.ts) : undefined
        if (fold !== undefined) {
          fold.extra++
          continue
        }
        const sub = live(matched, now)
        if (sub === null) continue
        let content = contents.get(sub.spec.type)
        if (content === undefined) contents.set(sub.spec.type, content = contentOfRecord(sub.spec.type as "whale_trade", facts))
        const item = delivery(sub, key, content, m.ts)
        if (foldable) folds.add({ sub: matched, ts: m.ts, first: item, extra: 0 })
        out.push(item)
      }
      return out
    }

    /** The convergence alerts a buy is for (null: none, or not a buy). */
    const buyOf = (m: ChainTxMessage, now: number): Buy | null => {
      if (m.category !== "dex_buy") return null
      const subs = index.convergenceFor(m).flatMap((sub) => live(sub, now) ?? [])
      const at = Date.parse(m.ts)
      return subs.length === 0 || !Number.isFinite(at) ? null : { m, at, subs }
    }

    /**
     * A read of `chain.tx` in stream order, in one call: one sync, the records matched synchronously, one round of
     * writes per run of records (a retraction is handled after the records before it are written).
     */
    const handleMessages = (messages: ReadonlyArray<ChainTxMessage | ChainTxRetraction>) =>
      Effect.gen(function* () {
        yield* sync
        const now = Date.now()
        let items: Array<NewDelivery> = []
        let buys: Array<Buy> = []
        let folds = new Folds(index.slots)
        const flush = Effect.suspend(() => {
          if (items.length === 0 && buys.length === 0) return Effect.void
          const extras = new Map<NewDelivery, number>()
          for (const f of folds.all) if (f.extra > 0) extras.set(f.first, f.extra)
          const taken: Matched = { items, buys, extras }
          items = []
          buys = []
          folds = new Folds(index.slots)
          return submit([taken])
        })
        for (const m of messages) {
          if (isRetraction(m)) {
            yield* flush
            yield* handleRetraction(m)
            continue
          }
          for (const item of matchRecord(m, now, folds)) items.push(item)
          const buy = buyOf(m, now)
          if (buy !== null) buys.push(buy)
        }
        yield* flush
      })

    const handleRetraction = (m: ChainTxRetraction) =>
      Effect.gen(function* () {
        const key = recordKeyOf(m)
        yield* buysRepo.retractBuys([key])
        yield* deliveriesRepo.retract([key, `conv:${key}`])
      })

    const handleEvent = (e: DomainEvent) =>
      Effect.gen(function* () {
        yield* sync
        const now = Date.now()
        const subs = index.matchEvent(
          e._tag === "IndexValue" ? { _tag: "IndexValue", value: e.value, previous: e.previous }
            : e._tag === "PlaybookEventStatus" ? { _tag: "PlaybookEventStatus", category: e.category, severity: e.severity, status: e.status }
              : { _tag: "PickFlagged", token: e.token.toLowerCase(), symbol: e.symbol, whales: e.whales, conviction: e.conviction }
        ).flatMap((s) => live(s, now) ?? [])
        if (subs.length === 0) return
        const at = e._tag === "PickFlagged" ? e.flagged_at : e.at
        const items = subs.map((sub) => {
          const content = e._tag === "IndexValue"
            ? contentOfIndexCross({ value: e.value, previous: e.previous ?? e.value, at: e.at }, (sub.spec.params as { level: number }).level)
            : e._tag === "PlaybookEventStatus" ? contentOfPlaybook(e) : contentOfPick(e)
          return delivery(sub, `event:${e.messageId}`, content, at)
        })
        if (items.length > 0) yield* submit([{ items, buys: [], extras: new Map() }])
      })

    return {
      handleMessages, handleRetraction, handleEvent,
      /** For the benchmark and tests: the index as it stands, and the pure matching step. */
      index: () => index,
      matchRecord,
      sync
    } as const
  })
}) {}
