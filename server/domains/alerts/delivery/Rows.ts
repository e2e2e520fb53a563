/**
 * The rows of deliveries (`alert_deliveries`, one per alert and record; `alert_delivery_channels`, one per channel)
 * as the fan-out writes them and the notifier claims and settles them, and the pure helpers of their statements
 * (deliveries as one JSON parameter; claimed rows grouped per delivery). The statements are in DeliveriesRepo.ts.
 */
import { recordId, type RecordKey } from "../../../../schema/records"

/**
 * A record's key in alerts: `tx:<recordId>`. Stored (alert_deliveries.record_key, whose unique key makes a redelivered
 * record a no-op; convergence buys), so its form never changes; the prefix keeps it apart from the other keys there.
 */
export const recordKeyOf = (r: RecordKey) => `tx:${recordId(r)}`

export interface NewDelivery {
  readonly alertId: number | null
  readonly userId: number
  readonly type: string
  readonly recordKey: string
  readonly title: string
  readonly summary: string
  readonly data: Record<string, unknown>
  /** `data` as JSON when the caller has it already (deliveries of one record share it). */
  readonly dataJson?: string
  readonly channels: ReadonlyArray<string>
  readonly eventAt: string
  /** `pending` to send, `cooldown` to record only. */
  readonly status: "pending" | "cooldown"
  readonly test?: boolean
}

/** A claimed channel of a delivery, with the delivery's content. */
export interface DeliveryRow {
  readonly id: number
  readonly alert_id: number | null
  readonly user_id: number
  readonly type: string
  readonly title: string
  readonly summary: string
  readonly data: Record<string, unknown>
  readonly event_at: Date
  readonly test: boolean
  readonly channel: string
  readonly attempts: number
}

export interface ChannelResult {
  readonly deliveryId: number
  readonly channel: string
  readonly status: "sent" | "retrying" | "failed" | "digested" | "skipped"
  readonly error: string | null
  /** For `retrying`: ms from now. */
  readonly retryInMs: number | null
  /** Counted as an attempt (a send was tried). */
  readonly attempted: boolean
  /** The delivery's event time (epoch ms): a sent channel's latency is measured from it. */
  readonly eventMs: number
}

/**
 * A lone UTF-16 surrogate (from JSON a caller fed in, or another server's error text): PostgreSQL refuses its JSON
 * escape, so it becomes U+FFFD.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g
export const wellFormed = (text: string) => text.replace(LONE_SURROGATE, "\ufffd")
/** JSON.stringify writes a lone surrogate as `\udXXX` (a pair is written as is): such an escape means one is there. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/

/**
 * Deliveries as two JSON parameters (`json_to_recordset`): their contents, each once (`i`, title, summary, data), and
 * the deliveries naming theirs by `c`. A block's deliveries share few contents (an event's thousand deliveries say the
 * same thing): each went to the database whole, ~500 bytes a delivery to write, send and parse as JSON there. Written
 * natively, where an array parameter per column is escaped element by element by the driver. A delivery's `data`
 * goes in as the JSON it already has; a lone surrogate anywhere becomes U+FFFD (the statement would fail, and with
 * it every delivery of the round).
 */
export const deliveriesJson = (ds: ReadonlyArray<NewDelivery>): { readonly contents: string; readonly deliveries: string } => {
  const out = deliveriesText(ds)
  if (!SURROGATE_ESCAPE.test(out.contents) && !SURROGATE_ESCAPE.test(out.deliveries)) return out
  // Rare: written again with every text made well-formed (a literal backslash-u in a text may also have brought us here).
  return deliveriesText(ds.map((d) => ({
    ...d, type: wellFormed(d.type), recordKey: wellFormed(d.recordKey), title: wellFormed(d.title), summary: wellFormed(d.summary),
    eventAt: wellFormed(d.eventAt), dataJson: JSON.stringify(d.data, (_key, value: unknown) => (typeof value === "string" ? wellFormed(value) : value))
  })))
}

interface ContentEntry {
  readonly title: string
  readonly summary: string
  readonly index: number
}

