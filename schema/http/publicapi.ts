/**
 * The public API (spec §4.13): anonymous, cached 60 s, CC-BY-4.0. Every JSON body is `{data, meta}`; `data` shapes
 * come from analytics.ts, `meta` carries the source, the cache age and the licence.
 */
import { z } from "zod"
import { IncludeQuery, Positioning, PublicMeta, Stats, TopTokens, WhaleIndex } from "./analytics"
import { endpoint } from "./endpoint"

export const publicBody = <T extends z.ZodType>(data: T) => z.object({ data, meta: PublicMeta })

const tags = ["public"]

/**
 * `?include=bots` on the figures (issue 28 part 5), as on the keyed API: count bots, routers, pools, exchange wallets
 * and bridges too (`excludes.bots_included: true`; exchange housekeeping never); any other value is a 422.
 */
export const PublicQuery = IncludeQuery

export const PublicEndpoints = {
  stats: endpoint({
    method: "GET", path: "/api/v1/public/stats", summary: "Tracked wallet count, 24h whale buy and sell volume, latest block (cached 60 s, CC-BY-4.0); include=bots counts bots too", tags,
    query: PublicQuery, response: publicBody(Stats)
  }),
  whaleIndex: endpoint({
    method: "GET", path: "/api/v1/public/whale-index", summary: "Today's Whale Sentiment Index with components and 30-day history (cached 60 s); include=bots counts bots too", tags,
    query: PublicQuery, response: publicBody(WhaleIndex)
  }),
  topTokens: endpoint({
    method: "GET", path: "/api/v1/public/top-tokens", summary: "Top 10 tokens by 24h whale volume, stablecoins excluded (cached 60 s); include=bots counts bots too", tags,
    query: PublicQuery, response: publicBody(TopTokens)
  }),
  whaleAccumulation: endpoint({
    method: "GET", path: "/api/v1/public/whale-accumulation", summary: "Whale accumulation by asset: majors, score, divergence (cached 60 s); include=bots counts bots too", tags,
    query: PublicQuery, response: publicBody(Positioning)
  }),
  badge: endpoint({
    method: "GET", path: "/whale-index/badge.svg", summary: "SVG badge of the current Whale Sentiment Index score", tags, produces: "image/svg+xml"
  })
}
