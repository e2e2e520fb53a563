/**
 * The messenger bot as a module process of the `bot` role: registered in the actor registry (so `/readyz` and
 * the ops page show it, and why it idles without a token), restarted after a failure with a pause.
 */
import { Effect } from "effect"
import { ActorRegistry } from "../../server/platform/actors/Registry"
import { runBot } from "../../server/domains/alerts/Bot"
import type { Process } from "../../server/platform/Module"

export const MessengerBotProcess: Process = {
  name: "messenger-bot",
  roles: ["bot"],
  run: Effect.gen(function* () {
    const registry = yield* ActorRegistry
    const actor = registry.register("messenger-bot", "loop")
    for (;;) {
      yield* runBot(actor).pipe(Effect.catchAllCause((cause) => Effect.sync(() => actor.failed(cause)).pipe(Effect.zipRight(Effect.logError("messenger bot stopped", cause)))))
      actor.update({ state: "restarting" })
      yield* Effect.sleep("2 seconds")
    }
  })
}
