/**
 * Delivery: the notifier actor's work, in rounds. The handlers of one read of `notify` share a round (`Batcher`):
 * one statement claims every pending channel of their deliveries (so a redelivered message finds nothing to send),
 * one reads the users' settings, one counts the users' budgets, one settles the outcomes. Per channel:
 *  - console   a `UserEvent` (kind `alert`) on `console.user` → the user's `user:<id>` WebSocket topic;
 *  - messenger `sendMessage` (HTML), paced per chat and globally, honouring 429 `retry_after`; several deliveries
 *              of one batch go out as one message; never to an unbound or disabled chat;
 *  - email     one message through the mail outbox (SMTP after commit, with its own retries);
 *  - webhook   signed POSTs (Standard Webhooks), 15 s timeout; a round's alerts for one endpoint go in one message
 *              (one alert: its own; several: an `alert.batch` of up to 50); 410 disables the endpoint; a round's
 *              POSTs share one fiber and the process's limit of POSTs in flight.
 * The per-user hourly budget counts deliveries; the overflow is marked `digested` and the retrier sends ONE digest
 * per user and window after it ends. Failed attempts are retried on a schedule; an exhausted one goes to
 * `dlq:notify`. Status, attempts and latency (event time → delivered) are recorded per channel.
 *
 * Email is settled inside the round (the mail outbox rows and their `sent` in one transaction, so a crash cannot
 * queue a mail twice); console sends are settled beside the next round, in a shared statement that a shutdown lets
 * finish. Messenger and webhook sends wait on pacing and on other servers, so the round
 * hands them to background fibers and returns: one slow endpoint never holds up everyone else's alerts. They stay
 * claimed (`sending`, a lease) until their outcome is settled, in shared statements; a shutdown gives the ones not
 * yet tried back to the retrier, due at once. A row tried just before a crash stays claimed until its lease ends and
 * is then tried again (webhook receivers deduplicate on `webhook-id`).
 */
import { SqlClient } from "@effect/sql"
import { Effect, FiberSet } from "effect"
import { STREAMS } from "../../../schema/streams"
import { CONSOLE_STREAMS } from "../../../schema/ws"
import type { AlertType, Channel, ConsoleAlert } from "../../../schema/http/alerts"
import { Accounts } from "../accounts/Accounts"
import { AppConfig } from "../../platform/Config"
import { Bus, deadLetterStream } from "../../platform/infra/Bus"
import { Kv } from "../../platform/infra/Kv"
import { MailOutbox } from "../../platform/infra/MailOutbox"
import { Metrics, type Cell, type Series } from "../../platform/ops/Metrics"
import { makeBatcher } from "../../platform/infra/Batcher"
import { BudgetRepo } from "./delivery/BudgetRepo"
import { DeliveriesRepo } from "./delivery/DeliveriesRepo"
import type { ChannelResult, DeliveryRow } from "./delivery/Rows"
import { SettingsRepo, type SettingsRow } from "./channels/SettingsRepo"
import { AlertsConfig } from "./Config"
import { digestOf, emailOf, EXPLORER, messengerText, webhookBatchBody, webhookBody, type WebhookEvent } from "./Format"
import { makeMessengerClient } from "./channels/BotApi"
import { channelBlocker, DEFAULT_SETTINGS } from "./channels/Model"
import { EMAIL_RETRY_MS, MESSENGER_RETRY_MS, nextRetryDelay, WEBHOOK_RETRY_MS } from "./Throttle"
import { makeLimiter, postWebhook, statusClass, type PostResult } from "./delivery/WebhookPost"
import { batchWebhookId, signedHeaders } from "./delivery/WebhookSignature"

const LEASE_SECONDS = 300
const BUNDLE = 10
/** Webhook POSTs in flight at once, per process. */
const WEBHOOK_CONCURRENCY = 64
/** Alerts per webhook message: a round's alerts for one endpoint go together (`alert.batch`), up to this many a POST. */
const WEBHOOK_BATCH = 50
/** Messenger and webhook sends handed to the background at once, per process; past it a round waits for room. */
const MAX_BACKGROUND = 20_000
/** A chat whose next pacing slot is further away than this is not waited for: its rows are retried then. */
const MAX_PACING_WAIT_MS = 60_000
const SCHEDULES: Record<Channel, ReadonlyArray<number>> = { messenger: MESSENGER_RETRY_MS, webhook: WEBHOOK_RETRY_MS, email: EMAIL_RETRY_MS, console: [1_000, 5_000] }

