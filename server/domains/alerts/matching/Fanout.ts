/**
 * The fan-out: matches `chain.tx` records and `domain.events` to subscriptions through the live index (`AlertIndex`),
 * and records one delivery per (alert, record) — the unique key makes a redelivered record a no-op — then publishes
 * what is owed on `notify`, a user's deliveries together.
 *
 * A read of `chain.tx` is handled in one call: one sync of the index, the records matched synchronously (the
 * per-record step, `matchRecord`, is a plain function: no Effect, no span), then one round of writes per run of
 * records, shared with the other handlers of the moment (`makeBatcher`): convergence judged over the shared window
 * (`AlertConvergence`), cooldowns decided (`AlertCooldowns`), deliveries recorded and sent — by this process's
 * notifier when it runs here (recorded claimed, no `notify` hop), else published on `notify`. A 2,400-record block
 * costs a few statements, not thousands.
 */
import { Effect } from "effect"
import { type NotifyStream, deliverManyMessage, isRetraction, STREAMS, type ChainTxMessage, type ChainTxRetraction, type DomainEvent } from "../../../../schema/streams"
import { Bus } from "../../../platform/infra/Bus"
import { makeBatcher } from "../../../platform/infra/Batcher"
import { AlertsConfig } from "../Config"
import { AlertConvergence, type Buy } from "../convergence/Convergence"
import { DeliveriesRepo, type RecordedRow } from "../delivery/DeliveriesRepo"
import { AlertNotifier } from "../delivery/Notifier"
import { recordKeyOf, type NewDelivery } from "../delivery/Rows"
import { contentOfIndexCross, contentOfPick, contentOfPlaybook, contentOfRecord, type Content, type RecordFacts } from "../Format"
import { SubscriptionsRepo } from "../subscriptions/SubscriptionsRepo"
import { DEFAULT_COOLDOWNS } from "../Throttle"
import { AlertCooldowns } from "./Cooldowns"
import { AlertIndex, type AlertIndexShape } from "./AlertIndex"
import { deliveryOf } from "./Delivery"
import { Folds } from "./Folds"
import { AlertWalletFacts } from "./WalletFacts"

/** Delivery ids per `notify` message (several notifier processes share a block's by taking messages). */
const NOTIFY_CHUNK = 500
/** Deliveries recorded per statement, and statements at once (on as many connections). */
const RECORD_CHUNK = 1000
const RECORD_PARALLEL = 2

/**
 * Items in parts of about `size`, every alert's items together and in their order (an alert with more than `size`
 * matches is a part of its own).
 */
export const partsByAlert = (items: ReadonlyArray<NewDelivery>, size: number): Array<Array<NewDelivery>> => {
  const byAlert = new Map<number | null, Array<NewDelivery>>()
  for (const item of items) {
    const own = byAlert.get(item.alertId)
    if (own === undefined) byAlert.set(item.alertId, [item])
    else own.push(item)
  }
  const parts: Array<Array<NewDelivery>> = []
  let part: Array<NewDelivery> = []
  for (const own of byAlert.values()) {
    if (part.length > 0 && part.length + own.length > size) {
      parts.push(part)
      part = []
    }
    for (const item of own) part.push(item)
  }
  if (part.length > 0) parts.push(part)
  return parts
}

/** What a run of handled messages adds to a round. */
interface Matched {
  /** Sent from this process (its notifier's round) rather than published on `notify`. */
  readonly local: boolean
  readonly items: ReadonlyArray<NewDelivery>
  readonly buys: ReadonlyArray<Buy>
  /** Further matches folded into an item at match time (same alert, same block time), counted, not built. */
  readonly extras: ReadonlyMap<NewDelivery, number>
}

/**
 * The fan-out of one index: `notifyStream` is where its deliveries go (`notify`, or the shard's own `notify.<k>` so
 * that a shard's notifier work follows its shard; see matching/Shard.ts).
 */
