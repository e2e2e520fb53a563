/** Expected failures of alert subscriptions, each with its HTTP answer (merged into `AlertErrors` by ../Errors.ts). */
import { Data } from "effect"
import { Conflict, NotFound, errorMap } from "../../../platform/http/Errors"

export class AlertNotFound extends Data.TaggedError("AlertNotFound")<{ readonly id: number }> {}
export class TooManyAlerts extends Data.TaggedError("TooManyAlerts")<{ readonly max: number; readonly tier: string }> {}

export const SubscriptionErrors = errorMap<AlertNotFound | TooManyAlerts>()({
  AlertNotFound: (e) => new NotFound({ message: `No alert ${e.id}`, code: "alert_not_found" }),
  TooManyAlerts: (e) => new Conflict({ message: `At most ${e.max} alerts on the ${e.tier} tier; delete one first`, code: "too_many_alerts", extra: { max_alerts: e.max } })
})
