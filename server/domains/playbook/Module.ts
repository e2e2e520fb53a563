/**
 * The event playbook: scheduled, live and completed events with whale-flow metrics (spec §4.9, §3.1), the
 * calendar upserted at start, and its WebSocket topic `playbook:live` (stream `console.playbook`, whale tier; the
 * playbook-live actor publishes it).
 */
import { PlaybookConfig } from "./Config"
import { Effect } from "effect"
import { defineModule } from "../../platform/Module"
import { PlaybookErrors } from "./Errors"
import { PlaybookRoutes } from "./Http"
import { PlaybookLive } from "./Layer"
import { Playbook } from "./Playbook"
import { PLAYBOOK_TOPICS } from "./Topics"

export const PlaybookModule = defineModule({
  name: "playbook",
  config: PlaybookConfig.Default,
  layer: PlaybookLive,
  routes: PlaybookRoutes,
  processes: [
    {
      name: "playbook-calendar",
      // Once per start, in the process that runs the actors (every process may, harmlessly: the upsert is idempotent).
      run: Effect.flatMap(Playbook, (p) => p.seedCalendar).pipe(Effect.catchAllCause(Effect.logError))
    }
  ],
  topics: PLAYBOOK_TOPICS,
  errors: PlaybookErrors
})
