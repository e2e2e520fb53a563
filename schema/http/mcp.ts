/**
 * The free MCP endpoint (Streamable HTTP, JSON responses). Its bodies are JSON-RPC messages of the MCP
 * specification, read raw and answered by the gateway (server/gateways/mcp): their shapes are the protocol's own
 * (checked by its tests), so no response schema is declared here.
 */
import { endpoint } from "./endpoint"

export const McpEndpoints = {
  post: endpoint({
    method: "POST", path: "/mcp", summary: "Free MCP endpoint (Streamable HTTP, JSON responses): initialize, tools/list, tools/call", tags: ["mcp"],
    bodyKind: "raw"
  }),
  end: endpoint({ method: "DELETE", path: "/mcp", summary: "End an MCP session (mcp-session-id header)", tags: ["mcp"] })
}
