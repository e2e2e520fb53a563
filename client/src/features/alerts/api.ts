/** The alerts endpoints (spec §4.8), parsed with the shared zod schemas. */
import {
  AlertResponse, ChannelSettings, CustomWallet, CustomWalletsResponse, HistoryResponse, ListAlertsResponse, MessengerCodeResponse,
  MuteResponse, SnoozeResponse, TestResponse, UpdateChannelsResponse
} from "../../../../schema/http/alerts"
import { call } from "../../api/http"

export const alertsApi = {
  list: () => call(ListAlertsResponse, "GET", "/api/alerts"),
  create: (body: unknown) => call(AlertResponse, "POST", "/api/alerts", body),
  update: (id: number, body: unknown) => call(AlertResponse, "PUT", `/api/alerts/${id}`, body),
  remove: (id: number) => call(AlertResponse.pick({ id: true }), "DELETE", `/api/alerts/${id}`),
  snooze: (id: number, hours: number) => call(SnoozeResponse, "POST", `/api/alerts/${id}/snooze`, { hours }),
  mute: (hours: number) => call(MuteResponse, "POST", "/api/alerts/mute", { hours }),
  channels: () => call(ChannelSettings, "GET", "/api/alerts/channels"),
  updateChannels: (body: unknown) => call(UpdateChannelsResponse, "PUT", "/api/alerts/channels", body),
  messengerCode: () => call(MessengerCodeResponse, "POST", "/api/alerts/channels/messenger"),
  test: (channel: string) => call(TestResponse, "POST", "/api/alerts/test", { channel }),
  testType: (type: string) => call(TestResponse, "POST", "/api/alerts/test-type", { type }),
  history: (page = 0, limit = 50) => call(HistoryResponse, "GET", `/api/alerts/history?limit=${limit}&page=${page}`),
  wallets: () => call(CustomWalletsResponse, "GET", "/api/alerts/custom-wallets"),
  addWallet: (address: string, label: string | null) => call(CustomWallet, "POST", "/api/alerts/custom-wallets", { address, label }),
  removeWallet: (id: number) => call(CustomWallet.pick({ id: true }), "DELETE", `/api/alerts/custom-wallets/${id}`)
}
