/**
 * Channel settings (messenger, email, console, webhook), the messenger connect flow (a one-time 6-digit code the
 * user sends to the bot as `/connect <code>`; the bot calls `verify`), and test notifications.
 */
import { createHmac, randomInt, randomUUID } from "node:crypto"
import { Effect, Redacted } from "effect"
import { deliverMessage, STREAMS } from "../../../../schema/streams"
import type { AlertType, Channel, UpdateChannelsRequest } from "../../../../schema/http/alerts"
import type { AuthUser } from "../../accounts/Model"
import { AppConfig } from "../../../platform/Config"
import { Bus } from "../../../platform/infra/Bus"
import { Kv } from "../../../platform/infra/Kv"
import { resolveOutbound } from "../../../platform/infra/Outbound"
import { AlertsConfig } from "../Config"
import { DeliveriesRepo } from "../delivery/DeliveriesRepo"
import { newWebhookSecret } from "../delivery/WebhookSignature"
import { AlertTierRequired } from "../Errors"
import { lowestTierFor, policyOf } from "../Policy"
import { AlertChanges } from "../subscriptions/Changes"
import { SubscriptionsRepo } from "../subscriptions/SubscriptionsRepo"
import { makeMessengerClient } from "./BotApi"
import { ChannelUnavailable, CodeInvalid, MessengerNotConfigured, TooManyAttempts, TooManyCodes, WebhookUrlRefused } from "./Errors"
import { channelBlocker, DEFAULT_SETTINGS, toChannelSettings } from "./Model"
import { sampleContent } from "./Samples"
import { SettingsRepo } from "./SettingsRepo"

const CODE_TTL_MS = 10 * 60_000
/** Codes a user may request per hour, and wrong codes a chat may try per 10 minutes. */
const CODES_PER_HOUR = 10
const VERIFY_TRIES = 5

