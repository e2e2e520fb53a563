/**
 * The event playbook: scheduled, live and completed events with whale-flow metrics (spec §4.9, §3.1), the
 * playbook-live actor, and the calendar upserted at start. Its topic `playbook:live` is registered by the console
 * gateway (stream `console.playbook`, whale tier).
 */
import { Effect } from "effect"
import { PlaybookLiveActor } from "../../../actors/playbook-live/Behaviour"
import { defineModule } from "../../platform/Module"
import { PlaybookErrors } from "./Errors"
import { PlaybookRoutes } from "./Http"
import { PlaybookLive } from "./Layer"
import { Playbook } from "./Playbook"

export const PlaybookModule = defineModule({
  name: "playbook",
  layer: PlaybookLive,
  routes: PlaybookRoutes,
  actors: [PlaybookLiveActor],
  processes: [
    {
      name: "playbook-calendar",
      // Once per start, in the process that runs the actors (every process may, harmlessly: the upsert is idempotent).
      run: Effect.flatMap(Playbook, (p) => p.seedCalendar).pipe(Effect.catchAllCause(Effect.logError))
    }
  ],
  errors: PlaybookErrors
})
