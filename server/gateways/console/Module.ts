/** The console: its read endpoint and its public WebSocket topics (the console-snapshots actor publishes two of them). */
import { defineModule } from "../../platform/Module"
import { ConsoleRoutes } from "./Http"
import { CONSOLE_TOPICS } from "./Topics"

export const ConsoleModule = defineModule({
  name: "console",
  routes: ConsoleRoutes,
  topics: CONSOLE_TOPICS
})
