/** Row → wire conversions and the shared rules of the alerts domain (pure). */
import { z } from "zod"
import { PARAMS, type AlertResponse, type AlertSpec, type AlertType, type Channel, type ChannelSettings } from "../../../schema/http/alerts"
import type { ValidationIssue } from "../../../schema/errors"
import type { Sub } from "./matching/MatchIndex"
import type { SettingsRow } from "./channels/SettingsRepo"
import type { SubRow } from "./subscriptions/SubscriptionsRepo"
import { DEFAULT_COOLDOWNS } from "./Throttle"

/** Streams of the domain: subscription changes (the fan-out's index follows them). */
export const ALERT_STREAMS = { changes: "alerts.changes" } as const

export const iso = (d: Date | null) => (d === null ? null : d.toISOString())

export const toAlertResponse = (row: SubRow): AlertResponse => ({
  id: row.id,
  type: row.type as AlertType,
  name: row.name,
  params: row.params,
  channels: row.channels as Array<Channel>,
  enabled: row.enabled,
  snoozed_until: row.snoozed_until && row.snoozed_until.getTime() > Date.now() ? row.snoozed_until.toISOString() : null,
  cooldown_seconds: DEFAULT_COOLDOWNS[row.type as AlertType] ?? 0,
  last_fired_at: iso(row.last_fired_at),
  created_at: row.created_at.toISOString(),
  updated_at: row.updated_at.toISOString()
})

/** A stored row as the matching index holds it; null when its params no longer parse (never expected). */
export const toSub = (row: SubRow): Sub | null => {
  const parsed = PARAMS[row.type as AlertType]?.safeParse(row.params)
  if (!parsed?.success) return null
  return {
    id: row.id,
    userId: row.user_id,
    spec: { type: row.type, params: parsed.data } as AlertSpec,
    channels: row.channels as Array<Channel>,
    enabled: row.enabled,
    snoozedUntil: row.snoozed_until?.getTime() ?? null
  }
}

/** Params of a type, defaults filled in; the 422 issues (under `body.params`) otherwise. */
export const parseParams = (type: AlertType, params: unknown): { ok: true; params: Record<string, unknown> } | { ok: false; issues: ReadonlyArray<ValidationIssue> } => {
  const result = (PARAMS[type] as z.ZodType).safeParse(params ?? {}, { reportInput: true })
  if (result.success) return { ok: true, params: result.data as Record<string, unknown> }
  return {
    ok: false,
    issues: result.error.issues.map((i) => ({
      type: i.code === "unrecognized_keys" ? "extra_forbidden" : i.code === "invalid_type" && i.input === undefined ? "missing" : "value_error",
      loc: ["body", "params", ...i.path.map((p) => (typeof p === "number" ? p : String(p))), ...(i.code === "unrecognized_keys" ? [i.keys.join(",")] : [])],
      msg: i.code === "invalid_type" && i.input === undefined ? "Field required" : i.message,
      input: i.input === undefined ? null : i.input
    }))
  }
}

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
