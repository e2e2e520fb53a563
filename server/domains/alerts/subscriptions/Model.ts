/** Alert subscriptions: a stored row as the API answers it, and the params of a type checked (pure). */
import { z } from "zod"
import { PARAMS, type AlertResponse, type AlertType, type Channel } from "../../../../schema/http/alerts"
import type { ValidationIssue } from "../../../../schema/errors"
import { DEFAULT_COOLDOWNS } from "../Throttle"
import type { SubRow } from "./SubscriptionsRepo"

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
