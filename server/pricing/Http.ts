import { Effect } from "effect"
import { PricingResponse } from "../../schema/http/pricing"
import { Guard } from "../http/Guards"
import { Reply } from "../http/Reply"
import { route } from "../http/Route"
import { Pricing } from "./Pricing"

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
      handler: () =>
        pricing.current().pipe(Effect.map(({ json }) => Reply.rawJson(json, 200, [["cache-control", "public, max-age=60"]])))
    })
  ]
})
