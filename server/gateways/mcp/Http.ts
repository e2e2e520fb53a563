import { Effect } from "effect"
import { McpEndpoints as E } from "../../../schema/http/mcp"
import { Guard } from "../../platform/http/Guards"
import { Reply } from "../../platform/http/Reply"
import { route } from "../../platform/http/Route"
import { Mcp, type McpAnswer } from "./Mcp"

const toReply = (a: McpAnswer) =>
  a.body === null ? Reply.empty(a.status, a.headers) : Reply.json(a.body, a.status, a.headers)

/** `POST /mcp` and `DELETE /mcp` (contracts in schema/http/mcp.ts); a GET (the client's optional SSE stream) gets 405 from the router. */
export const McpRoutes = Effect.gen(function* () {
  const mcp = yield* Mcp
  return [
    route(E.post, {
      guard: Guard.anon,
      handler: ({ rawBody, req }) => mcp.post(rawBody, req.headers).pipe(Effect.map(toReply))
    }),
    route(E.end, {
      guard: Guard.anon,
      handler: ({ req }) => mcp.end(req.headers).pipe(Effect.map(toReply))
    })
  ]
})
