/** Routes of the alerts domain (spec §4.8): parse → call the service → respond. Contracts: schema/http/alerts.ts. */
import { Effect } from "effect"
import { AlertEndpoints as E } from "../../../schema/http/alerts"
import { AuthGuards } from "../accounts/Guards"
import { AppConfig } from "../../platform/Config"
import { ValidationFailed } from "../../platform/http/Errors"
import { Guard } from "../../platform/http/Guards"
import { route } from "../../platform/http/Route"
import { Alerts } from "./subscriptions/Alerts"
import { Channels } from "./channels/Channels"
import { CustomWallets } from "./wallets/CustomWallets"

/** `hours` from the body (JSON or form), else the query string. */
const hoursOf = (body: { hours?: number | undefined }, query: { hours?: number | undefined }) =>
  body.hours ?? query.hours ?? null
const missingHours = new ValidationFailed({ issues: [{ type: "missing", loc: ["body", "hours"], msg: "Field required", input: null }] })

export const AlertRoutes = Effect.gen(function* () {
  const alerts = yield* Alerts
  const channels = yield* Channels
  const wallets = yield* CustomWallets
  const guards = yield* AuthGuards
  const user = guards.user
  const internal = Guard.sharedSecret((yield* AppConfig).internalSecret)

  return [
    route(E.list, { guard: user, handler: ({ auth }) => alerts.list(auth) }),
    route(E.create, { guard: user, handler: ({ auth, body }) => alerts.create(auth, body) }),
    route(E.update, { guard: user, handler: ({ auth, params, body }) => alerts.update(auth, params.alert_id, body) }),
    route(E.remove, { guard: user, handler: ({ auth, params }) => alerts.remove(auth, params.alert_id) }),
    route(E.snooze, {
      guard: user,
      handler: ({ auth, params, body, query }) => {
        const hours = hoursOf(body, query)
        return hours === null ? Effect.fail(missingHours) : alerts.snooze(auth, params.alert_id, hours)
      }
    }),
    route(E.mute, {
      guard: user,
      handler: ({ auth, body, query }) => {
        const hours = hoursOf(body, query)
        return hours === null ? Effect.fail(missingHours) : alerts.mute(auth, hours)
      }
    }),
    route(E.history, { guard: user, handler: ({ auth, query }) => alerts.history(auth, query.limit, query.page) }),
    route(E.channels, { guard: user, handler: ({ auth }) => channels.view(auth) }),
    route(E.updateChannels, { guard: user, handler: ({ auth, body }) => channels.update(auth, body) }),
    route(E.messengerCode, { guard: user, handler: ({ auth }) => channels.messengerCode(auth) }),
    route(E.messengerVerify, { guard: internal, handler: ({ body }) => channels.messengerVerify(body.code, body.chat_id, body.username ?? null) }),
    route(E.messengerStatus, { guard: internal, handler: ({ body }) => channels.chatStatus(body.chat_id) }),
    route(E.messengerDisconnect, { guard: internal, handler: ({ body }) => channels.chatDisconnect(body.chat_id) }),
    route(E.test, { guard: user, handler: ({ auth, body }) => channels.test(auth, body.channel) }),
    route(E.testType, { guard: user, handler: ({ auth, body }) => channels.testType(auth, body.type) }),
    route(E.wallets, { guard: user, handler: ({ auth }) => wallets.list(auth) }),
    route(E.addWallet, { guard: user, handler: ({ auth, body }) => wallets.add(auth, body.address, body.label) }),
    route(E.removeWallet, { guard: user, handler: ({ auth, params }) => wallets.remove(auth, params.wallet_id) }),
    route(E.processTx, { guard: internal, handler: ({ body }) => wallets.processTx(body) }),
    route(E.customWalletTx, { guard: internal, handler: ({ body }) => wallets.customWalletTx(body) }),
    route(E.dispatch, { guard: internal, handler: ({ body }) => wallets.dispatch(body) })
  ]
})
