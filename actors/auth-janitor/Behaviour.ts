/**
 * The auth-janitor actor (a singleton): once an hour, forgets what can no longer matter — spent one-time tokens
 * past their expiry, sessions ended over a week ago, refresh tokens rotated over a week ago. Stateless.
 */
import { Duration, Effect } from "effect"
import { loopActor } from "../../server/platform/actors/Actor"
import { Sessions } from "../../server/domains/accounts/Sessions"
import { Jwt } from "../../server/platform/infra/Jwt"

/** Housekeeping period, and the heartbeat period while idle (so its heartbeat age stays meaningful). */
const EVERY_MS = 3_600_000
const TICK = Duration.minutes(1)

export const AuthJanitorActor = loopActor({
  name: "auth-janitor",
  singleton: true,
  run: (actor) =>
    Effect.gen(function* () {
      const jwt = yield* Jwt
      const sessions = yield* Sessions
      let last = 0
      while (true) {
        if (Date.now() - last >= EVERY_MS) {
          last = Date.now()
          const usedTokens = yield* jwt.pruneUsed()
          const pruned = yield* sessions.prune()
          if (usedTokens + pruned.sessions + pruned.refreshTokens > 0) {
            yield* Effect.logInfo("auth housekeeping").pipe(Effect.annotateLogs({ usedTokens, ...pruned }))
          }
          actor.handled()
        }
        actor.heartbeat()
        yield* Effect.sleep(TICK)
      }
    })
})
