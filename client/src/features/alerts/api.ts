/** The alerts endpoints (spec §4.8), called by their shared contracts (schema/http/alerts.ts). */
import { AlertEndpoints as E } from "../../../../schema/http/alerts"
import type { BodyOf } from "../../../../schema/http/endpoint"
import { call } from "../../api/http"

export type CreateAlertBody = BodyOf<typeof E.create>
export type UpdateAlertBody = BodyOf<typeof E.update>
export type UpdateChannelsBody = BodyOf<typeof E.updateChannels>

export const alertsApi = {
  list: () => call(E.list),
  create: (body: CreateAlertBody) => call(E.create, { body }),
  update: (id: number, body: UpdateAlertBody) => call(E.update, { params: { alert_id: id }, body }),
  remove: (id: number) => call(E.remove, { params: { alert_id: id } }),
  snooze: (id: number, hours: number) => call(E.snooze, { params: { alert_id: id }, body: { hours } }),
  mute: (hours: number) => call(E.mute, { body: { hours } }),
  channels: () => call(E.channels),
  updateChannels: (body: UpdateChannelsBody) => call(E.updateChannels, { body }),
  messengerCode: () => call(E.messengerCode),
  test: (channel: BodyOf<typeof E.test>["channel"]) => call(E.test, { body: { channel } }),
  testType: (type: BodyOf<typeof E.testType>["type"]) => call(E.testType, { body: { type } }),
  history: (page = 0, limit = 50) => call(E.history, { query: { limit, page } }),
  wallets: () => call(E.wallets),
  addWallet: (address: string, label: string | null) => call(E.addWallet, { body: { address, label } }),
  removeWallet: (id: number) => call(E.removeWallet, { params: { wallet_id: id } })
}
