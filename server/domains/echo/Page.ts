/**
 * `GET /echo` (spec §4.5): the console shell for whoever may use Echo, decided on the server before any script
 * runs. `echo_live = false` → a coming-soon page (administrators still get the simulator); anonymous → a redirect
 * to sign in; below the whale tier without the free preview → 403 with the upgrade path; otherwise the console.
 */
import { Effect } from "effect"
import { EchoEndpoints } from "../../../schema/http/echo"
import { TIER_RANK } from "../../../schema/tiers"
import { AuthGuards } from "../accounts/Guards"
import { Reply } from "../../platform/http/Reply"
import { route } from "../../platform/http/Route"
import { staticRoutes } from "../../platform/http/Static"
import { EchoSettings } from "./Settings"

const page = (title: string, body: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Whale Intelligence</title><style>body{font-family:system-ui,sans-serif;background:#0b1220;color:#e5edf6;display:grid;place-items:center;min-height:100vh;margin:0}
main{max-width:32rem;padding:2rem;text-align:center}a{color:#38bdf8}h1{font-size:1.6rem}p{color:#8b98a9;line-height:1.5}</style></head>
<body><main>${body}</main></body></html>`

export const COMING_SOON = page("Echo is coming soon", `<h1>Echo is coming soon</h1><p>The copy-trading simulator — paper-trade the whales with honest fills: delay, slippage and gas — opens shortly.</p><p><a href="/">Back to the console</a></p>`)
export const TIER_PAGE = page("Echo needs the whale tier", `<h1>Echo is a whale-tier feature</h1><p>Copy whale trades into a simulated portfolio, follow wallets automatically and see what following really costs.</p><p><a href="/billing">See plans</a> · <a href="/">Back to the console</a></p>`)

export const EchoPageRoutes = Effect.gen(function* () {
  const guards = yield* AuthGuards
  const settings = yield* EchoSettings
  const shell = staticRoutes(["/echo"]).find((r) => r.path === "/echo")!
  const noStore: [string, string] = ["cache-control", "no-store"]
  return [
    route(EchoEndpoints.page, {
      guard: guards.optionalUser,
      handler: (input) => Effect.gen(function* () {
        const user = input.auth
        const s = yield* settings.get
        if (user?.admin) return yield* shell.handler(input)
        if (!s.echo_live) return Reply.html(COMING_SOON, 200, [noStore])
        if (!user) return Reply.redirect("/login?next=%2Fecho", 302, [noStore])
        if (TIER_RANK[user.tier] < TIER_RANK.whale && !s.echo_free_preview) return Reply.html(TIER_PAGE, 403, [noStore])
        return yield* shell.handler(input)
      })
    })
  ]
})
