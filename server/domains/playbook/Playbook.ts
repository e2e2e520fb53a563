/**
 * The playbook service: events and their life cycle (spec §3.1), metrics of their windows (Engine), and the reads
 * of spec §4.9. Time comes from Effect's Clock (tests move it with TestClock). Status changes are announced on
 * `domain.events` as `PlaybookEventStatus` with the deterministic id `playbook:<id>:<status>`.
 */
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { Clock, Duration, Effect } from "effect"
import type { CreateEventRequest, EventCategory, EventDetail, EventMetrics, EventStatus, UpdateEventRequest } from "../../../schema/http/playbook"
import { STREAMS } from "../../../schema/streams"
import { Bus } from "../../platform/infra/Bus"
import { memo } from "../../platform/infra/Memo"
import { parseCalendar, formatProblems, type Keyed } from "./CalendarFile"
import { PlaybookConfig } from "./Config"
import { Engine } from "./Engine"
import { EventNotFound, LiveEventExists, NotCompleted, TransitionRefused } from "./Errors"
import { type EventRow, PlaybookRepo } from "./Repo"
import { eventWindow, windowSize } from "./Spans"
import { canRecompute, decide, refusal } from "./StateMachine"
import { eventView } from "./Views"

export class Playbook extends Effect.Service<Playbook>()("app/playbook/Playbook", {
  effect: Effect.gen(function* () {
    const repo = yield* PlaybookRepo
    const engine = yield* Engine
    const bus = yield* Bus
    const config = yield* PlaybookConfig

    const now = Clock.currentTimeMillis.pipe(Effect.map(Number))
    const windowOf = (r: EventRow) => eventWindow(r.ts.getTime(), windowSize(r.category, config.windows))

    const found = (id: number) =>
      repo.get(id).pipe(Effect.flatMap((r) => (r === null ? Effect.fail(new EventNotFound({ id })) : Effect.succeed(r))))

    const compute = (r: EventRow, at: number) => engine.compute({ id: r.id, ts: r.ts.getTime(), category: r.category }, at, config.windows)

    /**
     * Running computations (metrics of an open window, the positioning gauge) are made once per slot of
     * PLAYBOOK_RUNNING_CACHE_SECONDS, as of the slot's start, and shared by every request in the slot: a burst of
     * requests costs one computation, and every answer of a slot is the same. Whale activity is up to a slot late;
     * a change of the events (created, edited, moved) is not: the events' version is part of every key (`slotKey`).
     * 0 turns it off (computed on each request, as of then).
     */
    const slotMs = config.runningCacheSeconds * 1000
    const slotOf = (at: number) => (slotMs === 0 ? at : Math.floor(at / slotMs) * slotMs)
    /** `slot start|events version`: the tail of a running computation's cache key, as of `at`. */
    const slotKey = (at: number) => Effect.map(repo.version, (v) => `${slotOf(at)}|${v}`)
    const cached = <A, E>(compute: (key: string) => Effect.Effect<A, E>) =>
      memo({ ttl: Duration.millis(Math.max(slotMs, 1)), capacity: 256, compute })

    // Key: event id | timestamp | category (its window) | slot start | events version.
    const running = yield* cached((key: string) => {
      const [id, ts, category, at] = key.split("|")
      return engine.compute({ id: Number(id), ts: Number(ts), category: category as EventCategory }, Number(at), config.windows)
    })
    const runningMetrics = (r: EventRow, at: number) =>
      slotMs === 0 ? compute(r, at) : Effect.flatMap(slotKey(at), (k) => running.get(`${r.id}|${r.ts.getTime()}|${r.category}|${k}`))

    /**
     * Metrics of an event: the cached final ones of a COMPLETED event; for a past event the cached ones while
     * fresh (PLAYBOOK_METRICS_TTL_SECONDS); for a running window those of the current slot (as of its start);
     * null before the window opens.
     */
    const metricsOf = Effect.fn("Playbook.metricsOf")(function* (r: EventRow) {
      if (r.status === "COMPLETED" && r.final_metrics) return r.final_metrics
      const at = yield* now
      if (at < windowOf(r).whole.to) return yield* runningMetrics(r, at)
      const [cached] = yield* repo.cachedMetrics([r.id])
      if (cached && cached.event_ts.getTime() === r.ts.getTime() && at - cached.computed_at.getTime() < config.metricsTtlSeconds * 1000) return cached.metrics
      const m = yield* compute(r, at)
      if (m) yield* repo.putCachedMetrics(r.id, r.ts, m)
      return m
    })

    /** Metrics of every event whose window has ended (patterns, search by flow or impact). */
    const computePastMetrics = (at: number) => Effect.gen(function* () {
      const rows = (yield* repo.all).filter((r) => (r.status === "COMPLETED" && r.final_metrics) || windowOf(r).whole.to <= at)
      const cached = new Map((yield* repo.cachedMetrics(rows.filter((r) => !r.final_metrics).map((r) => r.id))).map((c) => [c.event_id, c]))
      return yield* Effect.forEach(
        rows,
        (r) => {
          const c = cached.get(r.id)
          if (r.status === "COMPLETED" && r.final_metrics) return Effect.succeed({ row: r, metrics: r.final_metrics })
          if (c && c.event_ts.getTime() === r.ts.getTime() && at - c.computed_at.getTime() < config.metricsTtlSeconds * 1000)
            return Effect.succeed({ row: r, metrics: c.metrics })
          return compute(r, at).pipe(
            Effect.tap((m) => (m ? repo.putCachedMetrics(r.id, r.ts, m) : Effect.void)),
            Effect.map((m) => ({ row: r, metrics: m as EventMetrics | null }))
          )
        },
        { concurrency: 2 }
      )
    })
    // One computation per slot and events version, however many requests arrive meanwhile (a fresh process has
    // every past event's metrics to compute, and concurrent requests would each compute them all).
    const pastMemo = yield* cached((key: string) => computePastMetrics(Number(key.split("|")[0])))
    const pastMetrics = Effect.fn("Playbook.pastMetrics")(function* () {
      const at = yield* now
      return slotMs === 0 ? yield* computePastMetrics(at) : yield* pastMemo.get(yield* slotKey(at))
    })

    const detail = Effect.fn("Playbook.detail")(function* (id: number) {
      const r = yield* found(id)
      return { ...eventView(r), metrics: yield* metricsOf(r) } satisfies EventDetail
    })

    const announce = (r: EventRow) =>
      bus.publish(STREAMS.domainEvents, {
        messageId: `playbook:${r.id}:${r.status}`,
        _tag: "PlaybookEventStatus",
        event_id: r.id,
        title: r.title,
        category: r.category,
        severity: r.severity,
        status: r.status,
        at: (r.status === "LIVE" ? r.live_at : r.completed_at)?.toISOString() ?? new Date().toISOString()
      })

    /** Moves an event (§3.1); on COMPLETED computes and caches the final metrics. */
    const setStatus = Effect.fn("Playbook.setStatus")(function* (id: number, to: EventStatus, actor: string) {
      const result = yield* repo.transition(id, actor, (row, otherLive) => {
        const d = decide(row.status, to, otherLive)
        return d._tag === "Move" ? { ok: true, to } : { ok: false, refusal: d }
      })
      switch (result._tag) {
        case "NotFound":
          return yield* new EventNotFound({ id })
        case "LiveTaken":
          return yield* new LiveEventExists({ liveEventId: result.liveEventId, message: "Another event is LIVE already; complete it first (at most one LIVE event)" })
        case "Refused": {
          const d = result.refusal
          if (d._tag === "LiveTaken") return yield* new LiveEventExists({ liveEventId: d.liveEventId, message: refusal(d) })
          if (d._tag === "Illegal") return yield* new TransitionRefused({ id, from: d.from, to: d.to, allowed: d.allowed, message: refusal(d) })
          return yield* Effect.dieMessage("unreachable")
        }
      }
      let after = result.after
      if (after.status === "COMPLETED") {
        const m = yield* compute(after, yield* now)
        if (m) {
          yield* repo.setFinalMetrics(id, m)
          after = { ...after, final_metrics: m }
        }
      }
      yield* announce(after)
      yield* Effect.logInfo("playbook event status changed").pipe(Effect.annotateLogs({ event_id: id, from: result.before.status, to: after.status, actor }))
      return after
    })

    const recompute = Effect.fn("Playbook.recompute")(function* (id: number) {
      const r = yield* found(id)
      if (!canRecompute(r.status)) return yield* new NotCompleted({ id, status: r.status })
      const m = yield* compute(r, yield* now)
      if (m) yield* repo.setFinalMetrics(id, m)
      return { ...eventView(r), final_metrics: m, metrics: m } satisfies EventDetail
    })

    const fields = (b: CreateEventRequest) => ({
      title: b.title, category: b.category, timestamp: b.timestamp, severity: b.severity,
      tokens: b.tokens ?? [], description: b.description ?? "", source_url: b.source_url ?? null
    })

    const create = Effect.fn("Playbook.create")(function* (b: CreateEventRequest) {
      return eventView(yield* repo.insert(fields(b)))
    })

    const update = Effect.fn("Playbook.update")(function* (id: number, b: UpdateEventRequest) {
      const r = yield* repo.update(id, b)
      if (r === null) return yield* new EventNotFound({ id })
      return eventView(r)
    })

    const importEntries = (entries: ReadonlyArray<Keyed>, origin: "calendar" | "import") =>
      repo.upsertCalendar(
        entries.map((e) => ({ key: e.key, ...fields(e) })),
        origin
      )

    /** Upserts the calendar file at start; a broken file is logged with every problem and skipped. */
    const seedCalendar = Effect.gen(function* () {
      if (config.calendarFile === "") return
      const path = resolve(config.calendarFile)
      const text = yield* Effect.try(() => readFileSync(path, "utf8")).pipe(Effect.option)
      if (text._tag === "None") return yield* Effect.logWarning(`playbook calendar ${path} not found; none upserted`)
      const parsed = parseCalendar(text.value, path.endsWith(".csv") ? "csv" : "json")
      if (parsed._tag === "Rejected")
        return yield* Effect.logError(`playbook calendar ${path} rejected:\n${formatProblems(parsed.problems, path.endsWith(".csv") ? "csv" : "json")}`)
      const n = yield* importEntries(parsed.entries, "calendar")
      yield* Effect.logInfo("playbook calendar upserted").pipe(Effect.annotateLogs({ file: path, events: parsed.entries.length, ...n }))
    })

    const list = (q: { category?: EventCategory | undefined; status?: EventStatus | undefined; limit: number }) =>
      repo.list(q).pipe(Effect.map((rows) => ({ events: rows.map(eventView) })))

    const past = (q: { category?: EventCategory | undefined; limit: number; offset: number }) =>
      Effect.gen(function* () {
        const { rows, total } = yield* repo.past({ ...q, now: new Date(yield* now) })
        return { events: rows.map(eventView), limit: q.limit, offset: q.offset, total }
      })

    return {
      now, windowOf, slotKey, cached, runningComputations: () => running.computations(), found, metricsOf, pastMetrics, detail,
      setStatus, recompute, create, update, importEntries, seedCalendar, list, past, live: repo.live, all: repo.all, config
    } as const
  })
}) {}