export class Channels extends Effect.Service<Channels>()("app/AlertChannels", {
  dependencies: [SettingsRepo.Default, SubscriptionsRepo.Default, DeliveriesRepo.Default, AlertChanges.Default, AlertsConfig.Default],
  effect: Effect.gen(function* () {
    const deliveries = yield* DeliveriesRepo
    const repo = yield* SettingsRepo
    const subscriptions = yield* SubscriptionsRepo
    const config = yield* AlertsConfig
    const app = yield* AppConfig
    const changes = yield* AlertChanges
    const bus = yield* Bus
    const kv = yield* Kv
    const messenger = makeMessengerClient(config.messengerApiBase, config.messengerBotToken)
    const codeHash = (code: string) => createHmac("sha256", Redacted.value(app.internalSecret)).update(`messenger-code:${code}`).digest("hex")

    let botUsername: string | null = config.messengerBotUsername ?? null
    const botName = Effect.suspend(() => {
      if (botUsername !== null || !messenger.configured) return Effect.succeed(botUsername)
      return messenger.call("getMe", {}, 5_000).pipe(Effect.map((r) => {
        if (r.ok) botUsername = (r.result as { username?: string }).username ?? null
        return botUsername
      }))
    })

    const settingsOf = (userId: number) => repo.settings(userId).pipe(Effect.map((s) => s ?? DEFAULT_SETTINGS(userId)))

    const view = Effect.fn("Channels.view")(function* (user: AuthUser) {
      const s = yield* settingsOf(user.id)
      return toChannelSettings(s, { email: user.email, botUsername: yield* botName, configured: messenger.configured, budgetPerHour: config.budgetPerHour })
    })

    /** Refuses, at save time, URLs the webhook sender would refuse (platform/infra/Outbound.ts): 422 on the URL. */
    const checkWebhookUrl = (raw: string) =>
      Effect.gen(function* () {
        const outbound = yield* Effect.promise(() => resolveOutbound(raw, { allowPrivate: config.webhookAllowPrivate }))
        if (outbound.ok) return
        const loc = ["body", "webhook", "url"]
        if (outbound.reason === "unresolvable") {
          return yield* new WebhookUrlRefused({ message: `Cannot resolve ${new URL(raw).hostname}`, code: "webhook_url_unresolvable", loc, input: raw })
        }
        return yield* new WebhookUrlRefused({
          message: "Webhook URLs must reach a public address (not loopback, private, link-local, reserved or multicast, in any spelling)",
          code: "webhook_url_private", loc, input: raw
        })
      })

    const requireChannel = (user: AuthUser, channel: Channel) => {
      if ((policyOf(user.tier).channels as ReadonlyArray<string>).includes(channel)) return Effect.void
      const required = lowestTierFor({ channel })
      return Effect.fail(new AlertTierRequired({ what: `The ${channel} channel`, required, tier: user.tier }))
    }

    /** Queues a test delivery and waits (up to 10 s) for its outcome per channel. */
    const sendTest = (user: AuthUser, type: AlertType, channels: ReadonlyArray<Channel>) =>
      Effect.gen(function* () {
        const content = sampleContent(type)
        const [d] = yield* deliveries.recordDeliveries([{
          alertId: null, userId: user.id, type, recordKey: `test:${randomUUID()}`, title: content.title, summary: content.summary,
          data: { ...content.data, url: content.url }, channels, eventAt: new Date().toISOString(), status: "pending", test: true
        }])
        yield* bus.publish(STREAMS.notify, deliverMessage(user.id, [d!.id], Date.now()))
        const deadline = Date.now() + 10_000
        while (true) {
          const [item] = (yield* deliveries.history(user.id, 20, 0)).filter((h) => h.id === d!.id)
          const settled = item && item.channels.every((c) => !["pending", "sending"].includes(c.status))
          if (settled || Date.now() > deadline) {
            return { sent: (item?.channels ?? []).map((c) => ({ channel: c.channel as Channel, status: c.status, detail: c.error })) }
          }
          yield* Effect.sleep("100 millis")
        }
      })

    return {
      view,

      update: Effect.fn("Channels.update")(function* (user: AuthUser, body: UpdateChannelsRequest) {
        if (body.messenger?.enabled) yield* requireChannel(user, "messenger")
        const hook = body.webhook
        if (hook && (hook.enabled || hook.url || hook.rotate_secret)) yield* requireChannel(user, "webhook")
        if (hook?.url) yield* checkWebhookUrl(hook.url)
        const current = yield* settingsOf(user.id)
        const url = hook?.url !== undefined ? hook.url : current.webhook_url
        const needSecret = url !== null && (current.webhook_secret === null || hook?.rotate_secret === true)
        const secret = needSecret ? newWebhookSecret() : undefined
        if (hook?.enabled === true && url === null) {
          return yield* new WebhookUrlRefused({
            message: "Set a webhook URL before enabling the webhook channel", code: "webhook_not_configured", loc: ["body", "webhook", "enabled"], input: true
          })
        }
        yield* repo.patchSettings(user.id, {
          messenger_enabled: body.messenger?.enabled,
          email_enabled: body.email?.enabled,
          console_enabled: body.console?.enabled,
          webhook_url: hook?.url,
          webhook_secret: secret,
          // A new URL or an explicit enable clears an earlier automatic disable (410).
          webhook_enabled: hook?.enabled ?? (hook?.url ? true : hook?.url === null ? false : undefined),
          webhook_disabled_reason: hook?.url !== undefined || hook?.enabled === true ? null : undefined
        })
        yield* changes.announce("user", user.id)
        return { ...(yield* view(user)), ...(secret ? { webhook_secret: secret } : {}) }
      }),

      messengerCode: Effect.fn("Channels.messengerCode")(function* (user: AuthUser) {
        yield* requireChannel(user, "messenger")
        if (!messenger.configured) return yield* new MessengerNotConfigured()
        const issued = yield* kv.incrWindow(`alerts:codes:${user.id}`, 3600)
        if (issued > CODES_PER_HOUR) {
          return yield* new TooManyCodes({ max: CODES_PER_HOUR, retryAfterSeconds: yield* kv.ttl(`alerts:codes:${user.id}`) })
        }
        for (let attempt = 0; attempt < 5; attempt++) {
          const code = String(randomInt(0, 1_000_000)).padStart(6, "0")
          const expires = new Date(Date.now() + CODE_TTL_MS)
          if (yield* repo.putCode(user.id, codeHash(code), expires)) {
            const bot = yield* botName
            return {
              code, expires_at: expires.toISOString(), bot_username: bot,
              instructions: `Open ${bot ? `@${bot}` : "the service's bot"} in the messenger and send: /connect ${code} (valid 10 minutes, once)`
            }
          }
        }
        return yield* Effect.die(new Error("could not draw an unused connect code"))
      }),

      /** Internal (the bot): binds the chat of a `/connect <code>` to the code's user. */
      messengerVerify: Effect.fn("Channels.messengerVerify")(function* (code: string, chatId: string, username: string | null) {
        const tries = yield* kv.incrWindow(`alerts:verify:${chatId}`, 600)
        if (tries > VERIFY_TRIES) {
          return yield* new TooManyAttempts({ retryAfterSeconds: yield* kv.ttl(`alerts:verify:${chatId}`) })
        }
        const userId = yield* repo.takeCode(codeHash(code))
        if (userId === null) return yield* new CodeInvalid()
        const displaced = yield* repo.bindChat(userId, chatId, username)
        yield* kv.del(`alerts:verify:${chatId}`)
        for (const other of [userId, ...displaced]) yield* changes.announce("user", other)
        yield* Effect.logInfo("messenger connected").pipe(Effect.annotateLogs({ user: userId }))
        return { connected: true as const, user_id: userId }
      }),

      chatStatus: Effect.fn("Channels.chatStatus")(function* (chatId: string) {
        const s = yield* repo.byChat(chatId)
        if (s === null) return { connected: false, alerts: 0, muted_until: null }
        return {
          connected: true,
          alerts: yield* subscriptions.countOf(s.user_id),
          muted_until: s.muted_until && s.muted_until.getTime() > Date.now() ? s.muted_until.toISOString() : null
        }
      }),

      chatDisconnect: Effect.fn("Channels.chatDisconnect")(function* (chatId: string) {
        const userId = yield* repo.unbindChat(chatId)
        if (userId !== null) yield* changes.announce("user", userId)
        return { disconnected: userId !== null }
      }),

      test: Effect.fn("Channels.test")(function* (user: AuthUser, channel: Channel) {
        yield* requireChannel(user, channel)
        const blocker = channelBlocker(yield* settingsOf(user.id), channel, { messengerConfigured: messenger.configured })
        if (blocker !== null) return yield* new ChannelUnavailable({ channel, reason: blocker })
        return yield* sendTest(user, "whale_trade", [channel])
      }),

      testType: Effect.fn("Channels.testType")(function* (user: AuthUser, type: AlertType) {
        const s = yield* settingsOf(user.id)
        const ready = policyOf(user.tier).channels.filter((c) => channelBlocker(s, c, { messengerConfigured: messenger.configured }) === null)
        if (ready.length === 0) return yield* new ChannelUnavailable({ channel: "any channel", reason: "none is enabled and connected" })
        return yield* sendTest(user, type, ready)
      }),

      messengerConfigured: messenger.configured
    } as const
  })
}) {}
