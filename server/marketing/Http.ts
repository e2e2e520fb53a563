import { Effect } from "effect"
import { z } from "zod"
import { WaitlistRequest, WaitlistResponse } from "../../schema/http/pricing"
import { Guard } from "../http/Guards"
import { Reply } from "../http/Reply"
import { route } from "../http/Route"
import { page } from "../pages/Layout"
import { Marketing } from "./Marketing"

export const MarketingRoutes = Effect.gen(function* () {
  const marketing = yield* Marketing
  return [
    route({
      method: "POST",
      path: "/api/founding-waitlist",
      summary: "Join the founding waitlist (idempotent: a repeat sign-up is still 200)",
      tags: ["billing"],
      guard: Guard.anon,
      body: WaitlistRequest,
      response: WaitlistResponse,
      handler: ({ body }) =>
        marketing.joinWaitlist(body.email, body.source).pipe(
          Effect.as({ ok: true as const, message: "You're on the founding list. Watch your inbox." })
        )
    }),
    route({
      method: "GET",
      path: "/email/unsubscribe",
      summary: "One-click marketing unsubscribe; answers the same page whatever the token",
      tags: ["email"],
      guard: Guard.anon,
      query: z.object({ token: z.string().max(512).optional().default("") }),
      produces: "text/html",
      handler: ({ query }) =>
        marketing.unsubscribe(query.token).pipe(
          Effect.as(
            Reply.html(
              page("Unsubscribed", `<h1>You're unsubscribed</h1>
<p>If this link belonged to a subscription, it will receive no more marketing email from us.
Account and security email (password resets, receipts) is not affected.</p>
<p><a href="/">Back to Whale Intelligence</a></p>`),
              200,
              [["cache-control", "no-store"]]
            )
          )
        )
    })
  ]
})
