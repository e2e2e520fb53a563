/**
 * The alerts page's slice: alerts, channels, history, custom wallets and the live incoming alerts of the
 * `user:<id>` topic. Optimistic toggles roll back when the server refuses.
 */
import { createStore } from "solid-js/store"
import {
  type AlertResponse, type AlertType, type Channel, type ChannelSettings, type ConsoleAlert, type CustomWalletsResponse, type HistoryItem, type ListAlertsResponse
} from "../../../../schema/http/alerts"
import { alertsApi, type CreateAlertBody, type UpdateAlertBody, type UpdateChannelsBody } from "./api"

export interface AlertsState {
  list: ListAlertsResponse | null
  channels: ChannelSettings | null
  history: ReadonlyArray<HistoryItem>
  historyPage: number
  historyMore: boolean
  wallets: CustomWalletsResponse | null
  live: ReadonlyArray<ConsoleAlert>
  code: { code: string; expires_at: string; bot_username: string | null; instructions: string } | null
  secret: string | null
  notice: { text: string; error: boolean } | null
  loading: boolean
}

export const createAlertsStore = () => {
  const [state, setState] = createStore<AlertsState>({
    list: null, channels: null, history: [], historyPage: 0, historyMore: false, wallets: null, live: [], code: null, secret: null,
    notice: null, loading: true
  })
  const say = (text: string, error = false) => setState("notice", { text, error })
  const attempt = async <T,>(f: () => Promise<T>, ok?: string): Promise<T | undefined> => {
    try {
      const r = await f()
      if (ok) say(ok)
      return r
    } catch (e) {
      say((e as Error).message, true)
      return undefined
    }
  }

  const loadHistory = async (page = 0) => {
    const h = await attempt(() => alertsApi.history(page))
    if (h) setState({ history: h.items, historyPage: h.page, historyMore: h.has_more })
  }
  const load = async () => {
    setState("loading", true)
    const [list, channels, wallets] = await Promise.all([alertsApi.list(), alertsApi.channels(), alertsApi.wallets()].map((p) => p.catch(() => null)))
    setState({ list: list as ListAlertsResponse | null, channels: channels as ChannelSettings | null, wallets: wallets as CustomWalletsResponse | null, loading: false })
    await loadHistory(0)
  }
  const replaceAlert = (a: AlertResponse) =>
    setState("list", "alerts", (xs) => (xs.some((x) => x.id === a.id) ? xs.map((x) => (x.id === a.id ? a : x)) : [...xs, a]))

  return {
    state,
    load,
    loadHistory,
    say,
    /** Live alerts from `user:<id>` (kind `alert`). */
    onLive: (alert: ConsoleAlert) => {
      setState("live", (xs) => [alert, ...xs].slice(0, 30))
      void loadHistory(state.historyPage)
    },
    save: async (id: number | null, body: { type: string; params: unknown; channels: ReadonlyArray<string>; name: string | null }) => {
      // The editor's form builds the params of whichever type it shows; the server checks them against that type.
      const saved = await attempt(() => (id === null
        ? alertsApi.create(body as CreateAlertBody)
        : alertsApi.update(id, { params: body.params, channels: body.channels, name: body.name } as UpdateAlertBody)), id === null ? "Alert created" : "Alert saved")
      if (saved) replaceAlert(saved)
      return saved !== undefined
    },
    toggle: async (a: AlertResponse) => {
      replaceAlert({ ...a, enabled: !a.enabled })
      const saved = await attempt(() => alertsApi.update(a.id, { enabled: !a.enabled }))
      replaceAlert(saved ?? a)
    },
    remove: async (id: number) => {
      if (await attempt(() => alertsApi.remove(id), "Alert deleted")) setState("list", "alerts", (xs) => xs.filter((x) => x.id !== id))
    },
    snooze: async (a: AlertResponse, hours: number) => {
      const r = await attempt(() => alertsApi.snooze(a.id, hours), hours === 0 ? "Snooze removed" : `Snoozed for ${hours} h`)
      if (r) replaceAlert({ ...a, snoozed_until: r.snoozed_until })
    },
    mute: async (hours: number) => {
      const r = await attempt(() => alertsApi.mute(hours), hours === 0 ? "Alerts unmuted" : `All alerts muted for ${hours} h`)
      if (r) setState("list", "muted_until", r.muted_until)
    },
    updateChannels: async (body: UpdateChannelsBody) => {
      const r = await attempt(() => alertsApi.updateChannels(body), "Channels saved")
      if (r) {
        const { webhook_secret, ...settings } = r
        setState({ channels: settings, secret: webhook_secret ?? null })
      }
    },
    connectMessenger: async () => {
      const r = await attempt(() => alertsApi.messengerCode())
      if (r) setState("code", r)
    },
    refreshChannels: async () => {
      const c = await attempt(() => alertsApi.channels())
      if (c) setState("channels", c)
      if (c?.messenger.connected) setState("code", null)
    },
    test: async (channel: Channel) => {
      const r = await attempt(() => alertsApi.test(channel))
      if (r) say(r.sent.map((s) => `${s.channel}: ${s.status}${s.detail ? ` (${s.detail})` : ""}`).join(", "), r.sent.some((s) => s.status !== "sent"))
    },
    testType: async (type: AlertType) => {
      const r = await attempt(() => alertsApi.testType(type))
      if (r) say(`Sample ${type}: ${r.sent.map((s) => `${s.channel} ${s.status}`).join(", ")}`, r.sent.some((s) => s.status !== "sent"))
    },
    addWallet: async (address: string, label: string | null) => {
      const w = await attempt(() => alertsApi.addWallet(address, label), "Wallet added: monitored from the next block")
      if (w) setState("wallets", "wallets", (xs) => [...xs, w])
      return w !== undefined
    },
    removeWallet: async (id: number) => {
      if (await attempt(() => alertsApi.removeWallet(id), "Wallet removed")) setState("wallets", "wallets", (xs) => xs.filter((x) => x.id !== id))
    },
    dismissSecret: () => setState("secret", null)
  }
}
export type AlertsStore = ReturnType<typeof createAlertsStore>
