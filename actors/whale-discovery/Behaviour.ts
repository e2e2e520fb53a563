/**
 * The whale-discovery actor (issue 28 part 4): whales found on chain, off the listener's path. The chain listener's
 * block tap only queues each stored block in memory (identity's `WhaleDiscovery.enqueue`); this loop takes them one
 * by one (`handle`: large moves, candidates measured over eth_call, joins) and runs the upkeep every
 * MAINTAIN_EVERY_MS (`maintain`: daily re-measure and cohorts, idle wallets leaving, room filled in auto mode).
 *
 * Not a singleton: the queue is the listener's process's own, so this actor works in whichever process runs the
 * listener and idles elsewhere (the upkeep there measures nothing and its other steps are idempotent). With
 * WHALE_DISCOVERY=off nothing is queued. A failing block is logged and skipped (the next large move of the same
 * wallet finds it again). Persisted state: the candidates (whale_candidates) and the tracked wallets they joined.
 */
import { Clock, Effect, Option } from "effect"
import { WhaleDiscovery } from "../../server/domains/identity/Discovery"
import { loopActor } from "../../server/platform/actors/Actor"
import type { ActorHandle } from "../../server/platform/actors/Registry"

const MAINTAIN_EVERY_MS = 10 * 60_000
const WAIT_MS = 30_000

const life = (actor: ActorHandle) =>
  Effect.gen(function* () {
    const discovery = yield* WhaleDiscovery
    let maintained = 0
    while (true) {
      const next = yield* discovery.next(WAIT_MS)
      if (Option.isSome(next)) {
        yield* discovery.handle(next.value).pipe(
          Effect.catchAllCause((cause) => Effect.logWarning(`whale discovery: block ${next.value.block.number} skipped`, cause)))
        actor.handled()
      }
      const now = yield* Clock.currentTimeMillis
      if (now - maintained >= MAINTAIN_EVERY_MS) {
        maintained = now
        const done = yield* discovery.maintain(now).pipe(
          Effect.catchAllCause((cause) => Effect.logWarning("whale discovery: upkeep failed", cause).pipe(Effect.as(null))))
        if (done !== null && done.left.length + done.joined.length > 0) {
          yield* Effect.logInfo(`whale discovery: ${done.joined.length} joined, ${done.left.length} left (idle), ${done.remeasured.length} measured again`)
        }
      }
      actor.heartbeat()
    }
  })

export const WhaleDiscoveryActor = loopActor({ name: "whale-discovery", singleton: false, run: life })
