/** `GET /api/pricing` (contract in schema/http/pricing.ts): the cached body, on the hot path when it is in memory. */
import { Effect } from "effect"
import { PricingEndpoints } from "../../../schema/http/pricing"
import { Guard } from "../../platform/http/Guards"
import { Reply, staticHeaders } from "../../platform/http/Reply"
import { fromMemory, route } from "../../platform/http/Route"
import { Pricing } from "./Pricing"

const HEADERS = staticHeaders([["content-type", "application/json; charset=utf-8"], ["cache-control", "public, max-age=60"]])

export const PricingRoutes = Effect.gen(function* () {
  const pricing = yield* Pricing
  return [
    route(PricingEndpoints.pricing, {
      guard: Guard.anon,
      handler: () => pricing.current().pipe(Effect.map(({ bytes }) => new Reply(200, HEADERS, bytes))),
      fast: fromMemory(() => pricing.peek()?.bytes, HEADERS)
    })
  ]
})