const deliveriesText = (ds: ReadonlyArray<NewDelivery>) => {
  // Contents by their data's JSON text (deliveries of one content share the very string: its hash is computed once),
  // then title and summary compared (equal data with another title is another content).
  const byData = new Map<string, Array<ContentEntry>>()
  let contents = "["
  let n = 0
  let deliveries = "["
  for (let i = 0; i < ds.length; i++) {
    const d = ds[i]!
    const data = d.dataJson ?? JSON.stringify(d.data)
    let entries = byData.get(data)
    if (entries === undefined) byData.set(data, entries = [])
    let entry = entries.find((e) => e.title === d.title && e.summary === d.summary)
    if (entry === undefined) {
      entries.push(entry = { title: d.title, summary: d.summary, index: n })
      contents += `${n === 0 ? "" : ","}{"i":${n},"title":${JSON.stringify(d.title)},"summary":${JSON.stringify(d.summary)},"data":${data}}`
      n++
    }
    deliveries += `${i === 0 ? "" : ","}{"alert_id":${d.alertId === null ? "null" : Math.trunc(d.alertId)},"user_id":${Math.trunc(d.userId)},` +
      `"type":${JSON.stringify(d.type)},"record_key":${JSON.stringify(d.recordKey)},"c":${entry.index},"channels":${JSON.stringify(d.channels.join(","))},` +
      `"event_at":${JSON.stringify(d.eventAt)},"status":${JSON.stringify(d.status)},"test":${d.test === true}}`
  }
  return { contents: contents + "]", deliveries: deliveries + "]" }
}

/** A claimed delivery with its claimed channels (content once per delivery, not once per channel). */
export interface ClaimedRow {
  readonly id: number
  readonly alert_id: number | null
  readonly user_id: number
  readonly type: string
  readonly title: string
  readonly summary: string
  /** The `data` JSON as text: deliveries of one record share it, and it is parsed once per text. */
  readonly data: string
  readonly event_ms: number
  readonly test: boolean
  /** The claimed channels and their attempts so far, comma-separated, in channel order. */
  readonly channels: string
  readonly attempts: string
}

/**
 * The rest of a claim statement after its `claimed` CTE (the claimed channel rows): the channels grouped per delivery
 * first (small rows), then each delivery's content read once. Returning the content per channel row made the
 * driver parse a block's content twice over; a delivery's time comes as epoch milliseconds (a date text's parse is
 * dear).
 */
export const CLAIMED = `per AS (
    SELECT delivery_id, string_agg(channel, ',' ORDER BY channel) AS channels, string_agg(attempts::text, ',' ORDER BY channel) AS attempts
    FROM claimed GROUP BY delivery_id)
  SELECT d.id, d.alert_id, d.user_id, d.type, d.title, d.summary, d.data::text AS data, (extract(epoch FROM d.event_at) * 1000)::float8 AS event_ms,
         d.test, per.channels, per.attempts
  FROM per JOIN alert_deliveries d ON d.id = per.delivery_id`

/**
 * Claimed rows as one row per channel, in delivery order (sorted here: in the statement the sort of a block's rows,
 * their content included, spilled to disk). A delivery's channel rows share its content; equal `data` texts (one
 * record's deliveries) share one parsed object. Rows are read, never changed.
 */
export const channelRows = (rows: ReadonlyArray<ClaimedRow>): Array<DeliveryRow> => {
  const parsed = new Map<string, Record<string, unknown>>()
  const out: Array<DeliveryRow> = []
  for (const r of [...rows].sort((a, b) => a.id - b.id)) {
    let data = parsed.get(r.data)
    if (data === undefined) parsed.set(r.data, data = JSON.parse(r.data) as Record<string, unknown>)
    const eventAt = new Date(r.event_ms)
    const channels = r.channels.split(",")
    const attempts = r.attempts.split(",")
    for (let i = 0; i < channels.length; i++) {
      out.push({
        id: r.id, alert_id: r.alert_id, user_id: r.user_id, type: r.type, title: r.title, summary: r.summary, data, event_at: eventAt,
        test: r.test, channel: channels[i]!, attempts: Number(attempts[i])
      })
    }
  }
  return out
}
