/**
 * SQL of the playbook's own tables (migration 0070): events, their transitions and cached metrics. Status moves run
 * in one transaction with the event row locked; the partial unique index on LIVE turns a lost race into a conflict.
 * Database faults are defects here.
 */
import { SqlClient, type SqlError } from "@effect/sql"
import { Effect } from "effect"
import type { EventCategory, EventMetrics, EventStatus } from "../../../schema/http/playbook"
import { spanned } from "../../platform/ops/Spans"

export interface EventRow {
  readonly id: number
  readonly calendar_key: string | null
  readonly title: string
  readonly category: EventCategory
  readonly status: EventStatus
  readonly ts: Date
  readonly severity: number
  readonly tokens: ReadonlyArray<string>
  readonly description: string
  readonly source_url: string | null
  readonly origin: "calendar" | "import" | "admin"
  readonly final_metrics: EventMetrics | null
  readonly live_at: Date | null
  readonly completed_at: Date | null
  readonly created_at: Date
  readonly updated_at: Date
}

export interface EventFields {
  readonly title: string
  readonly category: EventCategory
  /** ISO 8601. */
  readonly timestamp: string
  readonly severity: number
  readonly tokens: ReadonlyArray<string>
  readonly description: string
  readonly source_url: string | null
}

export interface CalendarRow extends EventFields {
  readonly key: string
}

const COLUMNS = `id, calendar_key, title, category, status, ts, severity, tokens, description, source_url, origin,
  final_metrics, live_at, completed_at, created_at, updated_at`

const isUniqueViolation = (e: SqlError.SqlError) => (e.cause as { code?: string } | undefined)?.code === "23505"

