/**
 * Delivery: the notifier actor's work, in rounds. The handlers of one read of `notify` share a round (`Batcher`):
 * one statement claims every pending channel of their deliveries (so a redelivered message finds nothing to send),
 * one reads the users' settings, one counts the users' budgets (`AlertBudget`), one settles the outcomes
 * (`DeliverySettler`). Each channel is a service of its own: `ConsoleChannel`, `EmailChannel`, `MessengerChannel`,
 * `WebhookChannel`. Failed attempts are retried on a schedule (Throttle.ts); an exhausted one goes to `dlq:notify`.
 * Status, attempts and latency (event time → delivered) are recorded per channel. Where the fan-out runs in the
 * notifier's process (the default, and every shard with its own notifier), it records its deliveries claimed and hands
 * them to `sendRecorded` with their content: the same round, without the `notify` message, the claim and the read of
 * what was just written (bench:alerts: the notifier's rounds were most of the time from recorded to sent).
 *
 * Console and email are settled with the round (email: the mail outbox rows and their `sent` in one transaction, so a
 * crash cannot queue a mail twice; console: beside the next round, in a shared statement that a shutdown lets
 * finish). Messenger and webhook sends wait on pacing and on other servers, so the round hands them to the background
 * and returns: one slow endpoint never holds up everyone else's alerts. They stay claimed (`sending`, a lease) until
 * their outcome is settled; a shutdown gives the ones not yet tried back to the retrier, due at once. A row tried just
 * before a crash stays claimed until its lease ends and is then tried again (webhook receivers deduplicate on
 * `webhook-id`).
 */
import { Effect } from "effect"
import type { Channel } from "../../../../schema/http/alerts"
import { makeBatcher } from "../../../platform/infra/Batcher"
import { channelBlocker, DEFAULT_SETTINGS } from "../channels/Model"
import { SettingsRepo } from "../channels/SettingsRepo"
import { AlertsConfig } from "../Config"
import { AlertBudget, type EndedWindow } from "./Budget"
import { ConsoleChannel } from "./Console"
import { DeliveriesRepo, type RecordedRow } from "./DeliveriesRepo"
import { EmailChannel } from "./Email"
import { MessengerChannel } from "./Messenger"
import { untried, type Outcome } from "./Outcome"
import type { DeliveryRow, NewDelivery } from "./Rows"
import { DeliverySettler } from "./Settler"
import { WebhookChannel } from "./Webhook"

/** How long a claimed row stays `sending` before the retrier takes it over (its sender died). */
const LEASE_SECONDS = 300
/** Due retries claimed per retrier round. */
const RETRY_CLAIM = 500
const DIGEST_CHANNELS = ["messenger", "email", "console", "webhook"] as const

