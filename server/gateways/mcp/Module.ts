/** The free MCP endpoint (Streamable HTTP): analytics as tools. */
import { defineModule } from "../../platform/Module"
import { McpConfig } from "./Config"
import { McpRoutes } from "./Http"
import { Mcp } from "./Mcp"

export const McpModule = defineModule({ name: "mcp", config: McpConfig.Default, layer: Mcp.Default, routes: McpRoutes })
