/** The delivery a match makes (before its cooldown is decided, per round): what the fan-out and convergence record. */
import type { Content } from "../Format"
import type { NewDelivery } from "../delivery/Rows"
import type { Sub } from "./MatchIndex"

/** Each content's data with its link, and that as JSON: the alerts a record matches share one of each. */
const shared = new WeakMap<Content, { readonly data: Record<string, unknown>; readonly json: string }>()

export const deliveryOf = (sub: Sub, recordKey: string, content: Content, eventAt: string): NewDelivery => {
  // The alerts a record matches share its content: one data object and one JSON text unless a count is added.
  let s = shared.get(content)
  if (s === undefined) {
    const data = { ...content.data, url: content.url }
    shared.set(content, s = { data, json: JSON.stringify(data) })
  }
  return {
    alertId: sub.id, userId: sub.userId, type: sub.spec.type, recordKey, title: content.title, summary: content.summary,
    data: s.data, dataJson: s.json, channels: sub.channels, eventAt, status: "pending"
  }
}
