/**
 * Sharded singletons across processes: N shards of one actor, each run by one process at a time under its own lease
 * (`lease:<name>:<k>`), a process holding as many as it is given. Like `singletonLife` (Lease.ts), but the shards
 * spread over the live processes: each process takes a member slot (`member:<name>:<j>`, a lease too), and shard k
 * belongs to the (k mod M)-th live member (`assignedMember`). Each round (a third of the lease time, at most
 * `MAX_TICK_MS`) a process renews its slot and its shards' leases, takes the free shards assigned to it, hands over
 * (one per round) a shard assigned to another live member, and takes any shard left free for `ORPHAN_ROUNDS` rounds
 * (its member is gone, or more processes than shards). A killed process's shards are free when its leases run out,
 * and taken in the next round: within the lease time and a round.
 *
 * Correctness never depends on this alone: a shard's work is idempotent (deliveries are unique on their key), so two
 * processes briefly running one shard record nothing twice.
 */
import { Duration, Effect, Exit, Fiber } from "effect"
import { AppConfig } from "../Config"
import { Kv } from "../infra/Kv"
import { INSTANCE } from "../Instance"
import type { ActorHandle } from "./Registry"

/** Bounds of a round: often enough to take a free shard soon, rarely enough to cost Redis next to nothing. */
const MIN_TICK_MS = 20
const MAX_TICK_MS = 500
/** Rounds a shard stays free before a process it is not assigned to takes it. */
const ORPHAN_ROUNDS = 2

/**
 * Shard k's member among the live ones (their slots): the (k mod M)-th in slot order, or null with none. Every process
 * computes the same answer from the same view, and no member is given more than ceil(N / M) shards.
 */
export const assignedMember = (shard: number, members: ReadonlyArray<number>): number | null => {
  if (members.length === 0) return null
  const sorted = [...members].sort((a, b) => a - b)
  return sorted[shard % sorted.length]!
}

export interface ShardedDef<E, R> {
  /** Names the leases (`lease:<name>:<k>`) and member slots. */
  readonly name: string
  readonly count: number
  /** One shard's life while this process holds its lease; must run until interrupted. */
  readonly life: (shard: number) => Effect.Effect<void, E, R>
  /** Told when this process takes (true) or gives up (false) a shard. */
  readonly onHeld?: (shard: number, held: boolean) => void
}

export const shardedLife = <E, R>(def: ShardedDef<E, R>, handle: ActorHandle) =>
  Effect.gen(function* () {
    const kv = yield* Kv
    const { actors: { leaseTtlMs } } = yield* AppConfig
    const tick = Math.max(MIN_TICK_MS, Math.min(MAX_TICK_MS, Math.floor(leaseTtlMs / 3)))
    const memberKey = (j: number) => `member:${def.name}:${j}`
    const shardKey = (k: number) => `lease:${def.name}:${k}`
    let slot: number | null = null
    let members: ReadonlyArray<number> = []
    const held = new Map<number, Fiber.RuntimeFiber<void, E>>()
    const freeRounds = new Map<number, number>()

    const refreshMembers = Effect.gen(function* () {
      if (slot !== null && !(yield* kv.renewLease(memberKey(slot), INSTANCE, leaseTtlMs))) slot = null
      const live: Array<number> = []
      for (let j = 0; j < def.count; j++) {
        if (j === slot) live.push(j)
        else if (slot === null && (yield* kv.acquireLease(memberKey(j), INSTANCE, leaseTtlMs))) {
          slot = j
          live.push(j)
        } else if ((yield* kv.leaseRemainingMs(memberKey(j))) > 0) live.push(j)
      }
      members = live
    })

    const giveUp = (k: number, why: string) =>
      Effect.gen(function* () {
        const fiber = held.get(k)
        held.delete(k)
        if (fiber !== undefined) yield* Fiber.interrupt(fiber)
        yield* kv.releaseLease(shardKey(k), INSTANCE)
        def.onHeld?.(k, false)
        yield* Effect.logInfo(`gave up shard ${k} of ${def.name} (${why})`)
      })

    const round = Effect.gen(function* () {
      yield* refreshMembers
      let handedOver = false
      for (let k = 0; k < def.count; k++) {
        const owner = assignedMember(k, members)
        const fiber = held.get(k)
        if (fiber !== undefined) {
          const ended = yield* Fiber.poll(fiber)
          if (ended._tag === "Some") {
            held.delete(k)
            yield* kv.releaseLease(shardKey(k), INSTANCE)
            def.onHeld?.(k, false)
            // A shard's life ends only by failing: the actor's supervisor restarts the whole.
            if (Exit.isFailure(ended.value)) return yield* ended.value
            return yield* Effect.dieMessage(`shard ${k} of ${def.name} returned (a life must run until interrupted)`)
          }
          if (!(yield* kv.renewLease(shardKey(k), INSTANCE, leaseTtlMs))) yield* giveUp(k, "lease lost")
          else if (!handedOver && slot !== null && owner !== null && owner !== slot) {
            handedOver = true
            yield* giveUp(k, `handed over to member ${owner}`)
          }
          continue
        }
        const free = (yield* kv.leaseRemainingMs(shardKey(k))) <= 0
        const rounds = free ? (freeRounds.get(k) ?? 0) + 1 : 0
        freeRounds.set(k, rounds)
        if (!free || (!(slot !== null && owner === slot) && rounds < ORPHAN_ROUNDS)) continue
        if (!(yield* kv.acquireLease(shardKey(k), INSTANCE, leaseTtlMs))) continue
        freeRounds.set(k, 0)
        yield* Effect.logInfo(`acquired shard ${k} of ${def.name} (member ${slot ?? "none"} of ${members.length})`)
        held.set(k, yield* Effect.fork(def.life(k)))
        def.onHeld?.(k, true)
      }
    })

    /** Stops every shard's work before its lease goes (no overlap with the next holder), then the slot. */
    const releaseAll = Effect.suspend(() =>
      Effect.gen(function* () {
        for (const k of [...held.keys()]) yield* giveUp(k, "stopping")
        if (slot !== null) yield* kv.releaseLease(memberKey(slot), INSTANCE)
        slot = null
      })).pipe(Effect.ignore)

    handle.update({ state: "running" })
    yield* Effect.gen(function* () {
      while (true) {
        handle.heartbeat()
        yield* round
        yield* Effect.sleep(Duration.millis(tick))
      }
    }).pipe(Effect.ensuring(releaseAll))
  })
