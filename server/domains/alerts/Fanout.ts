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
import type { AlertSpec } from "../../../schema/http/alerts"
import { STREAMS, type ChainTxMessage, type ChainTxRetraction, type DomainEvent } from "../../../schema/streams"
import { deliverManyMessage } from "../../../actors/notifier/Protocol"
import { Bus } from "../../platform/infra/Bus"
import { makeBatcher } from "./Batcher"
import { AlertsConfig } from "./Config"
import { ConvergenceWindow } from "./Convergence"
import { contentOfConvergence, contentOfIndexCross, contentOfPick, contentOfPlaybook, contentOfRecord, shortAddress, type Content, type RecordFacts } from "./Format"
import { isLive, MatchIndex, type Sub } from "./Matching"
import { ALERT_STREAMS, toSub } from "./Model"
import { AlertsRepo, type NewDelivery } from "./Repo"
import { Cooldowns, DEFAULT_COOLDOWNS } from "./Throttle"

/** Delivery ids per `notify` message (several notifier processes share a block's by taking messages). */
const NOTIFY_CHUNK = 500
/** Deliveries recorded per statement. */
const RECORD_CHUNK = 2000

export const recordKeyOf = (r: { tx_hash: string; log_index: number; wallet: string; token: string }) => `tx:${r.tx_hash}:${r.log_index}:${r.wallet}:${r.token}`

