/**
 * The webhook channel: signed POSTs (Standard Webhooks, WebhookSignature.ts), a round's alerts for one endpoint in
 * one message per part of up to WEBHOOK_BATCH (one alert: its own message; several: an `alert.batch`), 15 s timeout
 * (WebhookPost.ts). A round's POSTs are one background task (`DeliverySettler.inBackground`) through the process's
 * limiter of WEBHOOK_CONCURRENCY POSTs in flight (plain promises, no fiber per POST); their outcomes are settled as
 * they arrive, many per shared statement, and a POST never waits for another's settling. A 410 disables the endpoint.
 */
import { Effect } from "effect"
import type { AlertType } from "../../../../schema/http/alerts"
import type { SettingsRow } from "../channels/SettingsRepo"
import { SettingsRepo } from "../channels/SettingsRepo"
import { AlertsConfig } from "../Config"
import { webhookBatchBody, webhookBody, type WebhookEvent } from "../Format"
import { failure, groupByUser, linkOf, ok, type Outcome } from "./Outcome"
import type { DeliveryRow } from "./Rows"
import { DeliverySettler } from "./Settler"
import { makeLimiter, postWebhook, statusClass, type PostResult } from "./WebhookPost"
import { batchWebhookId, signedHeaders } from "./WebhookSignature"

/** Webhook POSTs in flight at once, per process. */
const WEBHOOK_CONCURRENCY = 64
/** Alerts per webhook message: a round's alerts for one endpoint go together (`alert.batch`), up to this many a POST. */
const WEBHOOK_BATCH = 50

const eventOf = (r: DeliveryRow): WebhookEvent =>
  ({ id: `alert_${r.id}`, alertId: r.alert_id, type: r.type as AlertType, title: r.title, summary: r.summary, url: linkOf(r), data: r.data, eventAt: r.event_at.toISOString(), test: r.test })

export class WebhookChannel extends Effect.Service<WebhookChannel>()("app/AlertWebhookChannel", {
  dependencies: [AlertsConfig.Default, SettingsRepo.Default, DeliverySettler.Default],
  effect: Effect.gen(function* () {
    const config = yield* AlertsConfig
    const settings = yield* SettingsRepo
    const settler = yield* DeliverySettler
    const postLimit = makeLimiter(WEBHOOK_CONCURRENCY)

    /**
     * A round's webhooks: one signed POST per endpoint and part, their outcomes settled as they arrive. If the round is
     * stopped (a shutdown) or fails, no further POST starts; the ones in flight are retried when their lease ends.
     */
    const round = (rows: ReadonlyArray<DeliveryRow>, settingsOf: (userId: number) => SettingsRow, tried: Set<DeliveryRow>) =>
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
        for (const message of messages) {
          const s = settingsOf(message[0]!.user_id)
          void postLimit(async () => {
            if (stopped) return
            for (const r of message) tried.add(r)
            let res: PostResult
            try {
              const id = message.length === 1 ? `alert_${message[0]!.id}` : batchWebhookId(message.map((r) => r.id))
              const body = message.length === 1 ? webhookBody(eventOf(message[0]!)) : webhookBatchBody(message.map(eventOf))
              res = await postWebhook(s.webhook_url!, signedHeaders(s.webhook_secret!, id, Math.floor(Date.now() / 1000), body), body, config.webhookTimeoutMs, config.webhookAllowPrivate)
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
              return failure(row, "410: endpoint gone; webhook disabled", false, config.retryScale)
            }
            return failure(row, "status" in res ? statusClass(res.status) : res.error, true, config.retryScale)
          }))
          for (const userId of gone) yield* settings.patchSettings(userId, { webhook_enabled: false, webhook_disabled_reason: "endpoint answered 410 Gone" })
          yield* settler.later(outcomes)
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

    return {
      /** A round's webhook rows (of users whose endpoint is set and enabled): one background task, settled as it goes. */
      send: Effect.fn("WebhookChannel.send")(function* (rows: ReadonlyArray<DeliveryRow>, settingsOf: (userId: number) => SettingsRow) {
        if (rows.length === 0) return
        yield* settler.inBackground(rows, (tried) => round(rows, settingsOf, tried))
      })
    } as const
  })
}) {}
