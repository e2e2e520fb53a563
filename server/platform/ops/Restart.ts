/**
 * An operator restarts an actor from the dashboard: `POST /ops/actors/{name}/restart` (administrators) puts a
 * command on the `ops.cmd` stream; every process running actors follows that stream (from its newest entry at
 * start: old commands are never replayed) and restarts the actor if it runs it (see platform/actors/Supervisor.ts).
 * The dashboard then sees the actor go `restarting` → `running` over `ops:actors`.
 */
import { randomUUID } from "node:crypto"
import { type Context, Duration, Effect } from "effect"
import { OpsEndpoints } from "../../../schema/http/ops"
import { ActorRegistry } from "../actors/Registry"
import { CONSOLE_STREAMS, OpsCommand, OpsReport } from "../../../schema/ws"
import { Principals } from "../http/Principals"
import { NotFound } from "../http/Errors"
import { Reply } from "../http/Reply"
import { route } from "../http/Route"
import { Bus } from "../infra/Bus"

const POLL_MS = 250

/** Reports read to learn which process runs which actor (every process reports every few seconds). */
const REPORTS_READ = 200

/** Names of the actors in the newest report of every process among the latest reports on `ops.actors`. */
const reportedActors = (bus: Context.Tag.Service<typeof Bus>) => Effect.gen(function* () {
  const entries = yield* bus.tail(CONSOLE_STREAMS.opsActors, REPORTS_READ)
  const byProcess = new Map<string, ReadonlySet<string>>()
  for (const entry of [...entries].reverse()) {
    const report = OpsReport.safeParse(entry.payload)
    if (report.success && !byProcess.has(report.data.process)) byProcess.set(report.data.process, new Set(report.data.actors.map((a) => a.name)))
  }
  return byProcess
})

export const RestartRoutes = Effect.gen(function* () {
    const principals = yield* Principals
    const bus = yield* Bus
    return [
      route(OpsEndpoints.restart, {
        guard: principals.admin,
        handler: ({ params, auth }) =>
          Effect.gen(function* () {
            const processes = [...(yield* reportedActors(bus)).values()].filter((names) => names.has(params.name)).length
            if (processes === 0) return yield* Effect.fail(new NotFound({ message: `No process reports an actor named ${params.name}`, code: "actor_not_found" }))
            const command: OpsCommand = { messageId: randomUUID(), command: "restart", actor: params.name, by: auth.id, at: new Date().toISOString() }
            yield* bus.publish(CONSOLE_STREAMS.opsCommands, command, 1_000)
            return Reply.json({ accepted: true, actor: params.name, processes }, 202)
          })
      })
    ]
  })

/** In processes that run actors: follow `ops.cmd` and restart the local actors it names. */
export const startRestartListener = Effect.gen(function* () {
  const bus = yield* Bus
  const registry = yield* ActorRegistry
  let last = (yield* bus.tail(CONSOLE_STREAMS.opsCommands, 1))[0]?.id ?? "0-0"
  const step = Effect.gen(function* () {
    const entries = yield* bus.rangeAfter(CONSOLE_STREAMS.opsCommands, last, 100)
    for (const entry of entries) {
      last = entry.id
      const command = OpsCommand.safeParse(entry.payload)
      if (!command.success) continue
      if (yield* registry.restart(command.data.actor)) {
        yield* Effect.logWarning(`restarting actor ${command.data.actor} at the request of user ${command.data.by}`)
      }
    }
    if (entries.length === 0) yield* Effect.sleep(Duration.millis(POLL_MS))
  }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("ops command listener failed", cause).pipe(Effect.zipRight(Effect.sleep(Duration.seconds(1))))))
  yield* Effect.forkScoped(Effect.forever(step).pipe(Effect.annotateLogs({ feature: "ops-commands" })))
})
