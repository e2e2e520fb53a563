import { Effect } from "effect"
import { Guard } from "../../platform/http/Guards"
import { Reply } from "../../platform/http/Reply"
import { route } from "../../platform/http/Route"
import { Mcp, type McpAnswer } from "./Mcp"

const toReply = (a: McpAnswer) =>
  a.body === null ? Reply.empty(a.status, a.headers) : Reply.json(a.body, a.status, a.headers)

/** `POST /mcp` and `DELETE /mcp`; a GET (the client's optional SSE stream) gets 405 from the router. */
export const McpRoutes = Effect.gen(function* () {
  const mcp = yield* Mcp
  return [
    route({
      method: "POST", path: "/mcp", summary: "Free MCP endpoint (Streamable HTTP, JSON responses): initialize, tools/list, tools/call",
      tags: ["mcp"], guard: Guard.anon, bodyKind: "raw",
      handler: ({ rawBody, req }) => mcp.post(rawBody, req.headers).pipe(Effect.map(toReply))
    }),
    route({
      method: "DELETE", path: "/mcp", summary: "End an MCP session (mcp-session-id header)", tags: ["mcp"], guard: Guard.anon,
      handler: ({ req }) => mcp.end(req.headers).pipe(Effect.map(toReply))
    })
  ]
})
