/**
 * A claimed channel row's outcome, as the channels report it and the settler stores it (pure), and what every
 * channel reads of a row: its link and how many matches its cooldown folded into it.
 */
import type { Channel } from "../../../../schema/http/alerts"
import { EXPLORER } from "../Format"
import { EMAIL_RETRY_MS, MESSENGER_RETRY_MS, nextRetryDelay, WEBHOOK_RETRY_MS } from "../Throttle"
import type { ChannelResult, DeliveryRow } from "./Rows"

/** A channel row and its outcome. */
export interface Outcome {
  readonly row: DeliveryRow
  readonly result: ChannelResult
}

const SCHEDULES: Record<Channel, ReadonlyArray<number>> = { messenger: MESSENGER_RETRY_MS, webhook: WEBHOOK_RETRY_MS, email: EMAIL_RETRY_MS, console: [1_000, 5_000] }

/** A row's outcome; its delivery's event time goes with it (a sent channel's latency is measured from it). */
export const outcome = (row: DeliveryRow, status: ChannelResult["status"], error: string | null, retryInMs: number | null, attempted: boolean): Outcome =>
  ({ row, result: { deliveryId: row.id, channel: row.channel, status, error, retryInMs, attempted, eventMs: row.event_at.getTime() } })

/** A failed attempt: retried on its channel's schedule (delays times `retryScale`) while it lasts, else `failed`. */
export const failure = (row: DeliveryRow, error: string, retryable: boolean, retryScale: number): Outcome => {
  const delay = retryable ? nextRetryDelay(SCHEDULES[row.channel as Channel], row.attempts + 1) : null
  return delay === null ? outcome(row, "failed", error, null, true) : outcome(row, "retrying", error, delay * retryScale, true)
}

export const ok = (row: DeliveryRow): Outcome => outcome(row, "sent", null, null, true)

/** Settled without an attempt. */
export const untried = (row: DeliveryRow, status: "digested" | "skipped", error: string | null): Outcome => outcome(row, status, error, null, false)

/**
 * The content's link, null where there is none (a demo transaction); deliveries stored before it was kept fall back
 * to the explorer page of their transaction.
 */
export const linkOf = (row: DeliveryRow) =>
  typeof row.data.url === "string" ? row.data.url : !("url" in row.data) && typeof row.data.tx_hash === "string" ? `${EXPLORER}/tx/${row.data.tx_hash}` : null

/** How many further matches of its alert the cooldown folded into this delivery. */
export const foldedOf = (row: DeliveryRow) => (typeof row.data.folded === "number" ? row.data.folded : 0)

/** Rows by user, in the order of their first row (one pass: a round holds thousands of rows of hundreds of users). */
export const groupByUser = (rows: ReadonlyArray<DeliveryRow>) => {
  const out = new Map<number, Array<DeliveryRow>>()
  for (const r of rows) {
    const own = out.get(r.user_id)
    if (own === undefined) out.set(r.user_id, [r])
    else own.push(r)
  }
  return out
}