export class AlertNotifier extends Effect.Service<AlertNotifier>()("app/AlertNotifier", {
  dependencies: [
    DeliveriesRepo.Default, SettingsRepo.Default, AlertsConfig.Default, AlertBudget.Default, DeliverySettler.Default,
    ConsoleChannel.Default, EmailChannel.Default, MessengerChannel.Default, WebhookChannel.Default
  ],
  effect: Effect.gen(function* () {
    const deliveries = yield* DeliveriesRepo
    const settings = yield* SettingsRepo
    const config = yield* AlertsConfig
    const budgets = yield* AlertBudget
    const settler = yield* DeliverySettler
    const consoleChannel = yield* ConsoleChannel
    const emailChannel = yield* EmailChannel
    const messenger = yield* MessengerChannel
    const webhook = yield* WebhookChannel
    const blockerOpts = { messengerConfigured: messenger.configured }

    /**
     * Sends claimed rows, of any number of users, in one round. `budget`: count them against the users' hourly
     * budgets (first attempts only).
     */
    const sendAll = Effect.fn("AlertNotifier.sendAll")(function* (rows: ReadonlyArray<DeliveryRow>, budget: boolean) {
      if (rows.length === 0) return
      const users = [...new Set(rows.map((r) => r.user_id))].sort((a, b) => a - b)
      const stored = new Map((yield* settings.settingsOf(users)).map((s) => [Number(s.user_id), s]))
      const settingsOf = (userId: number) => stored.get(userId) ?? DEFAULT_SETTINGS(userId)
      const { live, digested } = budget ? yield* budgets.count(rows) : { live: rows, digested: [] }
      const now: Array<Outcome> = [...digested]

      const byChannel: Record<Channel, Array<DeliveryRow>> = { console: [], email: [], messenger: [], webhook: [] }
      for (const r of live) {
        const blocker = channelBlocker(settingsOf(r.user_id), r.channel as Channel, blockerOpts)
        if (blocker !== null) now.push(untried(r, "skipped", blocker))
        else byChannel[r.channel as Channel].push(r)
      }
      // Webhooks first, in the background (settled as they finish): their receivers work while the console is sent.
      yield* webhook.send(byChannel.webhook, settingsOf)
      now.push(...(yield* consoleChannel.send(byChannel.console)))
      const email = yield* emailChannel.compose(byChannel.email)
      now.push(...email.outcomes)
      yield* settler.round(now, email.queue)
      // Messenger (per chat, paced): in the background, settled as it goes.
      yield* messenger.send(byChannel.messenger, settingsOf)
    })

    /** The rounds of `Deliver` messages: every handler of a read adds its ids; one claim, one send round. */
    const deliverRound = makeBatcher<number>((ids) =>
      deliveries.claimPending([...new Set(ids)], LEASE_SECONDS).pipe(Effect.flatMap((rows) => sendAll(rows, true)), Effect.withSpan("AlertNotifier.round")))

    /**
     * Deliveries the caller has just recorded claimed (`recordDeliveries` with `claimSeconds`), sent from their content
     * in memory: no `notify` message, no claim, no read of what was just written. Ones recorded before (`fresh` false:
     * still pending after a crash) are claimed here. Concurrent callers share a round.
     */
    const recordedRound = makeBatcher<DeliveryRow>((rows) => sendAll(rows, true).pipe(Effect.withSpan("AlertNotifier.recordedRound")))
    const sendRecorded = Effect.fn("AlertNotifier.sendRecorded")(function* (recorded: ReadonlyArray<NewDelivery>, owed: ReadonlyArray<RecordedRow>) {
      const byKey = new Map<string, NewDelivery>()
      for (const d of recorded) if (d.alertId !== null) byKey.set(`${d.alertId}\u0000${d.recordKey}`, d)
      const times = new Map<string, Date>()
      const rows: Array<DeliveryRow> = []
      const earlier: Array<number> = []
      for (const o of [...owed].sort((a, b) => a.id - b.id)) {
        const d = o.fresh ? byKey.get(`${o.alert_id}\u0000${o.record_key}`) : undefined
        if (d === undefined) {
          earlier.push(o.id)
          continue
        }
        let eventAt = times.get(d.eventAt)
        if (eventAt === undefined) times.set(d.eventAt, eventAt = new Date(d.eventAt))
        for (const channel of [...d.channels].sort()) {
          rows.push({
            id: o.id, alert_id: d.alertId, user_id: o.user_id, type: d.type, title: d.title, summary: d.summary, data: d.data,
            event_at: eventAt, test: d.test === true, channel, attempts: 0
          })
        }
      }
      const claimed = earlier.length === 0 ? [] : yield* deliveries.claimPending(earlier, LEASE_SECONDS)
      yield* recordedRound(claimed.length === 0 ? rows : [...rows, ...claimed])
    })

    /** The digest of an ended budget window, on every channel of the user's that is ready. */
    const sendDigest = Effect.fn("AlertNotifier.sendDigest")(function* (w: EndedWindow) {
      const content = yield* budgets.digest(w)
      const s = (yield* settings.settings(w.user_id)) ?? DEFAULT_SETTINGS(w.user_id)
      const channels = DIGEST_CHANNELS.filter((c) => channelBlocker(s, c, blockerOpts) === null)
      if (channels.length === 0) return
      const [row] = yield* deliveries.recordDeliveries([{
        alertId: null, userId: w.user_id, type: "digest", recordKey: `digest:${w.user_id}:${w.hour.toISOString()}`, title: content.title,
        summary: content.summary, data: { url: content.url, overflow: w.overflow, window_start: w.hour.toISOString() }, channels,
        eventAt: new Date().toISOString(), status: "pending"
      }])
      yield* sendAll(yield* deliveries.claimPending([row!.id], LEASE_SECONDS), false)
    })

    /** The retrier's round: due retries (and expired leases), then the digests of ended budget windows. */
    const retryRound = Effect.gen(function* () {
      const due = yield* deliveries.claimDue(RETRY_CLAIM, LEASE_SECONDS)
      yield* sendAll(due, false)
      for (const w of yield* budgets.endedWindows()) yield* sendDigest(w)
      return due.length
    }).pipe(Effect.withSpan("AlertNotifier.retryRound"))

    return {
      sendRecorded,
      /** The lease of a claimed channel (`recordDeliveries` claims with it for `sendRecorded`). */
      claimSeconds: LEASE_SECONDS,
      /** A `Deliver` message's deliveries: claim what is still pending, send it (shared with concurrent callers). */
      deliver: Effect.fn("AlertNotifier.deliver")((ids: ReadonlyArray<number>) => deliverRound(ids)),
      retryRound,
      /** How long the alert-retrier waits after a round with nothing due (ALERT_RETRY_POLL_MS). */
      retryPollMs: config.retryPollMs,
      messengerConfigured: messenger.configured
    } as const
  })
}) {}