export class AlertFanout extends Effect.Service<AlertFanout>()("app/AlertFanout", {
  dependencies: [AlertsRepo.Default, AlertsConfig.Default],
  effect: Effect.gen(function* () {
    const repo = yield* AlertsRepo
    const config = yield* AlertsConfig
    const bus = yield* Bus

    let index = new MatchIndex()
    const window = new ConvergenceWindow()
    const cooldowns = new Cooldowns((t) => DEFAULT_COOLDOWNS[t])
    const muted = new Map<number, number>()
    const labels = new Map<string, string>()
    let lastChange = "0-0"
    let loadedAt = 0
    /** Tickets order sync requests: a sync that started after a caller arrived covers that caller. */
    let ticket = 0
    let covered = 0
    let running: Deferred.Deferred<void> | null = null

    const applyUsers = (userIds: ReadonlyArray<number>) =>
      Effect.gen(function* () {
        if (userIds.length === 0) return
        const rows = yield* repo.settingsOf(userIds)
        for (const id of userIds) muted.delete(id)
        for (const r of rows) if (r.muted_until) muted.set(r.user_id, r.muted_until.getTime())
      })

    const load = Effect.gen(function* () {
      const [tail] = yield* bus.tail(ALERT_STREAMS.changes, 1)
      const next = new MatchIndex()
      for (const row of yield* repo.all) {
        const sub = toSub(row)
        if (sub) next.upsert(sub)
        cooldowns.seed(row.id, row.last_fired_at?.getTime() ?? null)
      }
      muted.clear()
      for (const m of yield* repo.mutedUsers) muted.set(m.user_id, m.muted_until.getTime())
      index = next
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
          const rows = new Map((yield* repo.byIds(alertIds)).map((r) => [r.id, r]))
          for (const id of alertIds) {
            const row = rows.get(id)
            const sub = row ? toSub(row) : null
            if (sub) index.upsert(sub)
            else index.remove(id)
            if (!row) {
              cooldowns.forget(id)
              window.forget(id)
            }
          }
        }
        yield* applyUsers(userIds)
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
    })

    // ------------------------------------------------------------------------------------------ batched writes
    /** The handlers of one read share one write: their deliveries recorded, the owed ones published on `notify`. */
    const submit = makeBatcher<NewDelivery>((items) =>
      Effect.gen(function* () {
        // Per part: record, then publish what is owed at once (the notifier starts on it while the next is written).
        for (let i = 0; i < items.length; i += RECORD_CHUNK) {
          const owed = yield* repo.recordDeliveries(items.slice(i, i + RECORD_CHUNK))
          // Few large messages (a user's deliveries together): the notifier handles a read of them in one round.
          const ids = [...owed].sort((a, b) => a.user_id - b.user_id || a.id - b.id).map((d) => d.id)
          const messages = []
          for (let j = 0; j < ids.length; j += NOTIFY_CHUNK) messages.push(deliverManyMessage(ids.slice(j, j + NOTIFY_CHUNK)))
          if (messages.length > 0) yield* bus.publishMany(STREAMS.notify, messages)
        }
        const fired = items.filter((i) => i.status === "pending" && i.alertId !== null)
        yield* repo.touchFired(fired.map((i) => i.alertId!), fired.map((i) => i.eventAt))
      }))

    // -------------------------------------------------------------------------------------------------- matching
    /**
     * The delivery of a match, or null inside the alert's cooldown: the match is only counted, and the alert's next
     * delivery says how many it folded (a noisy alert costs a counter, not a row per match).
     */
    const delivery = (sub: Sub, recordKey: string, content: Content, eventAt: string): NewDelivery | null => {
      const at = Date.parse(eventAt)
      const verdict = cooldowns.take(sub.id, sub.spec.type, Number.isFinite(at) ? at : Date.now())
      if (verdict.verdict === "cooldown") return null
      // The alerts a record matches share its content: one data object and one JSON text unless a count is added.
      let shared = sharedData.get(content)
      if (shared === undefined) {
        const data = { ...content.data, url: content.url }
        sharedData.set(content, shared = { data, json: JSON.stringify(data) })
      }
      const data = verdict.folded > 0 ? { ...shared.data, folded: verdict.folded } : shared.data
      return {
        alertId: sub.id, userId: sub.userId, type: sub.spec.type, recordKey, title: content.title, summary: content.summary,
        data, dataJson: verdict.folded > 0 ? JSON.stringify(data) : shared.json,
        channels: sub.channels, eventAt, status: "pending"
      }
    }
    const sharedData = new WeakMap<Content, { readonly data: Record<string, unknown>; readonly json: string }>()

    /** The deliveries a record causes (pure apart from the window and cooldown state). */
    const matchRecord = (m: ChainTxMessage, now: number): Array<NewDelivery> => {
      const facts: RecordFacts = m
      const key = recordKeyOf(m)
      if (m.wallet_label) {
        if (labels.size > 100_000) labels.clear()
        labels.set(m.wallet, m.wallet_label)
      }
      const out: Array<NewDelivery> = []
      // One content per alert type the record matches (whale_trade, exchange_flow, wallet_activity), not per alert.
      const contents = new Map<string, Content>()
      for (const sub of index.matchRecord(m)) {
        if (!isLive(sub, now, muted.get(sub.userId))) continue
        let content = contents.get(sub.spec.type)
        if (content === undefined) contents.set(sub.spec.type, content = contentOfRecord(sub.spec.type as "whale_trade", facts))
        const d = delivery(sub, key, content, m.ts)
        if (d) out.push(d)
      }
      if (m.category === "dex_buy") {
        const at = Date.parse(m.ts)
        window.add(m.token, { wallet: m.wallet, at, usd: m.usd ?? 0, key })
        for (const sub of index.convergenceFor(m)) {
          if (!isLive(sub, now, muted.get(sub.userId))) continue
          const params = (sub.spec as Extract<AlertSpec, { type: "convergence" }>).params
          const c = window.evaluate(sub.id, params, m.token, at)
          if (c === null) continue
          const content = contentOfConvergence(facts, { wallets: c.wallets, totalUsd: c.totalUsd, windowMinutes: params.window_minutes, labels: c.wallets.map((w) => labels.get(w) ?? shortAddress(w)) })
          const d = delivery(sub, `conv:${key}`, content, m.ts)
          if (d) out.push(d)
        }
      }
      return out
    }

    const handleRecord = (m: ChainTxMessage) =>
      Effect.gen(function* () {
        yield* sync
        const items = matchRecord(m, Date.now())
        if (items.length > 0) yield* submit(items)
      })

    const handleRetraction = (m: ChainTxRetraction) =>
      Effect.gen(function* () {
        const key = recordKeyOf(m)
        window.retract(m.token, key)
        yield* repo.retract([key, `conv:${key}`])
      })

    const handleEvent = (e: DomainEvent) =>
      Effect.gen(function* () {
        yield* sync
        const now = Date.now()
        const subs = index.matchEvent(
          e._tag === "IndexValue" ? { _tag: "IndexValue", value: e.value, previous: e.previous }
            : e._tag === "PlaybookEventStatus" ? { _tag: "PlaybookEventStatus", category: e.category, severity: e.severity, status: e.status }
              : { _tag: "PickFlagged", token: e.token.toLowerCase(), symbol: e.symbol, whales: e.whales, conviction: e.conviction }
        ).filter((s) => isLive(s, now, muted.get(s.userId)))
        if (subs.length === 0) return
        const at = e._tag === "PickFlagged" ? e.flagged_at : e.at
        const items = subs.map((sub) => {
          const content = e._tag === "IndexValue"
            ? contentOfIndexCross({ value: e.value, previous: e.previous ?? e.value, at: e.at }, (sub.spec.params as { level: number }).level)
            : e._tag === "PlaybookEventStatus" ? contentOfPlaybook(e) : contentOfPick(e)
          return delivery(sub, `event:${e.messageId}`, content, at)
        }).filter((d): d is NewDelivery => d !== null)
        if (items.length > 0) yield* submit(items)
      })

    return {
      handleRecord, handleRetraction, handleEvent,
      /** For the benchmark and tests: the index as it stands, and the pure matching step. */
      index: () => index,
      matchRecord,
      sync
    } as const
  })
}) {}