/** Rows by user, in the order of their first row (one pass: a round holds thousands of rows of hundreds of users). */
const groupByUser = (rows: ReadonlyArray<DeliveryRow>) => {
  const out = new Map<number, Array<DeliveryRow>>()
  for (const r of rows) {
    const own = out.get(r.user_id)
    if (own === undefined) out.set(r.user_id, [r])
    else own.push(r)
  }
  return out
}

/** A channel row and its outcome. */
interface Outcome {
  readonly row: DeliveryRow
  readonly result: ChannelResult
}

type MessengerSend =
  | { readonly ok: true }
  | { readonly ok: false; readonly error: string; readonly retryable: boolean; readonly blocked: boolean; readonly deferMs?: number }

export class AlertNotifier extends Effect.Service<AlertNotifier>()("app/AlertNotifier", {
  dependencies: [BudgetRepo.Default, DeliveriesRepo.Default, SettingsRepo.Default, AlertsConfig.Default, Accounts.Default, MailOutbox.Default],
  scoped: Effect.gen(function* () {
    const budgetRepo = yield* BudgetRepo
    const deliveriesRepo = yield* DeliveriesRepo
    const settingsRepo = yield* SettingsRepo
    const config = yield* AlertsConfig
    const app = yield* AppConfig
    const bus = yield* Bus
    const sql = yield* SqlClient.SqlClient
    const outbox = yield* MailOutbox
    const accounts = yield* Accounts
    const metrics = yield* Metrics
    const messenger = makeMessengerClient(config.messengerApiBase, config.messengerBotToken)
    const kv = yield* Kv
    /**
     * Messenger pacing, shared by every notifier process (Kv slots): a chat's slot first (one message per chat per
     * MESSENGER_PER_CHAT_GAP_MS), then, once it is due, the bot's global slot (sends spaced evenly at
     * MESSENGER_GLOBAL_PER_SECOND). The global slot is booked only when the send is due, so one chat's later messages
     * never hold up other chats.
     */
    const chatSlot = (chat: string) => kv.bookSlot([`alerts:pace:chat:${chat}`], [config.messengerPerChatGapMs])
    const globalSlot = kv.bookSlot(["alerts:pace:global"], [Math.ceil(1000 / Math.max(1, config.messengerGlobalPerSecond))])
    const latency = metrics.histogram("alert_delivery_latency_seconds", "Alert latency from the record's block time (or event time) to delivery, by channel",
      [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600])
    const counter = metrics.counter("alert_deliveries_total", "Alert channel deliveries by channel and outcome")
    const windowMs = config.budgetWindowSeconds * 1000
    const background = yield* FiberSet.make()
    const room = yield* Effect.makeSemaphore(MAX_BACKGROUND)
    const postLimit = makeLimiter(WEBHOOK_CONCURRENCY)

    /** A row's outcome; its delivery's event time goes with it (a sent channel's latency is measured from it). */
    const outcome = (row: DeliveryRow, status: ChannelResult["status"], error: string | null, retryInMs: number | null, attempted: boolean): Outcome =>
      ({ row, result: { deliveryId: row.id, channel: row.channel, status, error, retryInMs, attempted, eventMs: row.event_at.getTime() } })
    const failure = (row: DeliveryRow, error: string, retryable: boolean): Outcome => {
      const delay = retryable ? nextRetryDelay(SCHEDULES[row.channel as Channel], row.attempts + 1) : null
      return delay === null ? outcome(row, "failed", error, null, true) : outcome(row, "retrying", error, delay * config.retryScale, true)
    }
    const ok = (row: DeliveryRow): Outcome => outcome(row, "sent", null, null, true)
    const untried = (row: DeliveryRow, status: "digested" | "skipped", error: string | null): Outcome => outcome(row, status, error, null, false)
    // `url` is the content's link, null where there is none (a demo transaction); deliveries stored before it was kept
    // fall back to the explorer page of their transaction.
    const url = (row: DeliveryRow) =>
      typeof row.data.url === "string" ? row.data.url : !("url" in row.data) && typeof row.data.tx_hash === "string" ? `${EXPLORER}/tx/${row.data.tx_hash}` : null
    const folded = (row: DeliveryRow) => (typeof row.data.folded === "number" ? row.data.folded : 0)

    /** After the outcomes are stored: metrics, and the exhausted ones copied to the dead-letter stream. */
    const report = (outcomes: ReadonlyArray<Outcome>) =>
      Effect.gen(function* () {
        const now = Date.now()
        const dead: Array<Record<string, unknown>> = []
        // A report holds thousands of outcomes of a few channels and statuses: their samples are looked up once.
        const counts = new Map<string, Cell>()
        const series = new Map<string, Series>()
        for (const { row, result } of outcomes) {
          const key = `${result.channel}\u0000${result.status}`
          let cell = counts.get(key)
          if (cell === undefined) counts.set(key, cell = counter.cell({ channel: result.channel, status: result.status }))
          cell.value++
          if (result.status === "sent") {
            let s = series.get(result.channel)
            if (s === undefined) series.set(result.channel, s = latency.seriesOf({ channel: result.channel }))
            latency.record(s, Math.max(0, now - row.event_at.getTime()) / 1000)
          }
          if (result.status === "failed") {
            dead.push({ delivery_id: row.id, channel: row.channel, user_id: row.user_id, error: result.error ?? "", attempts: row.attempts + 1 })
          }
        }
        if (dead.length > 0) yield* bus.publishMany(deadLetterStream(STREAMS.notify), dead)
      })

    /** Settles the background sends' outcomes: concurrent sends share one statement. */
    const settleLater = makeBatcher<Outcome>((outcomes) =>
      deliveriesRepo.settle(outcomes.map((o) => o.result)).pipe(Effect.zipRight(report(outcomes))))

    /** One messenger send with pacing; a short 429 is waited out and tried again here, a long one is retried later. */
    const sendMessenger = (chat: string, text: string, tried: () => void): Effect.Effect<MessengerSend> =>
      Effect.gen(function* () {
        for (let attempt = 0; attempt < 3; attempt++) {
          const wait = yield* chatSlot(chat)
          if (wait > MAX_PACING_WAIT_MS) return { ok: false as const, error: "paced: chat busy", retryable: true, blocked: false, deferMs: wait }
          if (wait > 0) yield* Effect.sleep(wait)
          const global = yield* globalSlot
          if (global > 0) yield* Effect.sleep(global)
          tried()
          const r = yield* messenger.call("sendMessage", { chat_id: chat, text, parse_mode: "HTML", disable_web_page_preview: true })
          if (r.ok) return { ok: true as const }
          if (r.status === 429 && r.retryAfter !== null) {
            yield* kv.holdUntil([`alerts:pace:chat:${chat}`], Date.now() + Math.max(1, r.retryAfter) * 1000)
            if (r.retryAfter <= 30) continue
          }
          const blocked = r.status === 403 || (r.status === 400 && /chat not found/i.test(r.description))
          return { ok: false as const, error: `${r.status}: ${r.description}`, retryable: !blocked && (r.network || r.status === 429 || r.status >= 500), blocked }
        }
        return { ok: false as const, error: "429: rate limited", retryable: true, blocked: false }
      })

    /** One chat's messenger rows, a message per bundle, in order. `tried` marks rows a send was attempted for. */
    const messengerChat = (userId: number, chat: string, rows: ReadonlyArray<DeliveryRow>, tried: Set<DeliveryRow>) =>
      Effect.gen(function* () {
        for (let i = 0; i < rows.length; i += BUNDLE) {
          const part = rows.slice(i, i + BUNDLE)
          const text = part.map((r) => messengerText({ title: r.title, summary: r.summary, url: url(r) }, { folded: folded(r), test: r.test, baseUrl: app.publicBaseUrl })).join("\n\n")
          const sent = yield* sendMessenger(chat, text, () => part.forEach((r) => tried.add(r)))
          if (sent.ok) {
            yield* settleLater(part.map(ok))
            continue
          }
          if (sent.deferMs !== undefined) {
            // Not tried: back to the retrier when the chat has room again (no attempt counted).
            const rest = rows.slice(i)
            rest.forEach((r) => tried.add(r))
            yield* settleLater(rest.map((row) => outcome(row, "retrying", sent.error, sent.deferMs!, false)))
            return
          }
          yield* settleLater(part.map((r) => failure(r, sent.error, sent.retryable)))
          if (sent.blocked) {
            yield* settingsRepo.unbindChat(chat)
            yield* Effect.logWarning(`messenger chat unbound: ${sent.error}`).pipe(Effect.annotateLogs({ user: userId }))
            const rest = rows.slice(i + BUNDLE)
            rest.forEach((r) => tried.add(r))
            yield* settleLater(rest.map((r) => untried(r, "skipped", "messenger chat unbound")))
            return
          }
        }
      })

    /**
     * A round's webhooks: one signed POST per endpoint and part of up to WEBHOOK_BATCH of its alerts (one alert: its
     * own message; several: an `alert.batch`), through the process's limiter (plain promises, no fiber per POST),
     * their outcomes settled as they arrive, many per shared statement; a POST never waits for another's settling. If
     * the round is stopped (a shutdown) or fails, no further POST starts; the ones in flight are retried when their
     * lease ends.
     */
    const webhookRound = (rows: ReadonlyArray<DeliveryRow>, settingsOf: (userId: number) => SettingsRow, tried: Set<DeliveryRow>) =>
      Effect.suspend(() => {
        const messages: Array<ReadonlyArray<DeliveryRow>> = []
        for (const own of groupByUser(rows).values()) for (let i = 0; i < own.length; i += WEBHOOK_BATCH) messages.push(own.slice(i, i + WEBHOOK_BATCH))
        const arrived: Array<{ readonly rows: ReadonlyArray<DeliveryRow>; readonly res: PostResult }> = []
        let left = messages.length
        let stopped = false
        let wake: (() => void) | null = null
        const arrive = () => {
          const w = wake
          wake = null
          w?.()
        }
        const eventOf = (r: DeliveryRow): WebhookEvent =>
          ({ id: `alert_${r.id}`, alertId: r.alert_id, type: r.type as AlertType, title: r.title, summary: r.summary, url: url(r), data: r.data, eventAt: r.event_at.toISOString(), test: r.test })
        for (const message of messages) {
          const settings = settingsOf(message[0]!.user_id)
          void postLimit(async () => {
            if (stopped) return
            for (const r of message) tried.add(r)
            let res: PostResult
            try {
              const id = message.length === 1 ? `alert_${message[0]!.id}` : batchWebhookId(message.map((r) => r.id))
              const body = message.length === 1 ? webhookBody(eventOf(message[0]!)) : webhookBatchBody(message.map(eventOf))
              res = await postWebhook(settings.webhook_url!, signedHeaders(settings.webhook_secret!, id, Math.floor(Date.now() / 1000), body), body, config.webhookTimeoutMs, config.webhookAllowPrivate)
            } catch (error) {
              // Building or signing the request failed (postWebhook itself never throws): a failed attempt, retried.
              res = { error: `could not send: ${error instanceof Error ? error.message : String(error)}` }
            }
            arrived.push({ rows: message, res })
          }).finally(() => {
            left--
            arrive()
          })
        }
        const settleArrived = Effect.gen(function* () {
          const batch = arrived.splice(0)
          const gone = new Set<number>()
          const outcomes = batch.flatMap(({ rows: sent, res }) => sent.map((row): Outcome => {
            if ("status" in res && res.status >= 200 && res.status < 300) return ok(row)
            if ("status" in res && res.status === 410) {
              gone.add(row.user_id)
              return failure(row, "410: endpoint gone; webhook disabled", false)
            }
            return failure(row, "status" in res ? statusClass(res.status) : res.error, true)
          }))
          for (const userId of gone) yield* settingsRepo.patchSettings(userId, { webhook_enabled: false, webhook_disabled_reason: "endpoint answered 410 Gone" })
          yield* settleLater(outcomes)
        })
        const waitForMore = Effect.async<void>((resume) => {
          if (arrived.length > 0 || left === 0) return resume(Effect.void)
          wake = () => resume(Effect.void)
          return Effect.sync(() => {
            wake = null
          })
        })
        return Effect.whileLoop({
          while: () => left > 0 || arrived.length > 0,
          body: () => waitForMore.pipe(Effect.zipRight(settleArrived)),
          step: () => undefined
        }).pipe(Effect.ensuring(Effect.sync(() => {
          // Stopped or failed (its rows go back to the retrier): no further POST starts.
          stopped = true
        })))
      })

    /**
     * Runs a slow send in the background, holding room for its rows; if it is stopped (a shutdown) the rows it never
     * tried go back to the retrier, due now.
     */
    const inBackground = (rows: ReadonlyArray<DeliveryRow>, send: (tried: Set<DeliveryRow>) => Effect.Effect<void>) =>
      Effect.gen(function* () {
        const permits = Math.min(rows.length, MAX_BACKGROUND)
        yield* room.take(permits)
        const tried = new Set<DeliveryRow>()
        const work = send(tried).pipe(
          Effect.onInterrupt(() =>
            deliveriesRepo.release(rows.filter((r) => !tried.has(r)).map((r) => ({ deliveryId: r.id, channel: r.channel }))).pipe(Effect.catchAllCause(Effect.logError))),
          Effect.catchAllCause((cause) => Effect.logError("alert send failed; its rows are retried when their lease ends", cause)),
          Effect.ensuring(room.release(permits))
        )
        yield* FiberSet.run(background, work)
      })

    /**
     * Sends claimed rows, of any number of users, in one round. `budget`: count them against the users' hourly
     * budgets (first attempts only).
     */
    const sendAll = (rows: ReadonlyArray<DeliveryRow>, budget: boolean) =>
      Effect.gen(function* () {
        if (rows.length === 0) return
        const users = [...new Set(rows.map((r) => r.user_id))].sort((a, b) => a - b)
        const stored = new Map((yield* settingsRepo.settingsOf(users)).map((s) => [Number(s.user_id), s]))
        const settingsOf = (userId: number) => stored.get(userId) ?? DEFAULT_SETTINGS(userId)
        const now: Array<Outcome> = []
        let live = rows

        if (budget) {
          // Deliveries (not channel rows) count, once each.
          const counted = new Map<number, Array<number>>()
          const seen = new Set<number>()
          for (const r of rows) {
            if (r.test || r.type === "digest" || seen.has(r.id)) continue
            seen.add(r.id)
            const ids = counted.get(r.user_id)
            if (ids === undefined) counted.set(r.user_id, [r.id])
            else ids.push(r.id)
          }
          const countedUsers = [...counted.keys()].sort((a, b) => a - b)
          if (countedUsers.length > 0) {
            const hour = new Date(Math.floor(Date.now() / windowMs) * windowMs)
            const used = yield* budgetRepo.useBudgets(hour, countedUsers, countedUsers.map((u) => counted.get(u)!.length))
            const over = new Set<number>()
            const overUsers: Array<number> = []
            for (const u of countedUsers) {
              const ids = counted.get(u)!
              const after = used.get(u) ?? ids.length
              const fold = ids.slice(Math.max(0, config.budgetPerHour - (after - ids.length)))
              if (fold.length === 0) continue
              overUsers.push(u)
              for (const id of fold) over.add(id)
            }
            if (overUsers.length > 0) {
              yield* budgetRepo.addOverflows(hour, overUsers, overUsers.map((u) => counted.get(u)!.filter((id) => over.has(id)).length))
              for (const r of rows) if (over.has(r.id)) now.push(untried(r, "digested", null))
              live = rows.filter((r) => !over.has(r.id))
            }
          }
        }

        const byChannel: Record<Channel, Array<DeliveryRow>> = { console: [], email: [], messenger: [], webhook: [] }
        for (const r of live) {
          const blocker = channelBlocker(settingsOf(r.user_id), r.channel as Channel, { messengerConfigured: messenger.configured })
          if (blocker !== null) now.push(untried(r, "skipped", blocker))
          else byChannel[r.channel as Channel].push(r)
        }

        // Console: one publish for every user of the round.
        if (byChannel.console.length > 0) {
          yield* bus.publishMany(CONSOLE_STREAMS.user, byChannel.console.map((r) => ({
            user_id: r.user_id, kind: "alert",
            data: { delivery_id: r.id, alert_id: r.alert_id, type: r.type as AlertType, title: r.title, summary: r.summary, url: url(r), event_at: r.event_at.toISOString(), test: r.test } satisfies ConsoleAlert
          })))
          now.push(...byChannel.console.map(ok))
        }

        // Email: a mail per user and bundle, queued in the outbox in the transaction that settles the round.
        const mails: Array<Parameters<typeof outbox.insert>[0]> = []
        const emailRows = groupByUser(byChannel.email)
        const emailUsers = [...emailRows.keys()]
        const addresses = new Map(yield* Effect.forEach(emailUsers, (u) =>
          accounts.me(u).pipe(Effect.option, Effect.map((me) => [u, me._tag === "Some" ? (me.value as { email?: string }).email : undefined] as const)), { concurrency: 8 }))
        for (const u of emailUsers) {
          const own = emailRows.get(u)!
          const address = addresses.get(u)
          if (!address) {
            now.push(...own.map((r) => failure(r, "no email address", false)))
            continue
          }
          for (let i = 0; i < own.length; i += BUNDLE) {
            const part = own.slice(i, i + BUNDLE)
            const content = part.map((r) => emailOf({ title: r.title, summary: r.summary, url: url(r) }, app.publicBaseUrl, { folded: folded(r) }))
            mails.push({
              kind: "alert", userId: u, to: address, sensitive: false,
              subject: part.length === 1 ? content[0]!.subject : `[Whale alert] ${part.length} alerts: ${part[0]!.title}`,
              text: content.map((m) => `${m.subject.replace("[Whale alert] ", "")}\n${m.text}`).join("\n\n----\n\n"),
              html: content.map((m) => m.html).join("<hr>")
            })
            now.push(...part.map(ok))
          }
        }

        if (mails.length > 0) {
          yield* sql.withTransaction(Effect.forEach(mails, outbox.insert, { discard: true }).pipe(Effect.zipRight(deliveriesRepo.settle(now.map((o) => o.result))))).pipe(Effect.orDie)
          yield* report(now)
        } else if (now.length > 0) {
          // Nothing to commit with them: settled beside the next round (shared statements), not before it. Not
          // interrupted by a shutdown, so what was sent is recorded as sent.
          yield* FiberSet.run(background, settleLater(now).pipe(
            Effect.catchAllCause((cause) => Effect.logError("settling alert sends failed; their rows are retried when their lease ends", cause)),
            Effect.uninterruptible))
        }

        // Messenger (per chat, paced) and webhooks: in the background, settled as they finish.
        for (const [u, own] of groupByUser(byChannel.messenger)) {
          yield* inBackground(own, (tried) => messengerChat(u, settingsOf(u).messenger_chat_id!, own, tried))
        }
        if (byChannel.webhook.length > 0) {
          const own = byChannel.webhook
          yield* inBackground(own, (tried) => webhookRound(own, settingsOf, tried))
        }
      })

    /** The rounds of `Deliver` messages: every handler of a read adds its ids; one claim, one send round. */
    const deliverRound = makeBatcher<number>((ids) =>
      deliveriesRepo.claimPending([...new Set(ids)], LEASE_SECONDS).pipe(Effect.flatMap((rows) => sendAll(rows, true))))

    /** The retrier's round: due retries (and expired leases), then the digests of ended budget windows. */
    const retryRound = Effect.gen(function* () {
      const due = yield* deliveriesRepo.claimDue(500, LEASE_SECONDS)
      yield* sendAll(due, false)
      const windowStart = Math.floor(Date.now() / windowMs) * windowMs
      for (const d of yield* budgetRepo.claimDigests(new Date(windowStart))) {
        const items = yield* budgetRepo.digestedIn(d.user_id, d.hour, new Date(d.hour.getTime() + windowMs + 60_000))
        const content = digestOf(items, d.overflow, d.hour.getTime())
        const settings = (yield* settingsRepo.settings(d.user_id)) ?? DEFAULT_SETTINGS(d.user_id)
        const channels = (["messenger", "email", "console", "webhook"] as const).filter((c) => channelBlocker(settings, c, { messengerConfigured: messenger.configured }) === null)
        if (channels.length === 0) continue
        const [row] = yield* deliveriesRepo.recordDeliveries([{
          alertId: null, userId: d.user_id, type: "digest", recordKey: `digest:${d.user_id}:${d.hour.toISOString()}`, title: content.title,
          summary: content.summary, data: { url: content.url, overflow: d.overflow, window_start: d.hour.toISOString() }, channels,
          eventAt: new Date().toISOString(), status: "pending"
        }])
        yield* sendAll(yield* deliveriesRepo.claimPending([row!.id], LEASE_SECONDS), false)
      }
      return due.length
    })

    return {
      /** A `Deliver` message's deliveries: claim what is still pending, send it (shared with concurrent callers). */
      deliver: (ids: ReadonlyArray<number>) => deliverRound(ids),
      retryRound,
      /** How long the alert-retrier waits after a round with nothing due (ALERT_RETRY_POLL_MS). */
      retryPollMs: config.retryPollMs,
      messengerConfigured: messenger.configured
    } as const
  })
}) {}
