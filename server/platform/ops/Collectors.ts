/** Scrape-time metrics: actor health, bus figures, database pool. */
import { Effect, Layer } from "effect"
import { ActorRegistry, type ActorStatus } from "../actors/Registry"
import { Bus } from "../infra/Bus"
import { DbInfo } from "../infra/Sql"
import { Metrics, type Sample } from "./Metrics"

const STATES = ["starting", "running", "standby", "restarting", "failed", "stopped"] as const

export const OpsCollectors = Layer.effectDiscard(
  Effect.gen(function* () {
    const metrics = yield* Metrics
    const registry = yield* ActorRegistry
    const bus = yield* Bus
    const db = yield* DbInfo
    const perActor = (name: string, help: string, type: "gauge" | "counter", pick: (a: ActorStatus) => number | null) =>
      metrics.collect({
        name, help, type,
        collect: registry.snapshot.pipe(Effect.map((all) => all.flatMap((a): Array<Sample> => {
          const v = pick(a)
          return v === null ? [] : [{ labels: { actor: a.name }, value: v }]
        })))
      })
    metrics.collect({
      name: "actor_state", help: "1 for the actor's current state", type: "gauge",
      collect: registry.snapshot.pipe(Effect.map((all) => all.flatMap((a) => STATES.map((state) => ({ labels: { actor: a.name, state }, value: a.state === state ? 1 : 0 })))))
    })
    perActor("actor_messages_handled_total", "Messages handled successfully", "counter", (a) => a.handled)
    perActor("actor_handler_failures_total", "Handler failures (message left pending for retry)", "counter", (a) => a.failures)
    perActor("actor_dead_lettered_total", "Messages this process moved to the dead-letter stream", "counter", (a) => a.deadLettered)
    perActor("actor_restarts_total", "Supervisor restarts", "counter", (a) => a.restarts)
    perActor("actor_consumer_lag", "Entries not yet delivered to the actor's group", "gauge", (a) => a.lag)
    perActor("actor_pending", "Entries delivered and not yet acknowledged", "gauge", (a) => a.pending)
    perActor("actor_dead_letters", "Entries in the actor stream's dead-letter stream", "gauge", (a) => a.deadLetters)
    perActor("actor_heartbeat_age_seconds", "Seconds since the actor's last heartbeat", "gauge", (a) => a.lastHeartbeat ? (Date.now() - Date.parse(a.lastHeartbeat)) / 1000 : null)
    metrics.collect({
      name: "bus_messages_total", help: "Bus operations by this process", type: "counter",
      collect: bus.stats.pipe(Effect.map((s) => [
        { labels: { kind: s.kind, op: "published" }, value: s.published },
        { labels: { kind: s.kind, op: "acked" }, value: s.acked },
        { labels: { kind: s.kind, op: "dead_lettered" }, value: s.deadLettered }
      ]))
    })
    metrics.collect({
      name: "db_pool_connections", help: "Database pool connections by state", type: "gauge",
      collect: Effect.sync(() => {
        const p = db.pool()
        return [
          { labels: { kind: db.kind, state: "total" }, value: p.total },
          { labels: { kind: db.kind, state: "idle" }, value: p.idle },
          { labels: { kind: db.kind, state: "waiting" }, value: p.waiting },
          { labels: { kind: db.kind, state: "max" }, value: p.max }
        ]
      })
    })
  })
)
