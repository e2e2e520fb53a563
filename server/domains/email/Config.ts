/**
 * Settings of the e-mail workspace (environment):
 *
 *   INBOUND_EMAIL_SECRET        shared secret of POST /webhooks/email-inbound (X-Inbound-Secret); AppConfig's: from the
 *                               environment (required in production), else generated into DATA_DIR/secrets.json
 *   EMAIL_WEBHOOK_SECRET        Standard Webhooks secret(s) of POST /webhooks/emailprovider (`whsec_…`; several
 *                               separated by spaces or commas during a rotation); unset = refuse all
 *   EMAIL_REPLY_DOMAIN          domain of reply addresses `reply+<token>@<domain>` (default: MAIL_FROM's domain)
 *   EMAIL_WORKSPACE_FROM        From of workspace mail (default MAIL_FROM)
 *   INBOUND_EMAIL_MAX_BYTES     largest raw inbound message (default 10 MiB); attachments ≤ INBOUND_ATTACHMENT_MAX_BYTES
 *                               (default 8 MiB), at most INBOUND_MAX_ATTACHMENTS (default 20)
 *   EMAIL_BATCH_MAX             contacts one batch-send takes (default 200; the next run takes the rest)
 *   EMAIL_BATCH_COOLDOWN_SECONDS  least time between two batch-sends (default 60)
 */
import { Config, Effect, Option, Redacted } from "effect"
import { AppConfig } from "../../platform/Config"

const optional = (name: string) => Config.option(Config.redacted(name)).pipe(Config.map(Option.getOrUndefined))

export const addressOf = (from: string) => (/<([^>]+)>/.exec(from)?.[1] ?? from).trim()

export class EmailConfig extends Effect.Service<EmailConfig>()("app/EmailConfig", {
  effect: Effect.gen(function* () {
    const app = yield* AppConfig
    const webhookSecrets = yield* optional("EMAIL_WEBHOOK_SECRET")
    const from = (yield* Config.option(Config.nonEmptyString("EMAIL_WORKSPACE_FROM"))).pipe(Option.getOrElse(() => app.mailFrom))
    const replyDomain = (yield* Config.option(Config.nonEmptyString("EMAIL_REPLY_DOMAIN"))).pipe(
      Option.getOrElse(() => addressOf(from).split("@")[1] ?? "localhost")
    )
    return {
      inboundSecret: app.inboundEmailSecret,
      webhookSecrets: webhookSecrets ? Redacted.value(webhookSecrets).split(/[\s,]+/).filter((s) => s.length > 0) : [],
      from,
      replyDomain,
      publicBaseUrl: app.publicBaseUrl,
      sessionSecret: Redacted.value(app.sessionSecret),
      limits: {
        maxRawBytes: yield* Config.integer("INBOUND_EMAIL_MAX_BYTES").pipe(Config.withDefault(10 * 1024 * 1024)),
        maxAttachmentBytes: yield* Config.integer("INBOUND_ATTACHMENT_MAX_BYTES").pipe(Config.withDefault(8 * 1024 * 1024)),
        maxAttachments: yield* Config.integer("INBOUND_MAX_ATTACHMENTS").pipe(Config.withDefault(20))
      },
      batchMax: yield* Config.integer("EMAIL_BATCH_MAX").pipe(Config.withDefault(200)),
      batchCooldownSeconds: yield* Config.integer("EMAIL_BATCH_COOLDOWN_SECONDS").pipe(Config.withDefault(60))
    } as const
  })
}) {}
