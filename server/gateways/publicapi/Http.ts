/** The public API's routes; contracts in schema/http/publicapi.ts. A cached body is answered on the hot path. */
import { Effect } from "effect"
import type { Endpoint } from "../../../schema/http/endpoint"
import { PublicEndpoints as E } from "../../../schema/http/publicapi"
import { scopeOf, type Scope } from "../../domains/analytics/Whales"
import { Guard } from "../../platform/http/Guards"
import { Reply, staticHeaders, type Header } from "../../platform/http/Reply"
import { fromMemory, route, type FastPath } from "../../platform/http/Route"
import { LICENSE_URL, PublicApi, type PublicView } from "./PublicApi"

export const PublicApiRoutes = Effect.gen(function* () {
  const api = yield* PublicApi
  const headers: ReadonlyArray<Header> = [
    ["cache-control", `public, max-age=${api.cacheSeconds}`],
    ["access-control-allow-origin", "*"],
    ["x-data-license", "CC-BY-4.0"],
    ["link", `<${LICENSE_URL}>; rel="license"`]
  ]
  const jsonHeaders = staticHeaders([["content-type", "application/json; charset=utf-8"], ...headers])
  const svgHeaders = staticHeaders([["content-type", "image/svg+xml; charset=utf-8"], ...headers])
  // The scope a query string asks for when it is one the hot path knows (none, or exactly include=bots); anything
  // else goes the ordinary way, where the contract's query validates it (an unknown include is a 422).
  const fastScope = (query: string): Scope | undefined => (query === "" ? "whales" : query === "include=bots" ? "all" : undefined)
  const json = (endpoint: Endpoint<any, any, any, any>, view: PublicView) =>
    route(endpoint, {
      guard: Guard.anon,
      handler: ({ query }) => api.body(view, scopeOf(query as { include?: "bots" })).pipe(Effect.map((bytes) => new Reply(200, jsonHeaders, bytes))),
      // A cached body is answered inside the uWS callback, with no Effect run per request.
      fast: ((req, respond) => {
        const scope = fastScope(req.query)
        return scope !== undefined && fromMemory(() => api.peek(view, scope), jsonHeaders)(req, respond)
      }) satisfies FastPath
    })
  return [
    json(E.stats, "stats"),
    json(E.whaleIndex, "whale-index"),
    json(E.topTokens, "top-tokens"),
    json(E.whaleAccumulation, "whale-accumulation"),
    route(E.badge, {
      guard: Guard.anon,
      handler: () => api.body("badge").pipe(Effect.map((svg) => new Reply(200, svgHeaders, svg))),
      fast: fromMemory(() => api.peek("badge"), svgHeaders)
    })
  ]
})
