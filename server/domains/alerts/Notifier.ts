/**
 * Delivery: the notifier actor's work. A delivery's pending channels are claimed in the database first (so a
 * redelivered `notify` message finds nothing to send), then sent per channel:
 *  - console   a `UserEvent` (kind `alert`) on `console.user` → the user's `user:<id>` WebSocket topic;
 *  - messenger `sendMessage` (HTML), paced per chat and globally, honouring 429 `retry_after`; several deliveries
 *              of one batch go out as one message; never to an unbound or disabled chat;
 *  - email     one message through the mail outbox (SMTP after commit, with its own retries);
 *  - webhook   one signed POST per delivery (Standard Webhooks), 15 s timeout; 410 disables the endpoint.
 * The per-user hourly budget counts deliveries; the overflow is marked `digested` and the retrier sends ONE digest
 * per user and window after it ends. Failed attempts are retried on a schedule; an exhausted one goes to
 * `dlq:notify`. Status, attempts and latency (event time → delivered) are recorded per channel.
 */
import { Effect } from "effect"
import { STREAMS } from "../../../schema/streams"
import { CONSOLE_STREAMS } from "../../../schema/ws"
import type { AlertType, Channel, ConsoleAlert } from "../../../schema/http/alerts"
import { Accounts } from "../accounts/Accounts"
import { AppConfig } from "../../platform/Config"
import { Bus, deadLetterStream } from "../../platform/infra/Bus"
import { MailOutbox } from "../../platform/infra/MailOutbox"
import { Metrics } from "../../platform/ops/Metrics"
import { AlertsConfig } from "./Config"
import { digestOf, emailOf, messengerText, webhookBody } from "./Format"
import { makeMessengerClient } from "./Messenger"
import { channelBlocker, DEFAULT_SETTINGS } from "./Model"
import { AlertsRepo, type ChannelResult, type DeliveryRow } from "./Repo"
import { EMAIL_RETRY_MS, MESSENGER_RETRY_MS, nextRetryDelay, Pacer, WEBHOOK_RETRY_MS } from "./Throttle"
import { postWebhook } from "./WebhookPost"
import { signedHeaders } from "./Webhooks"

const LEASE_SECONDS = 300
const BUNDLE = 10
const SCHEDULES: Record<Channel, ReadonlyArray<number>> = { messenger: MESSENGER_RETRY_MS, webhook: WEBHOOK_RETRY_MS, email: EMAIL_RETRY_MS, console: [1_000, 5_000] }

