import { Effect } from "effect"
import { z } from "zod"
import { Tier } from "../../schema/tiers"
import { Guard } from "../http/Guards"
import { Reply } from "../http/Reply"
import { route } from "../http/Route"

export const TierResponse = z.object({ tier: Tier })

export const AuthRoutes = Effect.gen(function* () {
  return [
    route({
      method: "GET",
      path: "/auth/tier",
      summary: "The caller's tier, or anon; always 200, never reveals who the caller is",
      tags: ["auth"],
      guard: Guard.anon,
      response: TierResponse,
      handler: () => Effect.succeed(Reply.json({ tier: "anon" }, 200, [["cache-control", "private, no-store"]]))
    })
  ]
})
