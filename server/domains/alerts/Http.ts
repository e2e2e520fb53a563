/** Routes of the alerts domain (spec §4.8): parse → call the service → respond. */
import { Effect, Redacted } from "effect"
import { z } from "zod"
import {
  AcceptedResponse, AlertResponse, ChannelSettings, CreateAlertRequest, CreateCustomWalletRequest, CustomWallet, CustomWalletsResponse,
  DispatchRequest, HistoryQuery, HistoryResponse, InternalTxRequest, ListAlertsResponse, MAX_SNOOZE_HOURS, MessengerChatRequest,
  MessengerChatStatus, MessengerCodeResponse, MessengerVerifyRequest, MessengerVerifyResponse, MuteResponse, SnoozeResponse,
  TestChannelRequest, TestResponse, TestTypeRequest, UpdateAlertRequest, UpdateChannelsRequest, UpdateChannelsResponse
} from "../../../schema/http/alerts"
import { intParam } from "../../../schema/common"
import { AuthGuards } from "../accounts/Guards"
import { AppConfig } from "../../platform/Config"
import { ValidationFailed } from "../../platform/http/Errors"
import { Guard } from "../../platform/http/Guards"
import { route } from "../../platform/http/Route"
import { Alerts } from "./subscriptions/Alerts"
import { Channels } from "./channels/Channels"
import { CustomWallets } from "./wallets/CustomWallets"

const AlertIdParams = z.object({ alert_id: intParam({ min: 1 }) })
const WalletIdParams = z.object({ wallet_id: intParam({ min: 1 }) })
const Hours = intParam({ min: 0, max: MAX_SNOOZE_HOURS })
/** `hours` in the body (JSON or form) or the query string. */
const HoursBody = z.object({ hours: Hours.optional() })
const HoursQuery = z.object({ hours: Hours.optional() })
const hoursOf = (body: { hours?: number | undefined }, query: { hours?: number | undefined }) =>
  body.hours ?? query.hours ?? null
const missingHours = new ValidationFailed({ issues: [{ type: "missing", loc: ["body", "hours"], msg: "Field required", input: null }] })
const Deleted = z.object({ deleted: z.literal(true), id: z.number().int() })

