/**
 * SQL of the deliveries (`alert_deliveries`, `alert_delivery_channels`, migration 0050), and only that: recorded by
 * the fan-out (one per alert and record), claimed, settled and released by the notifier, retracted on a reorg, read
 * back as the history. Infrastructure faults are defects here; every method is a span (`DeliveriesRepo.<method>`).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { channelRows, CLAIMED, deliveriesJson, wellFormed, type ChannelResult, type ClaimedRow, type NewDelivery } from "./Rows"

/**
 * A delivery recorded and owed (one of its channels is to send): `fresh` when this call inserted it (claimed already
 * when the call asked for it), else one recorded before whose channels are still `pending`.
 */
export interface RecordedRow {
  readonly id: number
  readonly user_id: number
  readonly alert_id: number | null
  readonly record_key: string
  readonly fresh: boolean
}

/** A delivery of the history, with its channels. */
export interface HistoryRow {
  readonly id: number
  readonly alert_id: number | null
  readonly type: string
  readonly title: string
  readonly summary: string
  readonly data: Record<string, unknown>
  readonly created_at: Date
  readonly event_at: Date
  readonly channels: Array<{ channel: string; status: string; attempts: number; delivered_at: string | null; latency_ms: number | null; error: string | null }>
}

export class DeliveriesRepo extends Effect.Service<DeliveriesRepo>()("app/AlertDeliveriesRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const die = Effect.orDie

    return {
      /**
       * Records deliveries, one per (alert, record): new ones are inserted with a row per channel; ones that exist
       * already are returned only while a channel is still `pending` (a crash between recording and publishing left
       * them unsent), so the caller publishes exactly what is still owed. The input is matched back on (record, alert)
       * as hashable keys (`coalesce`: no alert is -1): on the record alone, the alerts a record matched were compared
       * one by one (~54k comparisons per 1,000 deliveries). With `claimSeconds`, the new ones' channels to send are
       * inserted claimed (`sending`, a lease of that long, as `claimPending` would leave them) for a caller that sends
       * them itself: if it dies first, the retrier sends them when the lease ends.
       */
      recordDeliveries: Effect.fn("DeliveriesRepo.recordDeliveries")((ds: ReadonlyArray<NewDelivery>, claimSeconds: number | null = null) => {
        if (ds.length === 0) return Effect.succeed([] as ReadonlyArray<RecordedRow>)
        const json = deliveriesJson(ds)
        // Claimed at once (`sending`, a lease of claimSeconds) when the caller sends them itself: no claim to follow.
        const claim = claimSeconds ?? 0
        return sql<RecordedRow>`
          WITH content AS (
            SELECT * FROM json_to_recordset(${json.contents}::json) AS c(i int, title text, summary text, data jsonb)
          ), input AS (
            SELECT t.alert_id, t.user_id, t.type, t.record_key, c.title, c.summary, c.data, t.channels, t.event_at, t.status, t.test
            FROM json_to_recordset(${json.deliveries}::json)
              AS t(alert_id bigint, user_id bigint, type text, record_key text, c int, channels text, event_at timestamptz, status text, test boolean)
            JOIN content c ON c.i = t.c
          ), ins AS (
            INSERT INTO alert_deliveries (alert_id, user_id, type, record_key, title, summary, data, channels, event_at, test)
            SELECT alert_id, user_id, type, record_key, title, summary, data, string_to_array(channels, ','), event_at, test FROM input
            ON CONFLICT (alert_id, record_key) WHERE alert_id IS NOT NULL DO NOTHING
            RETURNING id, user_id, alert_id, record_key, channels
          ), chans AS (
            INSERT INTO alert_delivery_channels (delivery_id, channel, status, next_attempt_at)
            SELECT ins.id, c, CASE WHEN i.status = 'pending' AND ${claim} > 0 THEN 'sending' ELSE i.status END,
                   CASE WHEN i.status = 'pending' AND ${claim} > 0 THEN now() + make_interval(secs => ${claim}) END
            FROM ins
              JOIN input i ON i.record_key = ins.record_key AND coalesce(i.alert_id, -1) = coalesce(ins.alert_id, -1) AND i.user_id = ins.user_id
              CROSS JOIN LATERAL unnest(ins.channels) AS c
            RETURNING delivery_id
          )
          SELECT id, user_id, alert_id, record_key, true AS fresh FROM ins WHERE EXISTS (SELECT 1 FROM input i WHERE i.record_key = ins.record_key AND coalesce(i.alert_id, -1) = coalesce(ins.alert_id, -1) AND i.status = 'pending')
          UNION ALL
          SELECT d.id, d.user_id, d.alert_id, d.record_key, false FROM alert_deliveries d JOIN input i ON d.alert_id = i.alert_id AND d.record_key = i.record_key
          WHERE EXISTS (SELECT 1 FROM alert_delivery_channels c WHERE c.delivery_id = d.id AND c.status = 'pending')`.pipe(die)
      }),

      /** Claims the `pending` channels of these deliveries for sending (a lease: reclaimed if the sender dies). */
      claimPending: Effect.fn("DeliveriesRepo.claimPending")((ids: ReadonlyArray<number>, leaseSeconds: number) =>
        sql<ClaimedRow>`
          WITH claimed AS (
            UPDATE alert_delivery_channels c SET status = 'sending', next_attempt_at = now() + make_interval(secs => ${leaseSeconds})
            WHERE c.delivery_id = ANY(string_to_array(${ids.join(",")}, ',')::bigint[]) AND c.status = 'pending'
            RETURNING c.delivery_id, c.channel, c.attempts),
          ${sql.literal(CLAIMED)}`.pipe(Effect.map(channelRows), die)),

      /** Claims channels due for a retry, and `sending` ones whose lease ran out (their sender died). */
      claimDue: Effect.fn("DeliveriesRepo.claimDue")((limit: number, leaseSeconds: number) =>
        sql<ClaimedRow>`
          WITH claimed AS (
            UPDATE alert_delivery_channels c SET status = 'sending', next_attempt_at = now() + make_interval(secs => ${leaseSeconds})
            FROM (SELECT delivery_id, channel FROM alert_delivery_channels
                  WHERE status IN ('retrying', 'sending') AND next_attempt_at <= now()
                  ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED) due
            WHERE c.delivery_id = due.delivery_id AND c.channel = due.channel
            RETURNING c.delivery_id, c.channel, c.attempts),
          ${sql.literal(CLAIMED)}`.pipe(Effect.map(channelRows), die)),

      /**
       * Records the outcome of attempts; latency is event time → now for sent ones (the event time comes with each
       * outcome: no read of the deliveries).
       */
      settle: Effect.fn("DeliveriesRepo.settle")((rs: ReadonlyArray<ChannelResult>) =>
        rs.length === 0 ? Effect.void : sql`
          UPDATE alert_delivery_channels c SET
            status = t.status,
            attempts = c.attempts + CASE WHEN t.attempted THEN 1 ELSE 0 END,
            error = t.error,
            next_attempt_at = CASE WHEN t.status = 'retrying' THEN now() + make_interval(secs => t.retry_ms / 1000.0) ELSE NULL END,
            delivered_at = CASE WHEN t.status = 'sent' THEN clock_timestamp() ELSE c.delivered_at END,
            latency_ms = CASE WHEN t.status = 'sent' THEN greatest(0, extract(epoch FROM clock_timestamp()) * 1000 - t.event_ms)::bigint ELSE c.latency_ms END
          FROM json_to_recordset(${JSON.stringify(rs.map((r) => ({ delivery_id: r.deliveryId, channel: r.channel, status: r.status, error: r.error === null ? null : wellFormed(r.error), retry_ms: r.retryInMs ?? 0, attempted: r.attempted, event_ms: r.eventMs })))}::json)
               AS t(delivery_id bigint, channel text, status text, error text, retry_ms float8, attempted boolean, event_ms float8)
          WHERE c.delivery_id = t.delivery_id AND c.channel = t.channel`.pipe(Effect.asVoid, die)),

      /**
       * Gives claimed channels that were never tried back to the retrier, due now (their sender stopped before
       * sending: a shutdown). Only `sending` rows are touched, so a row settled meanwhile keeps its outcome.
       */
      release: Effect.fn("DeliveriesRepo.release")((keys: ReadonlyArray<{ readonly deliveryId: number; readonly channel: string }>) =>
        keys.length === 0 ? Effect.void : sql`
          UPDATE alert_delivery_channels c SET status = 'retrying', next_attempt_at = now()
          FROM unnest(${keys.map((k) => k.deliveryId)}::bigint[], ${keys.map((k) => k.channel)}::text[]) AS t(delivery_id, channel)
          WHERE c.delivery_id = t.delivery_id AND c.channel = t.channel AND c.status = 'sending'`.pipe(Effect.asVoid, die)),

      /** A reorg retracted these records: their unsent channels are skipped, the deliveries marked. */
      retract: Effect.fn("DeliveriesRepo.retract")((recordKeys: ReadonlyArray<string>) =>
        sql`
          WITH d AS (UPDATE alert_deliveries SET retracted_at = now() WHERE record_key = ANY(${recordKeys}::text[]) AND retracted_at IS NULL RETURNING id)
          UPDATE alert_delivery_channels c SET status = 'skipped', error = 'record retracted by a chain reorganisation', next_attempt_at = NULL
          FROM d WHERE c.delivery_id = d.id AND c.status IN ('pending', 'retrying')`.pipe(Effect.asVoid, die)),

      history: Effect.fn("DeliveriesRepo.history")((userId: number, limit: number, offset: number) =>
        sql<HistoryRow>`
          SELECT d.id, d.alert_id, d.type, d.title, d.summary, d.data, d.created_at, d.event_at,
            coalesce((SELECT json_agg(json_build_object('channel', c.channel, 'status', c.status, 'attempts', c.attempts,
                        'delivered_at', c.delivered_at, 'latency_ms', c.latency_ms, 'error', c.error) ORDER BY c.channel)
                      FROM alert_delivery_channels c WHERE c.delivery_id = d.id), '[]'::json) AS channels
          FROM alert_deliveries d WHERE d.user_id = ${userId}
          ORDER BY d.id DESC LIMIT ${limit} OFFSET ${offset}`.pipe(die))
    } as const
  })
}) {}
