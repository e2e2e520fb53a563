/** Routes of the founding waitlist (double opt-in) and the one-click marketing unsubscribe (spec §4.2; contracts in schema/http/pricing.ts). */
import { Effect } from "effect"
import { PricingEndpoints as E } from "../../../schema/http/pricing"
import { Guard } from "../../platform/http/Guards"
import { Reply } from "../../platform/http/Reply"
import { route, wantsHtml } from "../../platform/http/Route"
import { page } from "../../platform/http/Layout"
import { Drip } from "./Drip"

const NO_STORE: ReadonlyArray<readonly [string, string]> = [["cache-control", "no-store"], ["referrer-policy", "no-referrer"]]

const unsubscribedPage = page("Unsubscribed", `<h1>You're unsubscribed</h1>
<p>If this link belonged to a subscription, it will receive no more marketing email from us.
Account and security email (password resets, receipts) is not affected.</p>
<p><a href="/">Back to Whale Intelligence</a></p>`)

export const DripRoutes = Effect.gen(function* () {
  const drip = yield* Drip
  const unsubscribe = (token: string) => drip.unsubscribe(token).pipe(Effect.as(Reply.html(unsubscribedPage, 200, NO_STORE)))
  return [
    route(E.joinWaitlist, {
      guard: Guard.anon,
      handler: ({ body, req }) =>
        drip.join(body.email, body.source, req.ip).pipe(
          Effect.as({ ok: true as const, message: "Check your inbox: confirm your address to join the founding list." })
        )
    }),
    route(E.confirmWaitlist, {
      guard: Guard.anon,
      handler: ({ query, req }) =>
        drip.confirm(query.token).pipe(Effect.map((ok) => !ok && !wantsHtml(req)
          ? Reply.json({ detail: "This link is not valid; it may have expired", code: "token_invalid" }, 400, NO_STORE)
          : Reply.html(ok
          ? page("Confirmed", `<h1>You're on the founding list</h1><p>Thanks for confirming. A few short emails will follow; each has a one-click unsubscribe link.</p><p><a href="/">Back to Whale Intelligence</a></p>`)
          : page("Link not valid", `<h1>This link is not valid</h1><p>It may have expired. Join the list again to get a new one.</p><p><a href="/">Back to Whale Intelligence</a></p>`),
          ok ? 200 : 400, NO_STORE)))
    }),
    route(E.unsubscribe, {
      guard: Guard.anon,
      handler: ({ query }) => unsubscribe(query.token)
    }),
    route(E.unsubscribeOneClick, {
      guard: Guard.anon,
      handler: ({ query }) => unsubscribe(query.token)
    })
  ]
})
