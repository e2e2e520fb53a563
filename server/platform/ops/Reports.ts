/**
 * Every process reports its own actors (from `ActorRegistry`: a report on every change, debounced, and one every
 * `opsReportMs` for rates, lag and heartbeats), with its bus, stream and database figures, on the `ops.actors`
 * stream. The hub of every `http` process relays that stream as the admin-only `ops:actors` topic, so the
 * operators' dashboard sees the actors of every process, wherever it connects.
 */
import { hostname } from "node:os"
import { Duration, Effect, Queue, Stream } from "effect"
import { ActorRegistry, type ActorStatus } from "../actors/Registry"
import { INSTANCE } from "../Instance"
import { STREAMS } from "../../../schema/streams"
import { CONSOLE_STREAMS, type ActorReport, type OpsReport } from "../../../schema/ws"
import { AppConfig } from "../Config"
import { Bus } from "../infra/Bus"
import { DbInfo } from "../infra/Sql"
import { Health } from "./Health"

/** Reports kept in the stream (the hub only ever sends the newest per process). */
const REPORTS_KEPT = 500
/** Changes within this window go out as one report. */
const DEBOUNCE_MS = 150

export interface ReporterOptions {
  /** Open WebSocket connections of this process (null without the http role). */
  readonly wsConnections: (() => number) | null
}

export const startOpsReporter = (options: ReporterOptions) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const registry = yield* ActorRegistry
    const bus = yield* Bus
    const db = yield* DbInfo
    const health = yield* Health
    const started = Date.now()
    const previous = new Map<string, { readonly handled: number; readonly at: number }>()

    const actorReport = (a: ActorStatus, now: number): ActorReport => {
      const before = previous.get(a.name)
      previous.set(a.name, { handled: a.handled, at: now })
      const seconds = before ? (now - before.at) / 1000 : 0
      const rate = before && seconds > 0 ? Math.max(0, a.handled - before.handled) / seconds : 0
      return {
        name: a.name, kind: a.kind, state: a.state, restarts: a.restarts, last_error: a.lastError, last_error_at: a.lastErrorAt,
        handled: a.handled, handled_per_sec: Math.round(rate * 100) / 100, failures: a.failures, stream: a.stream, lag: a.lag,
        pending: a.pending, dead_letters: a.deadLetters, last_heartbeat: a.lastHeartbeat, started_at: a.startedAt
      }
    }

    const report = Effect.gen(function* () {
      const [actors, readiness, stats] = yield* Effect.all([registry.snapshot, health.readiness(), bus.stats])
      const names = [...new Set([STREAMS.chainTx, ...actors.flatMap((a) => (a.stream ? [a.stream] : []))])]
      const streams = yield* Effect.forEach(names, (name) =>
        bus.groupInfo(name, "ops-report").pipe(Effect.map((info) => ({ name, length: info.length, dead_letters: info.deadLetters }))))
      const now = Date.now()
      const pool = db.pool()
      const body: OpsReport = {
        process: INSTANCE, host: hostname(), pid: process.pid, roles: [...config.roles], at: new Date(now).toISOString(),
        uptime_seconds: Math.round((now - started) / 1000),
        actors: actors.map((a) => actorReport(a, now)),
        bus: { kind: stats.kind, ok: readiness.checks.bus.ok, published: stats.published, acked: stats.acked, dead_lettered: stats.deadLettered },
        streams,
        db: { kind: db.kind, ok: readiness.checks.database.ok, ms: readiness.checks.database.ms, ...pool },
        ws: options.wsConnections ? { connections: options.wsConnections() } : null
      }
      yield* bus.publish(CONSOLE_STREAMS.opsActors, { messageId: `${INSTANCE}:${now}`, ...body }, REPORTS_KEPT)
    })

    const wake = yield* Queue.sliding<void>(1)
    yield* Effect.forkScoped(Stream.runForEach(registry.changes, () => Queue.offer(wake, undefined)))
    const loop = Effect.gen(function* () {
      yield* Queue.take(wake).pipe(Effect.timeout(Duration.millis(config.ws.opsReportMs)), Effect.ignore)
      yield* Effect.sleep(Duration.millis(DEBOUNCE_MS))
      yield* Queue.takeAll(wake)
      yield* report
    }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("ops report failed", cause).pipe(Effect.zipRight(Effect.sleep(Duration.seconds(1))))))
    yield* Effect.forkScoped(Effect.forever(loop).pipe(Effect.annotateLogs({ feature: "ops-reports" })))
  })
