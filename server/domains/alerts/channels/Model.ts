/** A user's channel settings: the defaults, as the API answers them, and why a channel cannot deliver now (pure). */
import type { Channel, ChannelSettings } from "../../../../schema/http/alerts"
import { DEFAULT_COOLDOWNS } from "../Throttle"
import { iso } from "../subscriptions/Model"
import type { SettingsRow } from "./SettingsRepo"

export const DEFAULT_SETTINGS = (userId: number): SettingsRow => ({
  user_id: userId, muted_until: null, messenger_enabled: true, messenger_chat_id: null, messenger_username: null,
  messenger_connected_at: null, email_enabled: true, console_enabled: true, webhook_enabled: false, webhook_url: null,
  webhook_secret: null, webhook_disabled_reason: null
})

export const toChannelSettings = (
  s: SettingsRow,
  extra: { email: string | null; botUsername: string | null; configured: boolean; budgetPerHour: number }
): ChannelSettings => ({
  messenger: {
    enabled: s.messenger_enabled,
    connected: s.messenger_chat_id !== null,
    username: s.messenger_username,
    connected_at: iso(s.messenger_connected_at),
    bot_username: extra.botUsername,
    configured: extra.configured
  },
  email: { enabled: s.email_enabled, address: extra.email },
  console: { enabled: s.console_enabled, topic: `user:${s.user_id}` },
  webhook: { enabled: s.webhook_enabled, url: s.webhook_url, secret_set: s.webhook_secret !== null, disabled_reason: s.webhook_disabled_reason },
  muted_until: s.muted_until && s.muted_until.getTime() > Date.now() ? s.muted_until.toISOString() : null,
  budget_per_hour: extra.budgetPerHour,
  cooldowns: { ...DEFAULT_COOLDOWNS }
})

/** Why a channel cannot deliver for this user now (null: it can). */
export const channelBlocker = (s: SettingsRow, channel: Channel, opts: { messengerConfigured: boolean }): string | null => {
  switch (channel) {
    case "console":
      return s.console_enabled ? null : "console channel disabled"
    case "email":
      return s.email_enabled ? null : "email channel disabled"
    case "messenger":
      if (!opts.messengerConfigured) return "messenger bot not configured on this service"
      if (!s.messenger_enabled) return "messenger channel disabled"
      return s.messenger_chat_id === null ? "messenger not connected" : null
    case "webhook":
      if (s.webhook_url === null || s.webhook_secret === null) return "webhook not configured"
      if (!s.webhook_enabled) return s.webhook_disabled_reason ?? "webhook channel disabled"
      return null
  }
}
