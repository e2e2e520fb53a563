/** The console: its read endpoint, its public WebSocket topics and the actor that publishes its snapshots. */
import { ConsoleSnapshotsActor } from "../../../actors/console-snapshots/Behaviour"
import { defineModule } from "../../platform/Module"
import { ConsoleRoutes } from "./Http"
import { CONSOLE_TOPICS } from "./Topics"

export const ConsoleModule = defineModule({
  name: "console",
  routes: ConsoleRoutes,
  actors: [ConsoleSnapshotsActor],
  topics: CONSOLE_TOPICS
})
