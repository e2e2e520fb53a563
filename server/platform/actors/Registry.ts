/**
 * Every actor's health in one place: state, restarts, last error, messages handled, consumer lag and pending,
 * dead letters, last heartbeat. Feeds /readyz, /metrics and the operators' dashboard (`changes`).
 */
import { Effect, PubSub, Stream } from "effect"

export type ActorState = "starting" | "running" | "standby" | "restarting" | "failed" | "stopped"

export interface ActorStatus {
  readonly name: string
  readonly kind: "stream" | "loop"
  readonly state: ActorState
  readonly restarts: number
  readonly lastError: string | null
  readonly lastErrorAt: string | null
  readonly handled: number
  /** Handler failures (the message stays pending and is retried). */
  readonly failures: number
  readonly deadLettered: number
  readonly stream: string | null
  readonly group: string | null
  readonly lag: number | null
  readonly pending: number | null
  readonly deadLetters: number | null
  readonly lastHeartbeat: string | null
  readonly startedAt: string | null
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

export interface ActorHandle {
  readonly update: (patch: Partial<ActorStatus>) => void
  readonly heartbeat: () => void
  readonly handled: (n?: number) => void
  readonly failed: (error: unknown) => void
  readonly deadLettered: () => void
  readonly get: () => ActorStatus
  /** The supervisor's hook for an operator's restart request (`ActorRegistry.restart`); null removes it. */
  readonly onRestart: (hook: (() => void) | null) => void
}

export const describeError = (error: unknown): string => {
  if (error instanceof Error) return `${error.name}: ${error.message}`
  if (typeof error === "object" && error !== null && "_tag" in error) {
    const e = error as { _tag: string; message?: string }
    return e.message ? `${e._tag}: ${e.message}` : e._tag
  }
  return String(error)
}

export class ActorRegistry extends Effect.Service<ActorRegistry>()("app/ActorRegistry", {
  scoped: Effect.gen(function* () {
    const actors = new Map<string, Mutable<ActorStatus>>()
    const restartHooks = new Map<string, () => void>()
    const changes = yield* PubSub.sliding<ActorStatus>(1024)
    const publish = (s: ActorStatus) => void Effect.runSync(PubSub.publish(changes, { ...s }))

    const register = (name: string, kind: ActorStatus["kind"], stream?: string, group?: string): ActorHandle => {
      const status: Mutable<ActorStatus> = actors.get(name) ?? {
        name, kind, state: "starting", restarts: 0, lastError: null, lastErrorAt: null, handled: 0, failures: 0,
        deadLettered: 0, stream: stream ?? null, group: group ?? null, lag: null, pending: null, deadLetters: null,
        lastHeartbeat: null, startedAt: null
      }
      actors.set(name, status)
      publish(status)
      return {
        update: (patch) => {
          const stateChanged = patch.state !== undefined && patch.state !== status.state
          Object.assign(status, patch)
          if (patch.state === "running" && stateChanged) status.startedAt = new Date().toISOString()
          publish(status)
        },
        heartbeat: () => {
          status.lastHeartbeat = new Date().toISOString()
        },
        handled: (n = 1) => {
          status.handled += n
          status.lastHeartbeat = new Date().toISOString()
        },
        failed: (error) => {
          status.failures++
          status.lastError = describeError(error).slice(0, 500)
          status.lastErrorAt = new Date().toISOString()
          publish(status)
        },
        deadLettered: () => {
          status.deadLettered++
          publish(status)
        },
        get: () => ({ ...status }),
        onRestart: (hook) => {
          if (hook) restartHooks.set(name, hook)
          else restartHooks.delete(name)
        }
      }
    }

    return {
      register,
      snapshot: Effect.sync(() => [...actors.values()].map((s) => ({ ...s })) as ReadonlyArray<ActorStatus>),
      get: (name: string) => Effect.sync(() => {
        const s = actors.get(name)
        return s ? ({ ...s } as ActorStatus) : undefined
      }),
      /**
       * Whether an actor of this process reads `stream` (registered and not stopped): work meant for that stream's
       * readers can be done here directly, as they would do it.
       */
      readsHere: (stream: string) => Effect.sync(() => {
        for (const s of actors.values()) if (s.stream === stream && s.state !== "stopped") return true
        return false
      }),
      /** Asks the supervisor of a local actor to restart it (also a `failed` one); false when it has none here. */
      restart: (name: string) => Effect.sync(() => {
        const hook = restartHooks.get(name)
        hook?.()
        return hook !== undefined
      }),
      /** Every status change, as it happens (the operators' dashboard topic). */
      changes: Stream.fromPubSub(changes)
    } as const
  })
}) {}
