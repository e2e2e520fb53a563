/**
 * The messenger bot (the `bot` role): long-polls the Bot API's `getUpdates`, answers `/start`, `/connect <code>`,
 * `/status`, `/disconnect` and `/help` in private chats, and binds chats through the service's internal endpoints
 * (`POST /api/alerts/channels/messenger/verify` and friends, `X-Internal-Secret`) when `ALERTS_SERVICE_URL` is
 * set — a bot process then needs only the service's URL and the shared secret — or, without it, through the same
 * `Channels` service those endpoints call, in process. The update offset is confirmed only after an update was answered, so a
 * crash re-reads it (binding is idempotent). Without `MESSENGER_BOT_TOKEN` it idles and says why.
 *
 * It is a process of the alerts module (`MessengerBotProcess`), not an actor of the `actors` role: WHALE_ACTORS does
 * not select it. It registers in the actor registry all the same, so `/readyz` and the ops page show it.
 */
import { Effect, Redacted, Schedule } from "effect"
import { z } from "zod"
import { ActorRegistry, type ActorHandle } from "../../../platform/actors/Registry"
import { AppConfig } from "../../../platform/Config"
import type { Process } from "../../../platform/Module"
import { AlertsConfig } from "../Config"
import { Channels } from "./Channels"
import { makeMessengerClient } from "./BotApi"

/** The parts of an Update the bot reads (the rest of the object is ignored). */
export const BotUpdate = z.object({
  update_id: z.number().int(),
  message: z.object({
    message_id: z.number().int(),
    chat: z.object({ id: z.number().int(), type: z.string() }),
    from: z.object({ id: z.number().int(), username: z.string().optional() }).optional(),
    text: z.string().optional()
  }).optional()
})
export type BotUpdate = z.infer<typeof BotUpdate>

export const HELP = [
  "I send your Whale Intelligence alerts here.",
  "",
  "/connect <code> link this chat to your account (get the 6-digit code on the Alerts page)",
  "/status whether this chat is linked",
  "/disconnect stop alerts in this chat",
  "/help this message"
].join("\n")

export type Command = { readonly name: "start" | "connect" | "status" | "disconnect" | "help" | "unknown" | "text"; readonly arg: string }

/** `/connect@botname 123456` → connect, "123456". */
export const parseCommand = (text: string): Command => {
  const m = /^\/(\w+)(?:@\w+)?(?:\s+(.*))?$/s.exec(text.trim())
  if (!m) return { name: "text", arg: text }
  const name = m[1]!.toLowerCase()
  const known = ["start", "connect", "status", "disconnect", "help"] as const
  return { name: (known as ReadonlyArray<string>).includes(name) ? (name as Command["name"]) : "unknown", arg: (m[2] ?? "").trim() }
}

