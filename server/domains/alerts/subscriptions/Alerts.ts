/**
 * Alert subscriptions (spec §4.8, §3.2): create, list, update, delete, snooze one, mute all, and the delivery
 * history. Every change is announced on `alerts.changes` (`AlertChanges`), which the fan-out's matching index follows.
 */
import { Effect } from "effect"
import { HistoryItem, type AlertType, type CreateAlertRequest, type UpdateAlertRequest } from "../../../../schema/http/alerts"
import type { AuthUser } from "../../accounts/Model"
import { SettingsRepo } from "../channels/SettingsRepo"
import { AlertsConfig } from "../Config"
import { DeliveriesRepo } from "../delivery/DeliveriesRepo"
import { AlertInputInvalid, AlertTierRequired } from "../Errors"
import { lowestTierFor, policyOf } from "../Policy"
import { AlertChanges } from "./Changes"
import { AlertNotFound, TooManyAlerts } from "./Errors"
import { iso, parseParams, toAlertResponse } from "./Model"
import { SubscriptionsRepo } from "./SubscriptionsRepo"

const notFound = (id: number) => new AlertNotFound({ id })

export class Alerts extends Effect.Service<Alerts>()("app/Alerts", {
  dependencies: [SubscriptionsRepo.Default, SettingsRepo.Default, DeliveriesRepo.Default, AlertChanges.Default, AlertsConfig.Default],
  effect: Effect.gen(function* () {
    const repo = yield* SubscriptionsRepo
    const settingsRepo = yield* SettingsRepo
    const deliveriesRepo = yield* DeliveriesRepo
    const changes = yield* AlertChanges

    const checkAllowed = (user: AuthUser, type: AlertType, channels: ReadonlyArray<string>) => {
      const policy = policyOf(user.tier)
      if (!policy.types.includes(type)) {
        const required = lowestTierFor({ type })
        return Effect.fail(new AlertTierRequired({ what: `${type} alerts`, required, tier: user.tier }))
      }
      const refused = channels.find((c) => !(policy.channels as ReadonlyArray<string>).includes(c))
      if (refused !== undefined) {
        const required = lowestTierFor({ channel: refused as never })
        return Effect.fail(new AlertTierRequired({ what: `The ${refused} channel`, required, tier: user.tier }))
      }
      return Effect.void
    }

    const limitsOf = (user: AuthUser) => {
      const p = policyOf(user.tier)
      return { tier: user.tier, max_alerts: p.maxAlerts, types: [...p.types], channels: [...p.channels] }
    }

    return {
      list: Effect.fn("Alerts.list")(function* (user: AuthUser) {
        const rows = yield* repo.list(user.id)
        const settings = yield* settingsRepo.settings(user.id)
        const muted = settings?.muted_until && settings.muted_until.getTime() > Date.now() ? settings.muted_until.toISOString() : null
        return { alerts: rows.map(toAlertResponse), limits: limitsOf(user), muted_until: muted }
      }),

      create: Effect.fn("Alerts.create")(function* (user: AuthUser, body: CreateAlertRequest) {
        yield* checkAllowed(user, body.type, body.channels)
        const max = policyOf(user.tier).maxAlerts
        const row = yield* repo.insert(user.id, { type: body.type, name: body.name, params: body.params, channels: body.channels, enabled: body.enabled }, max)
        if (row === null) {
          return yield* new TooManyAlerts({ max, tier: user.tier })
        }
        yield* changes.announce("alert", row.id)
        yield* Effect.logInfo(`alert ${row.id} (${row.type}) created`).pipe(Effect.annotateLogs({ user: user.id }))
        return toAlertResponse(row)
      }),

      update: Effect.fn("Alerts.update")(function* (user: AuthUser, id: number, body: UpdateAlertRequest) {
        const current = yield* repo.byId(user.id, id)
        if (current === null) return yield* notFound(id)
        const type = current.type as AlertType
        let params = current.params
        if (body.params !== undefined) {
          const parsed = parseParams(type, body.params)
          if (!parsed.ok) return yield* new AlertInputInvalid({ issues: parsed.issues })
          params = parsed.params
        }
        const channels = body.channels ?? current.channels
        yield* checkAllowed(user, type, channels)
        const row = yield* repo.update(user.id, id, {
          name: body.name !== undefined ? body.name : current.name,
          params,
          channels,
          enabled: body.enabled ?? current.enabled
        })
        if (row === null) return yield* notFound(id)
        yield* changes.announce("alert", id)
        return toAlertResponse(row)
      }),

      remove: Effect.fn("Alerts.remove")(function* (user: AuthUser, id: number) {
        if (!(yield* repo.remove(user.id, id))) return yield* notFound(id)
        yield* changes.announce("alert", id)
        return { deleted: true as const, id }
      }),

      snooze: Effect.fn("Alerts.snooze")(function* (user: AuthUser, id: number, hours: number) {
        const until = hours === 0 ? null : new Date(Date.now() + hours * 3_600_000)
        const row = yield* repo.snooze(user.id, id, until)
        if (row === null) return yield* notFound(id)
        yield* changes.announce("alert", id)
        return { id, snoozed_until: iso(until) }
      }),

      mute: Effect.fn("Alerts.mute")(function* (user: AuthUser, hours: number) {
        const until = hours === 0 ? null : new Date(Date.now() + hours * 3_600_000)
        yield* settingsRepo.patchSettings(user.id, { muted_until: until })
        yield* changes.announce("user", user.id)
        return { muted_until: iso(until) }
      }),

      history: Effect.fn("Alerts.history")(function* (user: AuthUser, limit: number, page: number) {
        const rows = yield* deliveriesRepo.history(user.id, limit + 1, page * limit)
        const items = rows.slice(0, limit).map((r) => HistoryItem.parse({
          id: r.id, alert_id: r.alert_id, type: r.type, title: r.title, summary: r.summary, data: r.data,
          created_at: r.created_at.toISOString(), event_at: r.event_at.toISOString(),
          channels: r.channels.map((c) => ({ ...c, delivered_at: c.delivered_at === null ? null : new Date(c.delivered_at).toISOString() }))
        }))
        return { items, page, limit, has_more: rows.length > limit }
      })
    } as const
  })
}) {}
