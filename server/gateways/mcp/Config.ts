/** The MCP endpoint's settings (its config slice). */
import { Config, Effect } from "effect"

export class McpConfig extends Effect.Service<McpConfig>()("app/mcp/McpConfig", {
  effect: Config.all({
    /** Sessions of the free MCP endpoint, kept in Redis (or in process). */
    sessionTtlSeconds: Config.integer("MCP_SESSION_TTL_SECONDS").pipe(Config.withDefault(86_400))
  })
}) {}