export const makeAlertFanout = (alertIndex: AlertIndexShape, cooldowns: Pick<AlertCooldowns, "decide">, notifyStream: NotifyStream) =>
  Effect.gen(function* () {
    const convergence = yield* AlertConvergence
    const deliveries = yield* DeliveriesRepo
    const subscriptions = yield* SubscriptionsRepo
    const walletFacts = yield* AlertWalletFacts
    const bus = yield* Bus
    const notifier = yield* AlertNotifier
    const { live, ownLabels } = alertIndex

    /**
     * Records deliveries in parts of RECORD_CHUNK, RECORD_PARALLEL at a time. `local` (the notifier runs in this
     * process): written claimed, and what is owed is returned for this process's notifier round; else each part's owed
     * deliveries are published on `notify` as soon as it is written (the notifier starts on the first while the next
     * are written) and none are returned.
     */
    const record = Effect.fn("AlertFanout.record")(function* (items: ReadonlyArray<NewDelivery>, local: boolean) {
      const owed: Array<RecordedRow> = []
      const parts: Array<ReadonlyArray<NewDelivery>> = []
      for (let i = 0; i < items.length; i += RECORD_CHUNK) parts.push(items.slice(i, i + RECORD_CHUNK))
      yield* Effect.forEach(parts, (part) =>
        Effect.gen(function* () {
          if (local) {
            for (const row of yield* deliveries.recordDeliveries(part, notifier.claimSeconds)) owed.push(row)
            return
          }
          const written = yield* deliveries.recordDeliveries(part)
          // Few large messages (a user's deliveries together): the notifier handles a read of them in one round.
          const ids = [...written].sort((a, b) => a.user_id - b.user_id || a.id - b.id).map((d) => d.id)
          const messages = []
          for (let j = 0; j < ids.length; j += NOTIFY_CHUNK) messages.push(deliverManyMessage(ids.slice(j, j + NOTIFY_CHUNK)))
          if (messages.length > 0) yield* bus.publishMany(notifyStream, messages)
        }), { concurrency: RECORD_PARALLEL, discard: true })
      return owed
    })

    /**
     * The handlers of one read share one write: the cooldowns of their matches and the convergence windows of their
     * buys decided, their deliveries recorded, the owed ones sent in one round of this process's notifier (or published
     * on `notify`).
     */
    const submit = makeBatcher<Matched>((matched) =>
      Effect.gen(function* () {
        const extras = new Map<NewDelivery, number>()
        for (const m of matched) for (const [item, n] of m.extras) extras.set(item, n)
        const local = matched.every((m) => m.local)
        const recorded: Array<NewDelivery> = []
        const owed: Array<RecordedRow> = []
        const write = (items: ReadonlyArray<NewDelivery>) =>
          Effect.map(record(items, local), (rows) => {
            for (const i of items) recorded.push(i)
            for (const r of rows) owed.push(r)
          })
        // The cooldowns decided part by part (all of an alert's matches in one part, in order: the gates are per
        // alert), each part written while the next is decided. Beside them convergence (no cooldown; its window read
        // and fires taken in the database): neither holds up the other.
        yield* Effect.all([
          Effect.forEach(partsByAlert(matched.flatMap((m) => m.items), RECORD_CHUNK),
            (part) => Effect.flatMap(cooldowns.decide(part, extras), write), { concurrency: RECORD_PARALLEL, discard: true }),
          convergence.judge(matched.flatMap((m) => m.buys)).pipe(Effect.flatMap((items) => cooldowns.decide(items, new Map())), Effect.flatMap(write))
        ], { concurrency: 2, discard: true })
        // One round for all of them: a round's fixed costs (its statements, one webhook POST per endpoint, one
        // messenger bundle per chat) are paid once, and the machine is busy with this block anyway (when it is not,
        // the round is small and quick).
        if (local) yield* notifier.sendRecorded(recorded, owed)
        // After the deliveries are stored (the cooldown's floor after a restart must never be ahead of them).
        const fired = recorded.filter((i) => i.status === "pending" && i.alertId !== null)
        yield* subscriptions.touchFired(fired.map((i) => i.alertId!), fired.map((i) => i.eventAt))
      }).pipe(Effect.withSpan("AlertFanout.round")))

    /**
     * The deliveries a record causes, but for convergence (decided per round over the shared window). With `folds`
     * (a run of records), a further match of an alert with a cooldown at the same block time is only counted on the
     * first one: the cooldown gate would fold it anyway, and a block matches a broad alert hundreds of times.
     */
    const matchRecord = (m: ChainTxMessage, now: number, folds?: Folds): Array<NewDelivery> => {
      const facts: RecordFacts = m
      const key = recordKeyOf(m)
      const out: Array<NewDelivery> = []
      // One content per alert type the record matches (whale_trade, exchange_flow, wallet_activity), not per alert; an
      // owner of the wallet as a labelled custom wallet gets their own, saying their label (no one else sees it).
      const contents = new Map<string, Content>()
      const owners = ownLabels(m.wallet)
      for (const matched of alertIndex.current().matchRecord(m)) {
        const foldable = folds !== undefined && DEFAULT_COOLDOWNS[matched.spec.type] > 0
        const fold = foldable ? folds.find(matched, m.ts) : undefined
        if (fold !== undefined) {
          fold.extra++
          continue
        }
        const sub = live(matched, now)
        if (sub === null) continue
        const label = owners === undefined ? undefined : owners.get(sub.userId)
        const contentKey = label === undefined ? sub.spec.type : `${sub.spec.type}\u0000${label}`
        let content = contents.get(contentKey)
        if (content === undefined) {
          // Who the wallet is and why (class, label with its source), as the identity engine holds it (issue 28).
          contents.set(contentKey, content = contentOfRecord(
            sub.spec.type as "whale_trade", label === undefined ? facts : { ...facts, wallet_label: label }, walletFacts.peek(m.wallet)
          ))
        }
        const item = deliveryOf(sub, key, content, m.ts)
        if (foldable) folds.add({ sub: matched, ts: m.ts, first: item, extra: 0 })
        out.push(item)
      }
      return out
    }

    /** The convergence alerts a buy is for (null: none, or not a buy). */
    const buyOf = (m: ChainTxMessage, now: number): Buy | null => {
      if (m.category !== "dex_buy") return null
      const subs = alertIndex.current().convergenceFor(m).flatMap((sub) => live(sub, now) ?? [])
      const at = Date.parse(m.ts)
      return subs.length === 0 || !Number.isFinite(at) ? null : { m, at, subs }
    }

    const handleRetraction = Effect.fn("AlertFanout.handleRetraction")(function* (m: ChainTxRetraction) {
      const key = recordKeyOf(m)
      yield* convergence.retract(key)
      yield* deliveries.retract([key, `conv:${key}`])
    })

    /**
     * A read of `chain.tx` in stream order, in one call: one sync, the records matched synchronously, one round of
     * writes per run of records (a retraction is handled after the records before it are written).
     */
    const handleMessages = Effect.fn("AlertFanout.handleMessages")(function* (messages: ReadonlyArray<ChainTxMessage | ChainTxRetraction>, local = false) {
      yield* alertIndex.sync
      // The wallets' identities for the alerts' text: one query for the read's wallets not known in the last minutes.
      yield* walletFacts.prime(messages.flatMap((m) => (isRetraction(m) ? [] : [m.wallet])))
      const now = Date.now()
      let items: Array<NewDelivery> = []
      let buys: Array<Buy> = []
      let folds = new Folds(alertIndex.current().slots)
      const flush = Effect.suspend(() => {
        if (items.length === 0 && buys.length === 0) return Effect.void
        const taken: Matched = { local, items, buys, extras: folds.extras() }
        items = []
        buys = []
        folds = new Folds(alertIndex.current().slots)
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

    const handleEvent = Effect.fn("AlertFanout.handleEvent")(function* (e: DomainEvent, local = false) {
      yield* alertIndex.sync
      const now = Date.now()
      const subs = alertIndex.current().matchEvent(
        e._tag === "IndexValue" ? { _tag: "IndexValue", value: e.value, previous: e.previous }
          : e._tag === "PlaybookEventStatus" ? { _tag: "PlaybookEventStatus", category: e.category, severity: e.severity, status: e.status }
            : { _tag: "PickFlagged", token: e.token.toLowerCase(), symbol: e.symbol, whales: e.whales, conviction: e.conviction }
      ).flatMap((s) => live(s, now) ?? [])
      if (subs.length === 0) return
      const at = e._tag === "PickFlagged" ? e.flagged_at : e.at
      // One content per event (per level crossed for the index): its thousand deliveries share it, and its JSON.
      const contents = new Map<number, Content>()
      const contentFor = (level: number) => {
        let content = contents.get(level)
        if (content === undefined) {
          contents.set(level, content = e._tag === "IndexValue"
            ? contentOfIndexCross({ value: e.value, previous: e.previous ?? e.value, at: e.at }, level)
            : e._tag === "PlaybookEventStatus" ? contentOfPlaybook(e) : contentOfPick(e))
        }
        return content
      }
      const items = subs.map((sub) =>
        deliveryOf(sub, `event:${e.messageId}`, contentFor(e._tag === "IndexValue" ? (sub.spec.params as { level: number }).level : 0), at))
      if (items.length > 0) yield* submit([{ local, items, buys: [], extras: new Map() }])
    })

    return {
      handleMessages, handleRetraction, handleEvent,
      /** For the benchmark and tests: the index as it stands, the pure matching step, and the index's sync. */
      index: alertIndex.current,
      matchRecord,
      sync: alertIndex.sync
    } as const
  })

export class AlertFanout extends Effect.Service<AlertFanout>()("app/AlertFanout", {
  dependencies: [AlertsConfig.Default, AlertIndex.Default, AlertCooldowns.Default, AlertConvergence.Default, DeliveriesRepo.Default, SubscriptionsRepo.Default, AlertWalletFacts.Default, AlertNotifier.Default],
  effect: Effect.gen(function* () {
    const fanout = yield* makeAlertFanout(yield* AlertIndex, yield* AlertCooldowns, STREAMS.notify)
    /** ALERT_SHARDS: with more than one, each shard's fan-out runs instead of this one (matching/Shards.ts). */
    return { ...fanout, shards: (yield* AlertsConfig).shards } as const
  })
}) {}