export const runBot = (actor: ActorHandle) =>
  Effect.gen(function* () {
    const config = yield* AlertsConfig
    const app = yield* AppConfig
    const channels = yield* Channels
    if (config.messengerBotToken === undefined) {
      actor.update({ state: "standby", lastError: "idle: MESSENGER_BOT_TOKEN is not set, so the messenger bot does not run" })
      yield* Effect.logInfo("messenger bot idle: MESSENGER_BOT_TOKEN is not set")
      return yield* Effect.never
    }
    const client = makeMessengerClient(config.messengerApiBase, config.messengerBotToken)
    const secret = Redacted.value(app.internalSecret)

    /** The internal endpoint's answer (status and body), over HTTP or from the service in process. */
    const inProcess = (path: string, body: Record<string, any>): Effect.Effect<{ status: number; body: Record<string, unknown> }, unknown> => {
      const chat = String(body.chat_id)
      const run = path === "verify" ? channels.messengerVerify(body.code, chat, body.username ?? null)
        : path === "status" ? channels.chatStatus(chat) : channels.chatDisconnect(chat)
      return (run as Effect.Effect<Record<string, unknown>, { _tag: string }>).pipe(
        Effect.map((b) => ({ status: 200, body: b })),
        Effect.catchAll((e) => Effect.succeed({ status: e._tag === "CodeInvalid" ? 404 : e._tag === "TooManyAttempts" ? 429 : 500, body: { code: e._tag } }))
      )
    }
    const internal = (path: string, body: Record<string, any>) =>
      config.serviceUrl === undefined ? inProcess(path, body) : Effect.tryPromise(async () => {
        const base = config.serviceUrl!
        const res = await fetch(`${base}/api/alerts/channels/messenger/${path}`, {
          method: "POST", headers: { "content-type": "application/json", "x-internal-secret": secret }, body: JSON.stringify(body),
          signal: AbortSignal.timeout(10_000)
        })
        return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, unknown> }
      })

    const reply = (chat: number, text: string) => client.call("sendMessage", { chat_id: chat, text, disable_web_page_preview: true })

    const answer = (u: BotUpdate): Effect.Effect<unknown, unknown> =>
      Effect.gen(function* () {
        const msg = u.message
        if (!msg || msg.text === undefined) return
        const chat = msg.chat.id
        if (msg.chat.type !== "private") return yield* reply(chat, "Alerts are delivered to private chats only: message me directly.")
        const parsed = parseCommand(msg.text)
        // A deep link `t.me/<bot>?start=<code>` arrives as `/start <code>`: the same as `/connect <code>`.
        const cmd: Command = parsed.name === "start" && /^\d{6}$/.test(parsed.arg) ? { name: "connect", arg: parsed.arg } : parsed
        switch (cmd.name) {
          case "start":
            return yield* reply(chat, `Welcome! ${HELP}`)
          case "help":
            return yield* reply(chat, HELP)
          case "connect": {
            if (!/^\d{6}$/.test(cmd.arg)) return yield* reply(chat, "Send /connect followed by the 6-digit code from the Alerts page, e.g. /connect 123456")
            const r = yield* internal("verify", { code: cmd.arg, chat_id: chat, username: msg.from?.username ?? null })
            if (r.status === 200) return yield* reply(chat, "✅ Connected. Your alerts will arrive in this chat. /status shows the link, /disconnect ends it.")
            if (r.status === 429) return yield* reply(chat, "Too many attempts from this chat. Wait a few minutes, then try again with a fresh code.")
            if (r.status === 404) return yield* reply(chat, "That code is unknown or expired. Get a new one on the Alerts page (codes last 10 minutes and work once).")
            return yield* Effect.fail(new Error(`verify answered ${r.status}`))
          }
          case "status": {
            const r = yield* internal("status", { chat_id: chat })
            if (r.status !== 200) return yield* Effect.fail(new Error(`status answered ${r.status}`))
            const b = r.body as { connected?: boolean; alerts?: number; muted_until?: string | null }
            return yield* reply(chat, b.connected
              ? `This chat is connected: ${b.alerts} alert${b.alerts === 1 ? "" : "s"} configured${b.muted_until ? `, muted until ${b.muted_until}` : ""}.`
              : "This chat is not connected. Use /connect <code> with the code from the Alerts page.")
          }
          case "disconnect": {
            const r = yield* internal("disconnect", { chat_id: chat })
            if (r.status !== 200) return yield* Effect.fail(new Error(`disconnect answered ${r.status}`))
            return yield* reply(chat, (r.body as { disconnected?: boolean }).disconnected ? "Disconnected. No more alerts here." : "This chat was not connected.")
          }
          default:
            return yield* reply(chat, `I did not understand that. ${HELP}`)
        }
      })

    yield* client.call("deleteWebhook", {})
    actor.update({ state: "running" })
    let offset = 0
    for (;;) {
      actor.heartbeat()
      const r = yield* client.call("getUpdates", { offset, timeout: config.botPollSeconds, allowed_updates: ["message"] }, (config.botPollSeconds + 10) * 1000)
      if (!r.ok) {
        yield* Effect.logWarning(`getUpdates failed: ${r.description}`)
        yield* Effect.sleep(r.retryAfter !== null ? r.retryAfter * 1000 : 2_000)
        continue
      }
      for (const raw of Array.isArray(r.result) ? r.result : []) {
        const parsed = BotUpdate.safeParse(raw)
        const id = (raw as { update_id?: number }).update_id
        if (parsed.success) {
          yield* answer(parsed.data).pipe(
            Effect.retry(Schedule.exponential("200 millis").pipe(Schedule.compose(Schedule.recurs(3)))),
            Effect.catchAllCause((cause) => Effect.logWarning("bot could not answer an update", cause))
          )
          actor.handled()
        }
        if (typeof id === "number") offset = Math.max(offset, id + 1)
      }
    }
  }).pipe(Effect.annotateLogs({ actor: "messenger-bot" }))

/** The bot as a process of the `bot` role, registered as `messenger-bot`; run again 2 s after it fails. */
export const MessengerBotProcess: Process = {
  name: "messenger-bot",
  roles: ["bot"],
  run: Effect.gen(function* () {
    const registry = yield* ActorRegistry
    const actor = registry.register("messenger-bot", "loop")
    for (;;) {
      yield* runBot(actor).pipe(Effect.catchAllCause((cause) => Effect.sync(() => actor.failed(cause)).pipe(Effect.zipRight(Effect.logError("messenger bot stopped", cause)))))
      actor.update({ state: "restarting" })
      yield* Effect.sleep("2 seconds")
    }
  })
}