export class PlaybookRepo extends Effect.Service<PlaybookRepo>()("app/playbook/Repo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.unsafe(COLUMNS)

    const list = (f: { category?: EventCategory | undefined; status?: EventStatus | undefined; limit: number }) =>
      sql<EventRow>`SELECT ${cols} FROM playbook_events
        WHERE ${sql.and([
          ...(f.category ? [sql`category = ${f.category}`] : []),
          ...(f.status ? [sql`status = ${f.status}`] : [])
        ])}
        ORDER BY ts DESC, id DESC LIMIT ${f.limit}`.pipe(Effect.orDie)

    /** SCHEDULED events whose time has passed plus every COMPLETED one, newest first, with the total count. */
    const past = (f: { category?: EventCategory | undefined; limit: number; offset: number; now: Date }) => {
      const where = sql.and([
        sql`((status = 'SCHEDULED' AND ts <= ${f.now}) OR status = 'COMPLETED')`,
        ...(f.category ? [sql`category = ${f.category}`] : [])
      ])
      return Effect.all({
        rows: sql<EventRow>`SELECT ${cols} FROM playbook_events WHERE ${where} ORDER BY ts DESC, id DESC LIMIT ${f.limit} OFFSET ${f.offset}`,
        total: sql<{ n: number }>`SELECT count(*)::int AS n FROM playbook_events WHERE ${where}`.pipe(Effect.map((r) => r[0]?.n ?? 0))
      }).pipe(Effect.orDie)
    }

    /** Every event (the calendar is small: hundreds of rows), oldest first. */
    const all = sql<EventRow>`SELECT ${cols} FROM playbook_events ORDER BY ts, id`.pipe(Effect.orDie)

    const get = (id: number) =>
      sql<EventRow>`SELECT ${cols} FROM playbook_events WHERE id = ${id}`.pipe(Effect.map((r) => r[0] ?? null), Effect.orDie)

    const live = sql<EventRow>`SELECT ${cols} FROM playbook_events WHERE status = 'LIVE' LIMIT 1`.pipe(
      Effect.map((r) => r[0] ?? null),
      Effect.orDie
    )

    const insert = (e: EventFields) =>
      sql<EventRow>`INSERT INTO playbook_events (title, category, ts, severity, tokens, description, source_url, origin)
        VALUES (${e.title}, ${e.category}, ${e.timestamp}, ${e.severity}, ${e.tokens as Array<string>}::text[], ${e.description},
          ${e.source_url}, 'admin')
        RETURNING ${cols}`.pipe(Effect.map((r) => r[0]!), Effect.orDie)

    /** Applies the given fields (an admin edit: the calendar upsert leaves the row alone from now on). */
    const update = (id: number, e: Partial<EventFields>) =>
      sql<EventRow>`UPDATE playbook_events SET
          title = coalesce(${e.title ?? null}, title),
          category = coalesce(${e.category ?? null}, category),
          ts = coalesce(${e.timestamp ?? null}::timestamptz, ts),
          severity = coalesce(${e.severity ?? null}::smallint, severity),
          tokens = ${e.tokens === undefined ? sql`tokens` : sql`${e.tokens as Array<string>}::text[]`},
          description = coalesce(${e.description ?? null}, description),
          source_url = ${e.source_url === undefined ? sql`source_url` : sql`${e.source_url}`},
          edited_at = now(), updated_at = now()
        WHERE id = ${id} RETURNING ${cols}`.pipe(Effect.map((r) => r[0] ?? null), Effect.orDie)

    /**
     * Upserts calendar entries by key in one statement. Rows an admin edited keep their fields; status and metrics
     * are never touched. Returns how many rows were inserted and updated.
     */
    const upsertCalendar = (rows: ReadonlyArray<CalendarRow>, origin: "calendar" | "import") =>
      rows.length === 0
        ? Effect.succeed({ inserted: 0, updated: 0 })
        : sql<{ inserted: boolean }>`
          INSERT INTO playbook_events AS e (calendar_key, title, category, ts, severity, tokens, description, source_url, origin)
          SELECT k, t, c, ts, s, coalesce(string_to_array(nullif(tok, ''), ','), '{}'), d, u, ${origin}
          FROM unnest(${rows.map((r) => r.key)}::text[], ${rows.map((r) => r.title)}::text[], ${rows.map((r) => r.category)}::text[],
            ${rows.map((r) => r.timestamp)}::timestamptz[], ${rows.map((r) => r.severity)}::smallint[],
            ${rows.map((r) => r.tokens.join(","))}::text[], ${rows.map((r) => r.description)}::text[],
            ${rows.map((r) => r.source_url)}::text[]) AS i(k, t, c, ts, s, tok, d, u)
          ON CONFLICT (calendar_key) DO UPDATE SET title = EXCLUDED.title, category = EXCLUDED.category, ts = EXCLUDED.ts,
            severity = EXCLUDED.severity, tokens = EXCLUDED.tokens, description = EXCLUDED.description,
            source_url = EXCLUDED.source_url, updated_at = now()
          WHERE e.edited_at IS NULL AND (e.title, e.category, e.ts, e.severity, e.tokens, e.description, e.source_url)
            IS DISTINCT FROM (EXCLUDED.title, EXCLUDED.category, EXCLUDED.ts, EXCLUDED.severity, EXCLUDED.tokens,
              EXCLUDED.description, EXCLUDED.source_url)
          RETURNING (xmax = 0) AS inserted`.pipe(
            Effect.map((r) => ({ inserted: r.filter((x) => x.inserted).length, updated: r.filter((x) => !x.inserted).length })),
            Effect.orDie
          )

    /**
     * Moves `id` to `to` when `decide(row, otherLive)` allows it, in one transaction with the row locked. `decide`
     * returns the fields to set or a refusal. A concurrent move to LIVE that loses at the unique index is `LiveTaken`.
     */
    const transition = <R>(
      id: number,
      actor: string,
      decide: (row: EventRow, otherLiveId: number | null) => { readonly ok: true; readonly to: EventStatus } | { readonly ok: false; readonly refusal: R }
    ) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const row = (yield* sql<EventRow>`SELECT ${cols} FROM playbook_events WHERE id = ${id} FOR UPDATE`)[0]
            if (!row) return { _tag: "NotFound" as const }
            const other = (yield* sql<{ id: number }>`SELECT id FROM playbook_events WHERE status = 'LIVE' AND id <> ${id} LIMIT 1`)[0]
            const d = decide(row, other?.id ?? null)
            if (!d.ok) return { _tag: "Refused" as const, refusal: d.refusal }
            const updated = (yield* sql<EventRow>`UPDATE playbook_events SET status = ${d.to},
                live_at = CASE WHEN ${d.to} = 'LIVE' THEN now() ELSE live_at END,
                completed_at = CASE WHEN ${d.to} = 'COMPLETED' THEN now() ELSE completed_at END,
                updated_at = now()
              WHERE id = ${id} RETURNING ${cols}`)[0]!
            yield* sql`INSERT INTO playbook_transitions (event_id, from_status, to_status, actor) VALUES (${id}, ${row.status}, ${d.to}, ${actor})`
            return { _tag: "Moved" as const, before: row, after: updated }
          })
        )
        .pipe(
          Effect.catchIf(isUniqueViolation, () =>
            live.pipe(Effect.map((l) => ({ _tag: "LiveTaken" as const, liveEventId: l?.id ?? null })))
          ),
          Effect.orDie
        )

    const setFinalMetrics = (id: number, m: EventMetrics) =>
      sql`UPDATE playbook_events SET final_metrics = ${JSON.stringify(m)}::jsonb, metrics_at = now(), updated_at = now() WHERE id = ${id}`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    /** Timestamps of high-severity events in `[from, to)` other than `exceptId`. */
    const highSeverityTimestamps = (from: Date, to: Date, exceptId: number, minSeverity: number) =>
      sql<{ ts: Date }>`SELECT ts FROM playbook_events WHERE ts >= ${from} AND ts < ${to} AND severity >= ${minSeverity} AND id <> ${exceptId}`.pipe(
        Effect.map((r) => r.map((x) => x.ts.getTime())),
        Effect.orDie
      )

    const cachedMetrics = (ids: ReadonlyArray<number>) =>
      ids.length === 0
        ? Effect.succeed([] as ReadonlyArray<{ event_id: number; event_ts: Date; metrics: EventMetrics; computed_at: Date }>)
        : sql<{ event_id: number; event_ts: Date; metrics: EventMetrics; computed_at: Date }>`
            SELECT event_id, event_ts, metrics, computed_at FROM playbook_metrics WHERE event_id IN ${sql.in(ids)}`.pipe(Effect.orDie)

    const putCachedMetrics = (id: number, eventTs: Date, m: EventMetrics) =>
      sql`INSERT INTO playbook_metrics (event_id, event_ts, metrics) VALUES (${id}, ${eventTs}, ${JSON.stringify(m)}::jsonb)
        ON CONFLICT (event_id) DO UPDATE SET event_ts = EXCLUDED.event_ts, metrics = EXCLUDED.metrics, computed_at = now()`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    /**
     * Changes with every insert, edit, status change or metrics write of any event (count and newest `updated_at`):
     * part of the cache key of running computations, so that an event change is seen at once, in every process.
     */
    const version = sql<{ n: number; at: Date | null }>`SELECT count(*)::int AS n, max(updated_at) AS at FROM playbook_events`.pipe(
      Effect.map((r) => `${r[0]?.n ?? 0}:${r[0]?.at?.getTime() ?? 0}`),
      Effect.orDie
    )

    const transitions = (id: number) =>
      sql<{ from_status: string; to_status: string; actor: string; at: Date }>`
        SELECT from_status, to_status, actor, at FROM playbook_transitions WHERE event_id = ${id} ORDER BY at, id`.pipe(Effect.orDie)

    return spanned("PlaybookRepo", {
      list, past, all, get, live, insert, update, upsertCalendar, transition, setFinalMetrics, highSeverityTimestamps,
      cachedMetrics, putCachedMetrics, transitions, version
    } as const)
  })
}) {}