export class AlertNotifier extends Effect.Service<AlertNotifier>()("app/AlertNotifier", {
  dependencies: [AlertsRepo.Default, AlertsConfig.Default, Accounts.Default, MailOutbox.Default],
  effect: Effect.gen(function* () {
    const repo = yield* AlertsRepo
    const config = yield* AlertsConfig
    const app = yield* AppConfig
    const bus = yield* Bus
    const outbox = yield* MailOutbox
    const accounts = yield* Accounts
    const metrics = yield* Metrics
    const messenger = makeMessengerClient(config.messengerApiBase, config.messengerBotToken)
    const pacer = new Pacer({ perChatGapMs: config.messengerPerChatGapMs, globalPerSecond: config.messengerGlobalPerSecond })
    const latency = metrics.histogram("alert_delivery_latency_seconds", "Alert latency from the record's block time (or event time) to delivery, by channel",
      [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600])
    const outcomes = metrics.counter("alert_deliveries_total", "Alert channel deliveries by channel and outcome")
    const windowMs = config.budgetWindowSeconds * 1000

    const failure = (row: DeliveryRow, error: string, retryable: boolean): ChannelResult => {
      const delay = retryable ? nextRetryDelay(SCHEDULES[row.channel as Channel], row.attempts + 1) : null
      return delay === null
        ? { deliveryId: row.id, channel: row.channel, status: "failed", error, retryInMs: null, attempted: true }
        : { deliveryId: row.id, channel: row.channel, status: "retrying", error, retryInMs: delay * config.retryScale, attempted: true }
    }
    const ok = (row: DeliveryRow): ChannelResult => ({ deliveryId: row.id, channel: row.channel, status: "sent", error: null, retryInMs: null, attempted: true })
    const url = (row: DeliveryRow) => (typeof row.data.url === "string" ? row.data.url : typeof row.data.tx_hash === "string" ? `https://etherscan.io/tx/${row.data.tx_hash}` : null)
    const folded = (row: DeliveryRow) => (typeof row.data.folded === "number" ? row.data.folded : 0)

    /** One messenger send with pacing; a short 429 is waited out and tried again here, a long one is retried later. */
    const sendMessenger = (chat: string, text: string): Effect.Effect<{ ok: true } | { ok: false; error: string; retryable: boolean; blocked: boolean }> =>
      Effect.gen(function* () {
        for (let attempt = 0; attempt < 3; attempt++) {
          const wait = pacer.reserve(chat, Date.now())
          if (wait > 0) yield* Effect.sleep(wait)
          const r = yield* messenger.call("sendMessage", { chat_id: chat, text, parse_mode: "HTML", disable_web_page_preview: true })
          if (r.ok) return { ok: true as const }
          if (r.status === 429 && r.retryAfter !== null) {
            pacer.backOff(chat, Date.now(), r.retryAfter)
            if (r.retryAfter <= 30) continue
          }
          const blocked = r.status === 403 || (r.status === 400 && /chat not found/i.test(r.description))
          return { ok: false as const, error: `${r.status}: ${r.description}`, retryable: !blocked && (r.network || r.status === 429 || r.status >= 500), blocked }
        }
        return { ok: false as const, error: "429: rate limited", retryable: true, blocked: false }
      })

    /** Sends claimed rows of one user. `budget`: count them against the hourly budget (first attempts only). */
    const sendRows = (userId: number, rows: ReadonlyArray<DeliveryRow>, budget: boolean) =>
      Effect.gen(function* () {
        if (rows.length === 0) return
        const settings = (yield* repo.settings(userId)) ?? DEFAULT_SETTINGS(userId)
        const results: Array<ChannelResult> = []
        let live = rows
        const counted = [...new Set(rows.filter((r) => !r.test && r.type !== "digest").map((r) => r.id))]
        if (budget && counted.length > 0) {
          const hour = new Date(Math.floor(Date.now() / windowMs) * windowMs)
          const used = yield* repo.useBudget(userId, hour, counted.length)
          const allowed = Math.max(0, config.budgetPerHour - (used - counted.length))
          const over = new Set(counted.slice(allowed))
          if (over.size > 0) {
            yield* repo.addOverflow(userId, hour, over.size)
            for (const r of rows) if (over.has(r.id)) results.push({ deliveryId: r.id, channel: r.channel, status: "digested", error: null, retryInMs: null, attempted: false })
            live = rows.filter((r) => !over.has(r.id))
          }
        }
        const byChannel = new Map<Channel, Array<DeliveryRow>>()
        for (const r of live) {
          const blocker = channelBlocker(settings, r.channel as Channel, { messengerConfigured: messenger.configured })
          if (blocker !== null) results.push({ deliveryId: r.id, channel: r.channel, status: "skipped", error: blocker, retryInMs: null, attempted: false })
          else byChannel.set(r.channel as Channel, [...(byChannel.get(r.channel as Channel) ?? []), r])
        }

        const consoleRows = byChannel.get("console") ?? []
        if (consoleRows.length > 0) {
          yield* bus.publishMany(CONSOLE_STREAMS.user, consoleRows.map((r) => ({
            user_id: userId, kind: "alert",
            data: { delivery_id: r.id, alert_id: r.alert_id, type: r.type as AlertType, title: r.title, summary: r.summary, url: url(r), event_at: r.event_at.toISOString(), test: r.test } satisfies ConsoleAlert
          })))
          results.push(...consoleRows.map(ok))
        }

        const messengerRows = byChannel.get("messenger") ?? []
        for (let i = 0; i < messengerRows.length; i += BUNDLE) {
          const part = messengerRows.slice(i, i + BUNDLE)
          const text = part.map((r) => messengerText({ title: r.title, summary: r.summary, url: url(r) }, { folded: folded(r), test: r.test, baseUrl: app.publicBaseUrl })).join("\n\n")
          const sent = yield* sendMessenger(settings.messenger_chat_id!, text)
          if (sent.ok) results.push(...part.map(ok))
          else {
            results.push(...part.map((r) => failure(r, sent.error, sent.retryable)))
            if (sent.blocked) {
              yield* repo.unbindChat(settings.messenger_chat_id!)
              yield* Effect.logWarning(`messenger chat unbound: ${sent.error}`).pipe(Effect.annotateLogs({ user: userId }))
            }
          }
        }

        const emailRows = byChannel.get("email") ?? []
        if (emailRows.length > 0) {
          const me = yield* accounts.me(userId).pipe(Effect.option)
          const address = me._tag === "Some" ? (me.value as { email?: string }).email : undefined
          if (!address) results.push(...emailRows.map((r) => failure(r, "no email address", false)))
          else for (let i = 0; i < emailRows.length; i += BUNDLE) {
            const part = emailRows.slice(i, i + BUNDLE)
            const mails = part.map((r) => emailOf({ title: r.title, summary: r.summary, url: url(r) }, app.publicBaseUrl, { folded: folded(r) }))
            const subject = part.length === 1 ? mails[0]!.subject : `[Whale alert] ${part.length} alerts: ${part[0]!.title}`
            yield* outbox.insert({
              kind: "alert", userId, to: address, subject, sensitive: false,
              text: mails.map((m) => `${m.subject.replace("[Whale alert] ", "")}\n${m.text}`).join("\n\n----\n\n"),
              html: mails.map((m) => m.html).join("<hr>")
            })
            results.push(...part.map(ok))
          }
        }

        for (const r of byChannel.get("webhook") ?? []) {
          const id = `alert_${r.id}`
          const body = webhookBody({ id, alertId: r.alert_id, type: r.type as AlertType, title: r.title, summary: r.summary, url: url(r), data: r.data, eventAt: r.event_at.toISOString(), test: r.test })
          const res = yield* Effect.promise(() =>
            postWebhook(settings.webhook_url!, signedHeaders(settings.webhook_secret!, id, Math.floor(Date.now() / 1000), body), body, config.webhookTimeoutMs, config.webhookAllowPrivate))
          if ("status" in res && res.status >= 200 && res.status < 300) results.push(ok(r))
          else if ("status" in res && res.status === 410) {
            yield* repo.patchSettings(userId, { webhook_enabled: false, webhook_disabled_reason: "endpoint answered 410 Gone" })
            results.push(failure(r, "410: endpoint gone; webhook disabled", false))
          } else results.push(failure(r, "status" in res ? `HTTP ${res.status}` : res.error, true))
        }

        yield* repo.settle(results)
        const now = Date.now()
        for (const res of results) {
          outcomes.inc({ channel: res.channel, status: res.status })
          const row = rows.find((x) => x.id === res.deliveryId && x.channel === res.channel)!
          if (res.status === "sent") latency.observe({ channel: res.channel }, Math.max(0, now - row.event_at.getTime()) / 1000)
          if (res.status === "failed") {
            yield* bus.publish(deadLetterStream(STREAMS.notify), { delivery_id: res.deliveryId, channel: res.channel, user_id: userId, error: res.error ?? "", attempts: row.attempts + 1 })
          }
        }
      }).pipe(Effect.annotateLogs({ user: userId }))

    const groupByUser = (rows: ReadonlyArray<DeliveryRow>) => {
      const m = new Map<number, Array<DeliveryRow>>()
      for (const r of rows) m.set(r.user_id, [...(m.get(r.user_id) ?? []), r])
      return m
    }

    /** A `Deliver` message: claim what is still pending, send it. */
    const deliver = (userId: number, ids: ReadonlyArray<number>) =>
      Effect.gen(function* () {
        const rows = yield* repo.claimPending(ids, LEASE_SECONDS)
        for (const [user, own] of groupByUser(rows)) yield* sendRows(user, own, true)
        void userId
      })

    /** The retrier's round: due retries (and expired leases), then the digests of ended budget windows. */
    const retryRound = Effect.gen(function* () {
      const due = yield* repo.claimDue(200, LEASE_SECONDS)
      yield* Effect.forEach(groupByUser(due), ([user, own]) => sendRows(user, own, false), { concurrency: 8, discard: true })
      const windowStart = Math.floor(Date.now() / windowMs) * windowMs
      for (const d of yield* repo.claimDigests(new Date(windowStart))) {
        const items = yield* repo.digestedIn(d.user_id, d.hour, new Date(d.hour.getTime() + windowMs + 60_000))
        const content = digestOf(items, d.overflow, d.hour.getTime())
        const settings = (yield* repo.settings(d.user_id)) ?? DEFAULT_SETTINGS(d.user_id)
        const channels = (["messenger", "email", "console", "webhook"] as const).filter((c) => channelBlocker(settings, c, { messengerConfigured: messenger.configured }) === null)
        if (channels.length === 0) continue
        const [row] = yield* repo.recordDeliveries([{
          alertId: null, userId: d.user_id, type: "digest", recordKey: `digest:${d.user_id}:${d.hour.toISOString()}`, title: content.title,
          summary: content.summary, data: { url: content.url, overflow: d.overflow, window_start: d.hour.toISOString() }, channels,
          eventAt: new Date().toISOString(), status: "pending"
        }])
        yield* sendRows(d.user_id, yield* repo.claimPending([row!.id], LEASE_SECONDS), false)
      }
      return due.length
    })

    return { deliver, retryRound, messengerConfigured: messenger.configured } as const
  })
}) {}
