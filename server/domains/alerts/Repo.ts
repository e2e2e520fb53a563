/** SQL of the alerts domain (migration 0050), and only that. Infrastructure faults are defects here. */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export interface SubRow {
  readonly id: number
  readonly user_id: number
  readonly type: string
  readonly name: string | null
  readonly params: Record<string, unknown>
  readonly channels: ReadonlyArray<string>
  readonly enabled: boolean
  readonly snoozed_until: Date | null
  readonly last_fired_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
}

export interface SettingsRow {
  readonly user_id: number
  readonly muted_until: Date | null
  readonly messenger_enabled: boolean
  readonly messenger_chat_id: string | null
  readonly messenger_username: string | null
  readonly messenger_connected_at: Date | null
  readonly email_enabled: boolean
  readonly console_enabled: boolean
  readonly webhook_enabled: boolean
  readonly webhook_url: string | null
  readonly webhook_secret: string | null
  readonly webhook_disabled_reason: string | null
}

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

/** A whale buy in a convergence window (times in epoch ms). */
export interface ConvergenceBuy {
  readonly token: string
  readonly key: string
  readonly wallet: string
  readonly label: string | null
  readonly usd: number
  readonly at: number
}

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
const wellFormed = (text: string) => text.replace(LONE_SURROGATE, "\ufffd")
/** JSON.stringify writes a lone surrogate as `\udXXX` (a pair is written as is): such an escape means one is there. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/

/**
 * Deliveries as one JSON parameter (`json_to_recordset`): written natively, where an array parameter per column is
 * escaped element by element by the driver. A delivery's `data` goes in as the JSON it already has; a lone surrogate
 * anywhere becomes U+FFFD (the statement would fail, and with it every delivery of the round).
 */
const deliveriesJson = (ds: ReadonlyArray<NewDelivery>): string => {
  const out = deliveriesText(ds)
  if (!SURROGATE_ESCAPE.test(out)) return out
  // Rare: written again with every text made well-formed (a literal backslash-u in a text may also have brought us here).
  return deliveriesText(ds.map((d) => ({
    ...d, type: wellFormed(d.type), recordKey: wellFormed(d.recordKey), title: wellFormed(d.title), summary: wellFormed(d.summary),
    eventAt: wellFormed(d.eventAt), dataJson: JSON.stringify(d.data, (_key, value: unknown) => (typeof value === "string" ? wellFormed(value) : value))
  })))
}

const deliveriesText = (ds: ReadonlyArray<NewDelivery>): string => {
  let out = "["
  for (let i = 0; i < ds.length; i++) {
    const d = ds[i]!
    out += `${i === 0 ? "" : ","}{"alert_id":${d.alertId === null ? "null" : Math.trunc(d.alertId)},"user_id":${Math.trunc(d.userId)},` +
      `"type":${JSON.stringify(d.type)},"record_key":${JSON.stringify(d.recordKey)},"title":${JSON.stringify(d.title)},` +
      `"summary":${JSON.stringify(d.summary)},"data":${d.dataJson ?? JSON.stringify(d.data)},"channels":${JSON.stringify(d.channels.join(","))},` +
      `"event_at":${JSON.stringify(d.eventAt)},"status":${JSON.stringify(d.status)},"test":${d.test === true}}`
  }
  return out + "]"
}

