import { Effect } from "effect"
import { PricingResponse } from "../../../schema/http/pricing"
import { Guard } from "../../platform/http/Guards"
import { Reply, staticHeaders } from "../../platform/http/Reply"
import { fromMemory, route } from "../../platform/http/Route"
import { Pricing } from "./Pricing"

const HEADERS = staticHeaders([["content-type", "application/json; charset=utf-8"], ["cache-control", "public, max-age=60"]])

export const PricingRoutes = Effect.gen(function* () {
  const pricing = yield* Pricing
  return [
    route({
      method: "GET",
      path: "/api/pricing",
      summary: "Public tiers with monthly and yearly prices and their feature gates",
      tags: ["billing"],
      guard: Guard.anon,
      response: PricingResponse,
      handler: () => pricing.current().pipe(Effect.map(({ bytes }) => new Reply(200, HEADERS, bytes))),
      fast: fromMemory(() => pricing.peek()?.bytes, HEADERS)
    })
  ]
})
