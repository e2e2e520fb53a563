/**
 * The messenger channel: `sendMessage` (HTML) through the Bot API, a message per chat and bundle of up to BUNDLE
 * alerts, in the background (`DeliverySettler.inBackground`, one fiber per chat). Pacing is shared by every notifier
 * process (Kv slots): a chat's slot first (one message per chat per MESSENGER_PER_CHAT_GAP_MS), then, once it is due,
 * the bot's global slot (sends spaced evenly at MESSENGER_GLOBAL_PER_SECOND); the global slot is booked only when the
 * send is due, so one chat's later messages never hold up other chats. A chat whose slot is more than a minute away is
 * given back to the retrier; a short 429 is waited out here, a long one retried later; a 403 (blocked) unbinds the
 * chat and skips its other rows.
 */
import { Effect } from "effect"
import { AppConfig } from "../../../platform/Config"
import { Kv } from "../../../platform/infra/Kv"
import { makeMessengerClient } from "../channels/BotApi"
import type { SettingsRow } from "../channels/SettingsRepo"
import { SettingsRepo } from "../channels/SettingsRepo"
import { AlertsConfig } from "../Config"
import { messengerText } from "../Format"
import { failure, foldedOf, groupByUser, linkOf, ok, outcome, untried } from "./Outcome"
import type { DeliveryRow } from "./Rows"
import { DeliverySettler } from "./Settler"

/** Alerts per message. */
const BUNDLE = 10
/** A chat whose next pacing slot is further away than this is not waited for: its rows are retried then. */
const MAX_PACING_WAIT_MS = 60_000

type MessengerSend =
  | { readonly ok: true }
  | { readonly ok: false; readonly error: string; readonly retryable: boolean; readonly blocked: boolean; readonly deferMs?: number }

export class MessengerChannel extends Effect.Service<MessengerChannel>()("app/AlertMessengerChannel", {
  dependencies: [AlertsConfig.Default, SettingsRepo.Default, DeliverySettler.Default],
  effect: Effect.gen(function* () {
    const config = yield* AlertsConfig
    const app = yield* AppConfig
    const kv = yield* Kv
    const settings = yield* SettingsRepo
    const settler = yield* DeliverySettler
    const messenger = makeMessengerClient(config.messengerApiBase, config.messengerBotToken)
    const chatSlot = (chat: string) => kv.bookSlot([`alerts:pace:chat:${chat}`], [config.messengerPerChatGapMs])
    const globalSlot = kv.bookSlot(["alerts:pace:global"], [Math.ceil(1000 / Math.max(1, config.messengerGlobalPerSecond))])

    /** One messenger send with pacing; a short 429 is waited out and tried again here, a long one is retried later. */
    const sendOne = (chat: string, text: string, tried: () => void): Effect.Effect<MessengerSend> =>
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

    /** One chat's rows, a message per bundle, in order. `tried` marks rows a send was attempted for. */
    const sendChat = (userId: number, chat: string, rows: ReadonlyArray<DeliveryRow>, tried: Set<DeliveryRow>) =>
      Effect.gen(function* () {
        for (let i = 0; i < rows.length; i += BUNDLE) {
          const part = rows.slice(i, i + BUNDLE)
          const text = part.map((r) => messengerText({ title: r.title, summary: r.summary, url: linkOf(r) }, { folded: foldedOf(r), test: r.test, baseUrl: app.publicBaseUrl })).join("\n\n")
          const sent = yield* sendOne(chat, text, () => part.forEach((r) => tried.add(r)))
          if (sent.ok) {
            yield* settler.later(part.map(ok))
            continue
          }
          if (sent.deferMs !== undefined) {
            // Not tried: back to the retrier when the chat has room again (no attempt counted).
            const rest = rows.slice(i)
            rest.forEach((r) => tried.add(r))
            yield* settler.later(rest.map((row) => outcome(row, "retrying", sent.error, sent.deferMs!, false)))
            return
          }
          yield* settler.later(part.map((r) => failure(r, sent.error, sent.retryable, config.retryScale)))
          if (sent.blocked) {
            yield* settings.unbindChat(chat)
            yield* Effect.logWarning(`messenger chat unbound: ${sent.error}`).pipe(Effect.annotateLogs({ user: userId }))
            const rest = rows.slice(i + BUNDLE)
            rest.forEach((r) => tried.add(r))
            yield* settler.later(rest.map((r) => untried(r, "skipped", "messenger chat unbound")))
            return
          }
        }
      })

    return {
      /** Whether the bot is configured (MESSENGER_BOT_TOKEN): without it the channel is blocked for everyone. */
      configured: messenger.configured,

      /** A round's messenger rows (of chats that are bound): each user's chat in the background, settled as it goes. */
      send: Effect.fn("MessengerChannel.send")(function* (rows: ReadonlyArray<DeliveryRow>, settingsOf: (userId: number) => SettingsRow) {
        for (const [u, own] of groupByUser(rows)) {
          yield* settler.inBackground(own, (tried) => sendChat(u, settingsOf(u).messenger_chat_id!, own, tried))
        }
      })
    } as const
  })
}) {}