/** A claimed delivery with its claimed channels (content once per delivery, not once per channel). */
interface ClaimedRow {
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
const CLAIMED = `per AS (
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
const channelRows = (rows: ReadonlyArray<ClaimedRow>): Array<DeliveryRow> => {
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

const SUB_COLUMNS = "id, user_id, type, name, params, channels, enabled, snoozed_until, last_fired_at, created_at, updated_at"
/** Advisory lock namespaces: per-user alert creation and custom-wallet creation (the count checks). */
const ALERT_LOCK = 30_050
const WALLET_LOCK = 30_051

export class AlertsRepo extends Effect.Service<AlertsRepo>()("app/AlertsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const die = Effect.orDie

    return {
      // ---------------------------------------------------------------------------------------- subscriptions
      list: (userId: number) =>
        sql<SubRow>`SELECT ${sql.literal(SUB_COLUMNS)} FROM alert_subscriptions WHERE user_id = ${userId} ORDER BY id`.pipe(die),

      byId: (userId: number, id: number) =>
        sql<SubRow>`SELECT ${sql.literal(SUB_COLUMNS)} FROM alert_subscriptions WHERE id = ${id} AND user_id = ${userId}`.pipe(
          Effect.map((rows) => rows[0] ?? null), die),

      /** Inserts unless the user has `max` alerts already (serialised per user). */
      insert: (userId: number, a: { type: string; name: string | null; params: unknown; channels: ReadonlyArray<string>; enabled: boolean }, max: number) =>
        sql.withTransaction(Effect.gen(function* () {
          yield* sql`SELECT pg_advisory_xact_lock(${ALERT_LOCK}, ${userId}::int)`
          const counted = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM alert_subscriptions WHERE user_id = ${userId}`
          if (counted[0]!.n >= max) return null
          const rows = yield* sql<SubRow>`
            INSERT INTO alert_subscriptions (user_id, type, name, params, channels, enabled)
            VALUES (${userId}, ${a.type}, ${a.name}, ${JSON.stringify(a.params)}::jsonb, ${a.channels}::text[], ${a.enabled})
            RETURNING ${sql.literal(SUB_COLUMNS)}`
          return rows[0]!
        })).pipe(die),

      update: (userId: number, id: number, a: { name: string | null; params: unknown; channels: ReadonlyArray<string>; enabled: boolean }) =>
        sql<SubRow>`
          UPDATE alert_subscriptions SET name = ${a.name}, params = ${JSON.stringify(a.params)}::jsonb, channels = ${a.channels}::text[],
            enabled = ${a.enabled}, updated_at = now()
          WHERE id = ${id} AND user_id = ${userId}
          RETURNING ${sql.literal(SUB_COLUMNS)}`.pipe(Effect.map((rows) => rows[0] ?? null), die),

      remove: (userId: number, id: number) =>
        sql`DELETE FROM alert_subscriptions WHERE id = ${id} AND user_id = ${userId} RETURNING id`.pipe(Effect.map((rows) => rows.length > 0), die),

      snooze: (userId: number, id: number, until: Date | null) =>
        sql<SubRow>`
          UPDATE alert_subscriptions SET snoozed_until = ${until}, updated_at = now()
          WHERE id = ${id} AND user_id = ${userId}
          RETURNING ${sql.literal(SUB_COLUMNS)}`.pipe(Effect.map((rows) => rows[0] ?? null), die),

      /** Every subscription (the matching index's load). */
      all: sql<SubRow>`SELECT ${sql.literal(SUB_COLUMNS)} FROM alert_subscriptions`.pipe(die),

      byIds: (ids: ReadonlyArray<number>) =>
        sql<SubRow>`SELECT ${sql.literal(SUB_COLUMNS)} FROM alert_subscriptions WHERE id = ANY(${ids}::bigint[])`.pipe(die),

      countOf: (userId: number) =>
        sql<{ n: number }>`SELECT count(*)::int AS n FROM alert_subscriptions WHERE user_id = ${userId}`.pipe(Effect.map((r) => r[0]!.n), die),

      /** Remembers when alerts last fired (cooldowns survive a restart). */
      touchFired: (ids: ReadonlyArray<number>, at: ReadonlyArray<string>) =>
        ids.length === 0 ? Effect.void : sql`
          UPDATE alert_subscriptions s SET last_fired_at = greatest(s.last_fired_at, t.at)
          FROM unnest(${ids}::bigint[], ${at}::timestamptz[]) AS t(id, at) WHERE s.id = t.id`.pipe(Effect.asVoid, die),

      // ------------------------------------------------------------------------------------------------ settings
      settings: (userId: number) =>
        sql<SettingsRow>`SELECT * FROM alert_user_settings WHERE user_id = ${userId}`.pipe(Effect.map((r) => r[0] ?? null), die),

      settingsOf: (userIds: ReadonlyArray<number>) =>
        sql<SettingsRow>`SELECT * FROM alert_user_settings WHERE user_id = ANY(${userIds}::bigint[])`.pipe(die),

      /** Applies a partial update (absent keys keep their value), creating the row with defaults first. */
      patchSettings: (userId: number, p: {
        messenger_enabled?: boolean | undefined; email_enabled?: boolean | undefined; console_enabled?: boolean | undefined
        webhook_enabled?: boolean | undefined; webhook_url?: string | null | undefined; webhook_secret?: string | undefined
        webhook_disabled_reason?: string | null | undefined; muted_until?: Date | null | undefined
      }) =>
        sql<SettingsRow>`
          INSERT INTO alert_user_settings (user_id) VALUES (${userId}) ON CONFLICT (user_id) DO NOTHING`.pipe(
          Effect.zipRight(sql<SettingsRow>`
            UPDATE alert_user_settings SET
              messenger_enabled = coalesce(${p.messenger_enabled ?? null}::boolean, messenger_enabled),
              email_enabled = coalesce(${p.email_enabled ?? null}::boolean, email_enabled),
              console_enabled = coalesce(${p.console_enabled ?? null}::boolean, console_enabled),
              webhook_enabled = coalesce(${p.webhook_enabled ?? null}::boolean, webhook_enabled),
              webhook_url = CASE WHEN ${p.webhook_url !== undefined}::boolean THEN ${p.webhook_url ?? null} ELSE webhook_url END,
              webhook_secret = coalesce(${p.webhook_secret ?? null}, webhook_secret),
              webhook_disabled_reason = CASE WHEN ${p.webhook_disabled_reason !== undefined}::boolean THEN ${p.webhook_disabled_reason ?? null} ELSE webhook_disabled_reason END,
              muted_until = CASE WHEN ${p.muted_until !== undefined}::boolean THEN ${p.muted_until ?? null}::timestamptz ELSE muted_until END,
              updated_at = now()
            WHERE user_id = ${userId}
            RETURNING *`),
          Effect.map((rows) => rows[0]!), die),

      mutedUsers: sql<{ user_id: number; muted_until: Date }>`
        SELECT user_id, muted_until FROM alert_user_settings WHERE muted_until > now()`.pipe(die),

      /** Binds a chat to a user (a chat belongs to one user: an earlier binding of it is removed). */
      bindChat: (userId: number, chatId: string, username: string | null) =>
        sql.withTransaction(Effect.gen(function* () {
          const before = yield* sql<{ user_id: number }>`
            UPDATE alert_user_settings SET messenger_chat_id = NULL, messenger_username = NULL, messenger_connected_at = NULL
            WHERE messenger_chat_id = ${chatId} AND user_id <> ${userId} RETURNING user_id`
          yield* sql`INSERT INTO alert_user_settings (user_id) VALUES (${userId}) ON CONFLICT (user_id) DO NOTHING`
          yield* sql`
            UPDATE alert_user_settings SET messenger_chat_id = ${chatId}, messenger_username = ${username},
              messenger_connected_at = now(), messenger_enabled = true, updated_at = now()
            WHERE user_id = ${userId}`
          return before.map((r) => r.user_id)
        })).pipe(die),

      unbindChat: (chatId: string) =>
        sql<{ user_id: number }>`
          UPDATE alert_user_settings SET messenger_chat_id = NULL, messenger_username = NULL, messenger_connected_at = NULL, updated_at = now()
          WHERE messenger_chat_id = ${chatId} RETURNING user_id`.pipe(Effect.map((r) => r[0]?.user_id ?? null), die),

      byChat: (chatId: string) =>
        sql<SettingsRow>`SELECT * FROM alert_user_settings WHERE messenger_chat_id = ${chatId}`.pipe(Effect.map((r) => r[0] ?? null), die),

      // -------------------------------------------------------------------------------------------------- codes
      putCode: (userId: number, hash: string, expiresAt: Date) =>
        sql`
          INSERT INTO alert_messenger_codes (user_id, code_hash, expires_at) VALUES (${userId}, ${hash}, ${expiresAt})
          ON CONFLICT (user_id) DO UPDATE SET code_hash = excluded.code_hash, expires_at = excluded.expires_at, created_at = now()`.pipe(
          Effect.as(true),
          // The same code already live for another user (one in a million): the caller draws again.
          Effect.catchAll(() => Effect.succeed(false))),

      /** Consumes a live code: its user, or null. */
      takeCode: (hash: string) =>
        sql<{ user_id: number }>`
          DELETE FROM alert_messenger_codes WHERE code_hash = ${hash} AND expires_at > now() RETURNING user_id`.pipe(
          Effect.map((r) => r[0]?.user_id ?? null), die),

      // --------------------------------------------------------------------------------------------- deliveries
      /**
       * Records deliveries, one per (alert, record): new ones are inserted with a row per channel; ones that exist
       * already are returned only while a channel is still `pending` (a crash between recording and publishing left
       * them unsent), so the caller publishes exactly what is still owed. The input is matched back on (record, alert)
       * as hashable keys (`coalesce`: no alert is -1): on the record alone, the alerts a record matched were compared
       * one by one (~54k comparisons per 1,000 deliveries).
       */
      recordDeliveries: (ds: ReadonlyArray<NewDelivery>) =>
        ds.length === 0 ? Effect.succeed([] as ReadonlyArray<{ id: number; user_id: number; fresh: boolean }>) : sql<{ id: number; user_id: number; fresh: boolean }>`
          WITH input AS (
            SELECT * FROM json_to_recordset(${deliveriesJson(ds)}::json)
              AS t(alert_id bigint, user_id bigint, type text, record_key text, title text, summary text, data jsonb, channels text,
                   event_at timestamptz, status text, test boolean)
          ), ins AS (
            INSERT INTO alert_deliveries (alert_id, user_id, type, record_key, title, summary, data, channels, event_at, test)
            SELECT alert_id, user_id, type, record_key, title, summary, data, string_to_array(channels, ','), event_at, test FROM input
            ON CONFLICT (alert_id, record_key) WHERE alert_id IS NOT NULL DO NOTHING
            RETURNING id, user_id, alert_id, record_key, channels
          ), chans AS (
            INSERT INTO alert_delivery_channels (delivery_id, channel, status)
            SELECT ins.id, c, i.status FROM ins
              JOIN input i ON i.record_key = ins.record_key AND coalesce(i.alert_id, -1) = coalesce(ins.alert_id, -1) AND i.user_id = ins.user_id
              CROSS JOIN LATERAL unnest(ins.channels) AS c
            RETURNING delivery_id
          )
          SELECT id, user_id, true AS fresh FROM ins WHERE EXISTS (SELECT 1 FROM input i WHERE i.record_key = ins.record_key AND coalesce(i.alert_id, -1) = coalesce(ins.alert_id, -1) AND i.status = 'pending')
          UNION ALL
          SELECT d.id, d.user_id, false FROM alert_deliveries d JOIN input i ON d.alert_id = i.alert_id AND d.record_key = i.record_key
          WHERE EXISTS (SELECT 1 FROM alert_delivery_channels c WHERE c.delivery_id = d.id AND c.status = 'pending')`.pipe(die),

      /** Claims the `pending` channels of these deliveries for sending (a lease: reclaimed if the sender dies). */
      claimPending: (ids: ReadonlyArray<number>, leaseSeconds: number) =>
        sql<ClaimedRow>`
          WITH claimed AS (
            UPDATE alert_delivery_channels c SET status = 'sending', next_attempt_at = now() + make_interval(secs => ${leaseSeconds})
            WHERE c.delivery_id = ANY(string_to_array(${ids.join(",")}, ',')::bigint[]) AND c.status = 'pending'
            RETURNING c.delivery_id, c.channel, c.attempts),
          ${sql.literal(CLAIMED)}`.pipe(Effect.map(channelRows), die),

      /** Claims channels due for a retry, and `sending` ones whose lease ran out (their sender died). */
      claimDue: (limit: number, leaseSeconds: number) =>
        sql<ClaimedRow>`
          WITH claimed AS (
            UPDATE alert_delivery_channels c SET status = 'sending', next_attempt_at = now() + make_interval(secs => ${leaseSeconds})
            FROM (SELECT delivery_id, channel FROM alert_delivery_channels
                  WHERE status IN ('retrying', 'sending') AND next_attempt_at <= now()
                  ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED) due
            WHERE c.delivery_id = due.delivery_id AND c.channel = due.channel
            RETURNING c.delivery_id, c.channel, c.attempts),
          ${sql.literal(CLAIMED)}`.pipe(Effect.map(channelRows), die),

      /**
       * Records the outcome of attempts; latency is event time → now for sent ones (the event time comes with each
       * outcome: no read of the deliveries).
       */
      settle: (rs: ReadonlyArray<ChannelResult>) =>
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
          WHERE c.delivery_id = t.delivery_id AND c.channel = t.channel`.pipe(Effect.asVoid, die),

      latencies: (ids: ReadonlyArray<number>) =>
        sql<{ delivery_id: number; channel: string; latency_ms: number }>`
          SELECT delivery_id, channel, latency_ms FROM alert_delivery_channels
          WHERE delivery_id = ANY(${ids}::bigint[]) AND status = 'sent'`.pipe(die),

      /** A reorg retracted these records: their unsent channels are skipped, the deliveries marked. */
      retract: (recordKeys: ReadonlyArray<string>) =>
        sql`
          WITH d AS (UPDATE alert_deliveries SET retracted_at = now() WHERE record_key = ANY(${recordKeys}::text[]) AND retracted_at IS NULL RETURNING id)
          UPDATE alert_delivery_channels c SET status = 'skipped', error = 'record retracted by a chain reorganisation', next_attempt_at = NULL
          FROM d WHERE c.delivery_id = d.id AND c.status IN ('pending', 'retrying')`.pipe(Effect.asVoid, die),

      history: (userId: number, limit: number, offset: number) =>
        sql<{
          id: number; alert_id: number | null; type: string; title: string; summary: string; data: Record<string, unknown>
          created_at: Date; event_at: Date; channels: Array<{ channel: string; status: string; attempts: number; delivered_at: string | null; latency_ms: number | null; error: string | null }>
        }>`
          SELECT d.id, d.alert_id, d.type, d.title, d.summary, d.data, d.created_at, d.event_at,
            coalesce((SELECT json_agg(json_build_object('channel', c.channel, 'status', c.status, 'attempts', c.attempts,
                        'delivered_at', c.delivered_at, 'latency_ms', c.latency_ms, 'error', c.error) ORDER BY c.channel)
                      FROM alert_delivery_channels c WHERE c.delivery_id = d.id), '[]'::json) AS channels
          FROM alert_deliveries d WHERE d.user_id = ${userId}
          ORDER BY d.id DESC LIMIT ${limit} OFFSET ${offset}`.pipe(die),

      /**
       * Gives claimed channels that were never tried back to the retrier, due now (their sender stopped before
       * sending: a shutdown). Only `sending` rows are touched, so a row settled meanwhile keeps its outcome.
       */
      release: (keys: ReadonlyArray<{ readonly deliveryId: number; readonly channel: string }>) =>
        keys.length === 0 ? Effect.void : sql`
          UPDATE alert_delivery_channels c SET status = 'retrying', next_attempt_at = now()
          FROM unnest(${keys.map((k) => k.deliveryId)}::bigint[], ${keys.map((k) => k.channel)}::text[]) AS t(delivery_id, channel)
          WHERE c.delivery_id = t.delivery_id AND c.channel = t.channel AND c.status = 'sending'`.pipe(Effect.asVoid, die),

      // ------------------------------------------------------------------------------------------------- budget
      /**
       * Adds `counts[i]` to user `userIds[i]`'s count of the window, for many users in one statement; each user's
       * count after. Rows are locked in user order, so two rounds never wait on each other in a circle.
       */
      useBudgets: (hour: Date, userIds: ReadonlyArray<number>, counts: ReadonlyArray<number>) =>
        userIds.length === 0 ? Effect.succeed(new Map<number, number>()) : sql<{ user_id: number; used: number }>`
          INSERT INTO alert_budget (user_id, hour, used)
          SELECT u, ${hour}::timestamptz, n FROM unnest(${userIds}::bigint[], ${counts}::int[]) AS t(u, n) ORDER BY u
          ON CONFLICT (user_id, hour) DO UPDATE SET used = alert_budget.used + excluded.used
          RETURNING user_id, used`.pipe(Effect.map((rows) => new Map(rows.map((r) => [Number(r.user_id), r.used]))), die),

      /** Adds overflow (deliveries folded into the window's digest) for many users in one statement. */
      addOverflows: (hour: Date, userIds: ReadonlyArray<number>, counts: ReadonlyArray<number>) =>
        userIds.length === 0 ? Effect.void : sql`
          UPDATE alert_budget b SET overflow = b.overflow + t.n
          FROM unnest(${userIds}::bigint[], ${counts}::int[]) AS t(u, n)
          WHERE b.user_id = t.u AND b.hour = ${hour}`.pipe(Effect.asVoid, die),

      /** Claims the windows that ended with an overflow and no digest yet (each is claimed by one process). */
      claimDigests: (before: Date) =>
        sql<{ user_id: number; hour: Date; overflow: number }>`
          UPDATE alert_budget SET digest_sent = true
          WHERE (user_id, hour) IN (SELECT user_id, hour FROM alert_budget WHERE hour < ${before} AND overflow > 0 AND NOT digest_sent
                                    LIMIT 100 FOR UPDATE SKIP LOCKED)
          RETURNING user_id, hour, overflow`.pipe(die),

      digestedIn: (userId: number, from: Date, to: Date) =>
        sql<{ id: number; title: string }>`
          SELECT DISTINCT d.id, d.title FROM alert_deliveries d JOIN alert_delivery_channels c ON c.delivery_id = d.id
          WHERE d.user_id = ${userId} AND c.status = 'digested' AND d.created_at >= ${from} AND d.created_at < ${to}
          ORDER BY d.id`.pipe(die),

      // -------------------------------------------------------------------------------------------- convergence
      /** Stores buys of watched tokens (a redelivered record's again is a no-op). */
      addBuys: (buys: ReadonlyArray<ConvergenceBuy>) =>
        buys.length === 0 ? Effect.void : sql`
          INSERT INTO alert_convergence_buys (token, record_key, wallet, label, usd, at)
          SELECT * FROM unnest(${buys.map((b) => b.token)}::text[], ${buys.map((b) => b.key)}::text[], ${buys.map((b) => b.wallet)}::text[],
                               ${buys.map((b) => b.label)}::text[], ${buys.map((b) => b.usd)}::float8[], ${buys.map((b) => new Date(b.at).toISOString())}::timestamptz[])
          ON CONFLICT (token, record_key) DO NOTHING`.pipe(Effect.asVoid, die),

      /** The stored buys of these tokens in [from, to]. */
      buysOf: (tokens: ReadonlyArray<string>, from: Date, to: Date) =>
        sql<{ token: string; record_key: string; wallet: string; label: string | null; usd: number; at: Date }>`
          SELECT token, record_key, wallet, label, usd, at FROM alert_convergence_buys
          WHERE token = ANY(${tokens}::text[]) AND at >= ${from} AND at <= ${to} ORDER BY at`.pipe(
          Effect.map((rows) => rows.map((r): ConvergenceBuy => ({ token: r.token, key: r.record_key, wallet: r.wallet, label: r.label, usd: Number(r.usd), at: r.at.getTime() }))), die),

      /**
       * Takes the fires that are still free: an alert fires for a token at most once per its window, whichever
       * process asks; the record that fired may take it again. The taken ones, as `alertId|recordKey`.
       */
      takeFires: (fires: ReadonlyArray<{ readonly alertId: number; readonly token: string; readonly at: number; readonly key: string; readonly windowMs: number }>) =>
        fires.length === 0 ? Effect.succeed(new Set<string>()) : sql<{ alert_id: number; record_key: string }>`
          INSERT INTO alert_convergence_fired AS f (alert_id, token, fired_at, quiet_until, record_key)
          SELECT i.a, i.t, i.at, i.at + make_interval(secs => i.ms / 1000.0), i.k
          FROM unnest(${fires.map((f) => f.alertId)}::bigint[], ${fires.map((f) => f.token)}::text[], ${fires.map((f) => new Date(f.at).toISOString())}::timestamptz[],
                      ${fires.map((f) => f.windowMs)}::float8[], ${fires.map((f) => f.key)}::text[]) AS i(a, t, at, ms, k)
          JOIN alert_subscriptions s ON s.id = i.a
          ORDER BY i.a, i.t
          ON CONFLICT (alert_id, token) DO UPDATE SET fired_at = excluded.fired_at, quiet_until = excluded.quiet_until, record_key = excluded.record_key
          WHERE f.record_key = excluded.record_key OR f.quiet_until <= excluded.fired_at
          RETURNING alert_id, record_key`.pipe(Effect.map((rows) => new Set(rows.map((r) => `${Number(r.alert_id)}|${r.record_key}`))), die),

      /** Reorg retractions: these records' buys leave the window. */
      retractBuys: (keys: ReadonlyArray<string>) =>
        sql`DELETE FROM alert_convergence_buys WHERE record_key = ANY(${keys}::text[])`.pipe(Effect.asVoid, die),

      /** Drops buys older than every window. */
      pruneBuys: (before: Date) =>
        sql`DELETE FROM alert_convergence_buys WHERE at < ${before}`.pipe(Effect.asVoid, die),

      // ----------------------------------------------------------------------------------------- custom wallets
      wallets: (userId: number) =>
        sql<{ id: number; address: string; label: string | null; created_at: Date }>`
          SELECT id, address, label, created_at FROM alert_custom_wallets WHERE user_id = ${userId} ORDER BY id`.pipe(die),

      addWallet: (userId: number, address: string, label: string | null, cap: number) =>
        sql.withTransaction(Effect.gen(function* () {
          yield* sql`SELECT pg_advisory_xact_lock(${WALLET_LOCK}, ${userId}::int)`
          const counted = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM alert_custom_wallets WHERE user_id = ${userId}`
          if (counted[0]!.n >= cap) return { kind: "cap" as const }
          const rows = yield* sql<{ id: number; address: string; label: string | null; created_at: Date }>`
            INSERT INTO alert_custom_wallets (user_id, address, label) VALUES (${userId}, ${address}, ${label})
            ON CONFLICT (user_id, address) DO NOTHING RETURNING id, address, label, created_at`
          return rows[0] ? { kind: "added" as const, row: rows[0] } : { kind: "exists" as const }
        })).pipe(die),

      removeWallet: (userId: number, id: number) =>
        sql<{ address: string }>`DELETE FROM alert_custom_wallets WHERE id = ${id} AND user_id = ${userId} RETURNING address`.pipe(
          Effect.map((r) => r[0]?.address ?? null), die),

      walletWatchers: (address: string) =>
        sql<{ n: number }>`SELECT count(*)::int AS n FROM alert_custom_wallets WHERE address = ${address}`.pipe(Effect.map((r) => r[0]!.n), die),

      isCustomWallet: (address: string) =>
        sql<{ label: string | null }>`SELECT label FROM alert_custom_wallets WHERE address = ${address} LIMIT 1`.pipe(
          Effect.map((r) => (r.length > 0 ? { label: r[0]!.label } : null)), die)
    } as const
  })
}) {}
