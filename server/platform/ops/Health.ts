/** Liveness and readiness: the database answers, the bus answers, and no actor has failed or is still starting. */
import { SqlClient } from "@effect/sql"
import { Duration, Effect } from "effect"
import { ActorRegistry } from "../actors/Registry"
import { Bus } from "../infra/Bus"

export interface Readiness {
  readonly ready: boolean
  readonly checks: {
    readonly database: { readonly ok: boolean; readonly ms: number; readonly error?: string }
    readonly bus: { readonly ok: boolean; readonly kind: string }
    readonly actors: {
      readonly ok: boolean
      readonly notReady: ReadonlyArray<{ readonly name: string; readonly state: string; readonly lastError: string | null }>
      /** Healthy actors idling on purpose, with why (e.g. the messenger bot without a token). */
      readonly idle: ReadonlyArray<{ readonly name: string; readonly reason: string }>
    }
  }
}

const CHECK_TIMEOUT = Duration.seconds(2)

export class Health extends Effect.Service<Health>()("app/Health", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const bus = yield* Bus
    const registry = yield* ActorRegistry
    const started = Date.now()

    const database = Effect.gen(function* () {
      const t0 = performance.now()
      const result = yield* sql`SELECT 1 AS ok`.pipe(Effect.timeout(CHECK_TIMEOUT), Effect.either)
      const ms = Math.round(performance.now() - t0)
      return result._tag === "Right" ? { ok: true, ms } : { ok: false, ms, error: String(result.left) }
    })

    return {
      uptimeSeconds: () => Math.round((Date.now() - started) / 1000),
      readiness: Effect.fn("Health.readiness")(function* () {
        const [db, busOk, actors] = yield* Effect.all([
          database,
          bus.ping.pipe(Effect.timeout(CHECK_TIMEOUT), Effect.orElseSucceed(() => false)),
          registry.snapshot
        ], { concurrency: "unbounded" })
        // `standby` is healthy: a singleton whose lease another process holds.
        const notReady = actors.filter((a) => a.state !== "running" && a.state !== "standby").map((a) => ({ name: a.name, state: a.state, lastError: a.lastError }))
        const idle = actors.filter((a) => a.state === "standby" && a.lastError?.startsWith("idle: ")).map((a) => ({ name: a.name, reason: a.lastError!.slice(6) }))
        const checks = { database: db, bus: { ok: busOk, kind: bus.kind }, actors: { ok: notReady.length === 0, notReady, idle } }
        return { ready: db.ok && busOk && notReady.length === 0, checks } satisfies Readiness
      })
    } as const
  })
}) {}
