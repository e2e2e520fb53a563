/**
 * Actor definitions. A stream actor's mailbox is a Redis stream read through a consumer group; its behaviour is
 * built once per life (closure state is transient and resets on restart). A loop actor runs one long effect
 * (schedulers, the block listener); `singleton` ones run in one process at a time, holding a lease.
 */
import type { Effect } from "effect"
import type { z } from "zod"
import type { ActorPriority } from "./Priority"
import type { ActorHandle } from "./Registry"

export interface MessageMeta {
  /** Stream entry id. */
  readonly id: string
  /** Deliveries of this entry in the group, this one included. */
  readonly deliveries: number
}

/**
 * A handler's verdict is its exit: success acks; a failure leaves the message pending to be retried (and
 * dead-lettered after too many deliveries); a defect also crashes the actor, which the supervisor restarts.
 */
export type Handler<M> = (message: M, meta: MessageMeta) => Effect.Effect<void, unknown>

export interface StreamActorDef<M, R> {
  readonly kind: "stream"
  readonly name: string
  readonly stream: string
  /** Consumer group; defaults to the actor's name. */
  readonly group?: string
  readonly schema: z.ZodType<M>
  /** Messages handled at once (order is kept only with 1, the default). */
  readonly concurrency?: number
  /** Entries read per round trip (default 64). */
  readonly batch?: number
  /** Where a new group starts: `0` (whole retained stream, the default) or `$` (new entries only). */
  readonly startFrom?: "$" | "0"
  /** The handler of one message (built once per life). Give this or `behaviourMany`. */
  readonly behaviour?: Effect.Effect<Handler<M>, never, R>
  /**
   * Instead of `behaviour`: one call per read with all its valid messages, in stream order (no fiber per message).
   * Success acks them all; a failure leaves them all pending (each is redelivered, and dead-lettered after too many
   * deliveries, as with `behaviour`); a defect also crashes the actor.
   */
  readonly behaviourMany?: Effect.Effect<ManyHandler<M>, never, R>
  /** Whether it runs in this configuration (default: always); an inactive actor is not started nor registered. */
  readonly active?: Effect.Effect<boolean, never, R>
  /**
   * `urgent`: its handling holds the process's deferrable actors back; `deferrable`: it waits for urgent work before
   * handling a read (at most ACTOR_DEFER_MAX_MS). Default: neither. See Priority.ts.
   */
  readonly priority?: ActorPriority
}

export type ManyHandler<M> = (messages: ReadonlyArray<M>) => Effect.Effect<void, unknown>

export interface LoopActorDef<R> {
  readonly kind: "loop"
  readonly name: string
  /** Run in one process at a time across the deployment (a lease in Redis). */
  readonly singleton?: boolean
  /** One life; must run until interrupted. Call `actor.heartbeat()`/`actor.handled()` as work is done. */
  readonly run: (actor: ActorHandle) => Effect.Effect<void, unknown, R>
  /** Whether it runs in this configuration (default: always); an inactive actor is not started nor registered. */
  readonly active?: Effect.Effect<boolean, never, R>
}

export type ActorDef<R> = StreamActorDef<any, R> | LoopActorDef<R>

export const streamActor = <M, R>(def: Omit<StreamActorDef<M, R>, "kind">): StreamActorDef<M, R> => ({ kind: "stream", ...def })
export const loopActor = <R>(def: Omit<LoopActorDef<R>, "kind">): LoopActorDef<R> => ({ kind: "loop", ...def })
