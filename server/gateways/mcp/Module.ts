/** The free MCP endpoint (Streamable HTTP): analytics as tools. */
import { defineModule } from "../../platform/Module"
import { McpRoutes } from "./Http"
import { Mcp } from "./Mcp"

export const McpModule = defineModule({ name: "mcp", layer: Mcp.Default, routes: McpRoutes })
