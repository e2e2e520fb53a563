import { Effect } from "effect"
import { z } from "zod"
import { Positioning, PublicMeta, Stats, TopTokens, WhaleIndex } from "../../../schema/http/analytics"
import { Guard } from "../../platform/http/Guards"
import { Reply, staticHeaders, type Header } from "../../platform/http/Reply"
import { fromMemory, route } from "../../platform/http/Route"
import { LICENSE_URL, PublicApi, type PublicView } from "./PublicApi"

const body = <T extends z.ZodType>(data: T) => z.object({ data, meta: PublicMeta })

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
  const json = (path: string, view: PublicView, summary: string, response: z.ZodType) =>
    route({
      method: "GET", path, summary, tags: ["public"], guard: Guard.anon, response,
      handler: () => api.body(view).pipe(Effect.map((bytes) => new Reply(200, jsonHeaders, bytes))),
      // A cached body is answered inside the uWS callback, with no Effect run per request.
      fast: fromMemory(() => api.peek(view), jsonHeaders)
    })
  return [
    json("/api/v1/public/stats", "stats", "Tracked wallet count, 24h whale buy and sell volume, latest block (cached 60 s, CC-BY-4.0)", body(Stats)),
    json("/api/v1/public/whale-index", "whale-index", "Today's Whale Sentiment Index with components and 30-day history (cached 60 s)", body(WhaleIndex)),
    json("/api/v1/public/top-tokens", "top-tokens", "Top 10 tokens by 24h whale volume, stablecoins excluded (cached 60 s)", body(TopTokens)),
    json("/api/v1/public/whale-accumulation", "whale-accumulation", "Whale accumulation by asset: majors, score, divergence (cached 60 s)", body(Positioning)),
    route({
      method: "GET", path: "/whale-index/badge.svg", summary: "SVG badge of the current Whale Sentiment Index score", tags: ["public"],
      guard: Guard.anon, produces: "image/svg+xml",
      handler: () => api.body("badge").pipe(Effect.map((svg) => new Reply(200, svgHeaders, svg))),
      fast: fromMemory(() => api.peek("badge"), svgHeaders)
    })
  ]
})