export const AlertRoutes = Effect.gen(function* () {
  const alerts = yield* Alerts
  const channels = yield* Channels
  const wallets = yield* CustomWallets
  const guards = yield* AuthGuards
  const internal = Guard.sharedSecret((yield* AppConfig).internalSecret)
  const tags = ["alerts"]
  const internalTags = ["alerts-internal"]

  return [
    route({
      method: "GET", path: "/api/alerts", summary: "The caller's alerts, the tier's limits and the global mute", tags,
      guard: guards.user, response: ListAlertsResponse, handler: ({ auth }) => alerts.list(auth)
    }),
    route({
      method: "POST", path: "/api/alerts", summary: "Create an alert: {type, params, channels} (403 tier_required, 409 too_many_alerts)", tags,
      guard: guards.user, body: CreateAlertRequest, response: AlertResponse, handler: ({ auth, body }) => alerts.create(auth, body)
    }),
    route({
      method: "PUT", path: "/api/alerts/{alert_id}", summary: "Update an alert's params, channels, name or enabled flag", tags,
      guard: guards.user, params: AlertIdParams, body: UpdateAlertRequest, response: AlertResponse,
      handler: ({ auth, params, body }) => alerts.update(auth, params.alert_id, body)
    }),
    route({
      method: "DELETE", path: "/api/alerts/{alert_id}", summary: "Delete an alert", tags,
      guard: guards.user, params: AlertIdParams, response: Deleted, handler: ({ auth, params }) => alerts.remove(auth, params.alert_id)
    }),
    route({
      method: "POST", path: "/api/alerts/{alert_id}/snooze", summary: `Snooze an alert for hours (0-${MAX_SNOOZE_HOURS}; 0 removes the snooze)`, tags,
      guard: guards.user, params: AlertIdParams, query: HoursQuery, body: HoursBody, response: SnoozeResponse,
      handler: ({ auth, params, body, query }) => {
        const hours = hoursOf(body, query)
        return hours === null ? Effect.fail(missingHours) : alerts.snooze(auth, params.alert_id, hours)
      }
    }),
    route({
      method: "POST", path: "/api/alerts/mute", summary: `Mute every alert for hours (0-${MAX_SNOOZE_HOURS}; 0 unmutes)`, tags,
      guard: guards.user, query: HoursQuery, body: HoursBody, response: MuteResponse,
      handler: ({ auth, body, query }) => {
        const hours = hoursOf(body, query)
        return hours === null ? Effect.fail(missingHours) : alerts.mute(auth, hours)
      }
    }),
    route({
      method: "GET", path: "/api/alerts/history", summary: "Recent deliveries of the caller, newest first, with per-channel status, attempts and latency", tags,
      guard: guards.user, query: HistoryQuery, response: HistoryResponse, handler: ({ auth, query }) => alerts.history(auth, query.limit, query.page)
    }),
    route({
      method: "GET", path: "/api/alerts/channels", summary: "Channel settings: messenger, email, console, webhook; mute, budget, cooldowns", tags,
      guard: guards.user, response: ChannelSettings, handler: ({ auth }) => channels.view(auth)
    }),
    route({
      method: "PUT", path: "/api/alerts/channels", summary: "Update channel settings; a new webhook secret is shown once in this answer", tags,
      guard: guards.user, body: UpdateChannelsRequest, response: UpdateChannelsResponse, handler: ({ auth, body }) => channels.update(auth, body)
    }),
    route({
      method: "POST", path: "/api/alerts/channels/messenger", summary: "A one-time 6-digit code (10 minutes) to send to the bot as /connect <code>", tags,
      guard: guards.user, response: MessengerCodeResponse, handler: ({ auth }) => channels.messengerCode(auth)
    }),
    route({
      method: "POST", path: "/api/alerts/channels/messenger/verify", summary: "Internal (the bot): bind the chat of a /connect <code> to its user", tags: internalTags,
      guard: internal, body: MessengerVerifyRequest, response: MessengerVerifyResponse,
      handler: ({ body }) => channels.messengerVerify(body.code, body.chat_id, body.username ?? null)
    }),
    route({
      method: "POST", path: "/api/alerts/channels/messenger/status", summary: "Internal (the bot): whether a chat is bound, its alert count and mute", tags: internalTags,
      guard: internal, body: MessengerChatRequest, response: MessengerChatStatus, handler: ({ body }) => channels.chatStatus(body.chat_id)
    }),
    route({
      method: "POST", path: "/api/alerts/channels/messenger/disconnect", summary: "Internal (the bot): unbind a chat", tags: internalTags,
      guard: internal, body: MessengerChatRequest, response: z.object({ disconnected: z.boolean() }), handler: ({ body }) => channels.chatDisconnect(body.chat_id)
    }),
    route({
      method: "POST", path: "/api/alerts/test", summary: "Send a test notification on one channel; answers its outcome", tags,
      guard: guards.user, body: TestChannelRequest, response: TestResponse, handler: ({ auth, body }) => channels.test(auth, body.channel)
    }),
    route({
      method: "POST", path: "/api/alerts/test-type", summary: "Send a sample of one alert type on every enabled channel", tags,
      guard: guards.user, body: TestTypeRequest, response: TestResponse, handler: ({ auth, body }) => channels.testType(auth, body.type)
    }),
    route({
      method: "GET", path: "/api/alerts/custom-wallets", summary: "The caller's custom wallets and cap (cap 0 below the whale tier)", tags,
      guard: guards.user, response: CustomWalletsResponse, handler: ({ auth }) => wallets.list(auth)
    }),
    route({
      method: "POST", path: "/api/alerts/custom-wallets", summary: "Monitor a wallet (whale tier; checked address; from the next block)", tags,
      guard: guards.user, body: CreateCustomWalletRequest, response: CustomWallet, handler: ({ auth, body }) => wallets.add(auth, body.address, body.label)
    }),
    route({
      method: "DELETE", path: "/api/alerts/custom-wallets/{wallet_id}", summary: "Stop monitoring a custom wallet", tags,
      guard: guards.user, params: WalletIdParams, response: Deleted, handler: ({ auth, params }) => wallets.remove(auth, params.wallet_id)
    }),
    route({
      method: "POST", path: "/api/alerts/process-tx", summary: "Internal: one raw transaction record onto chain.tx (X-Internal-Secret)", tags: internalTags,
      guard: internal, body: InternalTxRequest, response: AcceptedResponse, handler: ({ body }) => wallets.processTx(body)
    }),
    route({
      method: "POST", path: "/api/alerts/custom-wallet-tx", summary: "Internal: a record of a monitored custom wallet onto chain.tx (X-Internal-Secret)", tags: internalTags,
      guard: internal, body: InternalTxRequest, response: AcceptedResponse, handler: ({ body }) => wallets.customWalletTx(body)
    }),
    route({
      method: "POST", path: "/api/alerts/dispatch", summary: "Internal: a batch of records (chain.tx) or one domain event (domain.events) (X-Internal-Secret)", tags: internalTags,
      guard: internal, body: DispatchRequest, response: AcceptedResponse, handler: ({ body }) => wallets.dispatch(body)
    })
  ]
})

export type { Redacted }
