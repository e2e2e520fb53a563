/**
 * The operators' view: every process's report from `ops:actors` (administrators only; the server refuses others),
 * and restarting an actor, whose state change then arrives over the same topic.
 */
import { OpsReport } from "../../../../schema/ws"
import type { Actions, Deps, SetState, State } from "../../store/types"

export const createOps = (deps: Deps, actions: Partial<Actions>, state: State, setState: SetState) => {
  Object.assign(actions, {
    followOps: () => {
      setState("ops", { error: null })
      return deps.ws.subscribe("ops:actors", {
        onData: (data) => {
          const r = OpsReport.safeParse(data)
          if (r.success) setState("ops", "reports", r.data.process, r.data)
        },
        onSubscribed: () => setState("ops", { error: null }),
        onError: (frame) => setState("ops", { error: frame.message })
      })
    },
    restartActor: async (name: string) => {
      setState("ops", "restarting", name, true)
      try {
        const answer = await deps.http.ops.restart(name)
        setState("ops", { notice: `Restart of ${name} requested on ${answer.processes} process${answer.processes === 1 ? "" : "es"}.` })
      } catch (e) {
        setState("ops", { notice: `Could not restart ${name}: ${(e as Error).message}` })
      } finally {
        setTimeout(() => setState("ops", "restarting", name, false), 1_500)
      }
    }
  } satisfies Pick<Actions, "followOps" | "restartActor">)
}
