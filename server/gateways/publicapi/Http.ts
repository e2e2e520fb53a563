/** The public API's routes; contracts in schema/http/publicapi.ts. A cached body is answered on the hot path. */
import { Effect } from "effect"
import type { Endpoint } from "../../../schema/http/endpoint"
import { PublicEndpoints as E } from "../../../schema/http/publicapi"
import { Guard } from "../../platform/http/Guards"
import { Reply, staticHeaders, type Header } from "../../platform/http/Reply"
import { fromMemory, route } from "../../platform/http/Route"
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
  const json = (endpoint: Endpoint<any, any, any, any>, view: PublicView) =>
    route(endpoint, {
      guard: Guard.anon,
      handler: () => api.body(view).pipe(Effect.map((bytes) => new Reply(200, jsonHeaders, bytes))),
      // A cached body is answered inside the uWS callback, with no Effect run per request.
      fast: fromMemory(() => api.peek(view), jsonHeaders)
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
