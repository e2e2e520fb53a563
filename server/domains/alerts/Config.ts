/** The alerts domain's settings (docs/domains/alerts.md); read once, through Effect's `Config`. */
import { Config, Effect, Option, Redacted } from "effect"

/** The most shards the subscription index may be split into. */
export const MAX_SHARDS = 64

export class AlertsConfig extends Effect.Service<AlertsConfig>()("app/AlertsConfig", {
  effect: Effect.gen(function* () {
    const int = (name: string, fallback: number) => Config.integer(name).pipe(Config.withDefault(fallback))
    const token = yield* Config.option(Config.redacted("MESSENGER_BOT_TOKEN"))
    return {
      /** Bot API base (the public one by default; tests point it at a local server). */
      messengerApiBase: (yield* Config.string("MESSENGER_API_BASE").pipe(Config.withDefault("https://api.telegram.org"))).replace(/\/$/, ""),
      messengerBotToken: Option.getOrUndefined(token) as Redacted.Redacted | undefined,
      /** Shown to users in the connect instructions; asked of the Bot API (`getMe`) when unset. */
      messengerBotUsername: Option.getOrUndefined(yield* Config.option(Config.nonEmptyString("MESSENGER_BOT_USERNAME"))),
      /** Sends per second over all chats (the Bot API allows about 30) and the gap between two sends to one chat. */
      messengerGlobalPerSecond: yield* int("MESSENGER_GLOBAL_PER_SECOND", 30),
      messengerPerChatGapMs: yield* int("MESSENGER_PER_CHAT_GAP_MS", 1_000),
      /** Long-poll timeout of the bot's getUpdates (seconds). */
      botPollSeconds: yield* int("MESSENGER_POLL_SECONDS", 25),
      /** Where the bot role reaches the service's internal endpoints; defaults to this process's own HTTP port. */
      serviceUrl: Option.getOrUndefined(yield* Config.option(Config.nonEmptyString("ALERTS_SERVICE_URL"))),
      /** Notifications per user per budget window (one hour); the overflow becomes one digest per window. */
      budgetPerHour: yield* int("ALERTS_BUDGET_PER_HOUR", 30),
      budgetWindowSeconds: yield* int("ALERTS_BUDGET_WINDOW_SECONDS", 3_600),
      /** Outbound webhooks: per-attempt timeout; private and loopback destinations are refused unless allowed. */
      webhookTimeoutMs: yield* int("ALERTS_WEBHOOK_TIMEOUT_MS", 15_000),
      webhookAllowPrivate: yield* Config.boolean("ALERTS_WEBHOOK_ALLOW_PRIVATE").pipe(Config.withDefault(false)),
      /** How often the retrier looks for due retries and finished budget windows. */
      retryPollMs: yield* int("ALERTS_RETRY_POLL_MS", 1_000),
      /** Retry delays are multiplied by this (tests shrink them; 1 in production). */
      retryScale: yield* Config.number("ALERTS_RETRY_SCALE").pipe(Config.withDefault(1)),
      /** The matching index is reloaded whole this often (besides following the change stream). */
      indexReloadSeconds: yield* int("ALERTS_INDEX_RELOAD_SECONDS", 300),
      /** How often the fan-out reads its alerts' owners' tiers again (a downgrade pauses higher alert types). */
      tierRefreshSeconds: yield* int("ALERTS_TIER_REFRESH_SECONDS", 60),
      customWalletCap: yield* int("ALERTS_CUSTOM_WALLET_CAP", 25),
      /**
       * The subscription index split by user into this many shards (`ALERT_SHARDS`, 1..64; see matching/Shard.ts):
       * with more than one, the `alert-shards` actor runs each shard's fan-out and notifier under the shard's lease.
       */
      shards: yield* Config.integer("ALERT_SHARDS").pipe(
        Config.withDefault(1),
        Config.validate({ message: "ALERT_SHARDS must be an integer from 1 to 64", validation: (n) => n >= 1 && n <= MAX_SHARDS })
      )
    } as const
  })
}) {}
