/** The console: its read endpoints (a token, a wallet) and its public WebSocket topics (the console-snapshots actor publishes two of them). */
import { Effect } from "effect"
import { defineModule } from "../../platform/Module"
import { ConsoleRoutes } from "./Http"
import { ConsoleWalletRoutes } from "./WalletsHttp"
import { CONSOLE_TOPICS } from "./Topics"

export const ConsoleModule = defineModule({
  name: "console",
  routes: Effect.map(Effect.all([ConsoleRoutes, ConsoleWalletRoutes]), (r) => r.flat()),
  topics: CONSOLE_TOPICS
})
