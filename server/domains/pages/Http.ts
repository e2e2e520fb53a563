/**
 * The site's server-rendered pages (§4.5): the legal pages, the legacy redirects, `/positioning` per tier, and the
 * console pages that need a session (`/billing`, `/email`, `/alerts`, `/watchlist`: anonymous callers go to the
 * login page and come back; `/email` answers 404 to anyone but staff, like a page that does not exist).
 *
 * `/positioning` is rendered from the analytics read model cut to the caller's tier, and the rendered HTML is kept
 * per tier for 60 s; the answer is `Cache-Control: private` with `Vary: Cookie, Authorization`, so no shared cache
 * hands one tier's page to another.
 *
 * Their contracts stay here, not in schema/http: pages and redirects, no JSON, nothing a client calls.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { endpoint } from "../../../schema/http/endpoint"
import type { Tier } from "../../../schema/tiers"
import { consolePaths } from "../../../schema/http/console"
import { AppConfig } from "../../platform/Config"
import { Reply } from "../../platform/http/Reply"
import { route } from "../../platform/http/Route"
import { Guard } from "../../platform/http/Guards"
import { CLIENT_DIST } from "../../platform/http/Static"
import { memo } from "../../platform/infra/Memo"
import { AuthGuards } from "../accounts/Guards"
import { ReadModels } from "../analytics/ReadModels"
import { businessTermsPage, cookiePolicyPage, disclaimerPage, LEGAL_UPDATED, privacyPage, termsPage } from "./Legal"
import { apiDocsPage, DOCS_CSP, redocAsset } from "./ApiDocs"
import { renderPositioning } from "./PositioningPage"
import { pricingPage } from "./PricingPage"
import { Pricing } from "../pricing/Pricing"
import { SITE_CSP, sitePage } from "./Site"

const TAGS = ["pages"]
/** Paths of the console that need a session; the shell is served to signed-in callers. */
export const SIGNED_IN_CONSOLE_PATHS = consolePaths("signed-in")

export const PagesRoutes = Effect.gen(function* () {
  const app = yield* AppConfig
  const guards = yield* AuthGuards
  const models = yield* ReadModels
  const legal = { contact: app.contactEmail, updated: LEGAL_UPDATED }
  const PUBLIC = [["cache-control", "public, max-age=3600"], ["content-security-policy", SITE_CSP]] as const
  const html = (page: string) => Reply.html(page, 200, PUBLIC)

  const legalPages: ReadonlyArray<readonly [string, string, string]> = [
    ["/terms", "Terms of service", termsPage(legal)],
    ["/business-terms", "Business terms", businessTermsPage(legal)],
    ["/privacy", "Privacy policy", privacyPage(legal)],
    ["/disclaimer", "Disclaimer (not financial advice)", disclaimerPage(legal)],
    ["/cookie-policy", "Cookie policy", cookiePolicyPage(legal)]
  ]
  const redirects: ReadonlyArray<readonly [string, string]> = [["/legal", "/terms"], ["/cookies", "/cookie-policy"], ["/accumulation", "/positioning"]]

  const positioning = yield* memo({
    ttl: "60 seconds",
    capacity: 8,
    compute: (tier: Tier) =>
      Effect.gen(function* () {
        const [view, source] = yield* Effect.all([models.positioning(tier), models.source()])
        return renderPositioning(view.value, tier, { generatedAt: new Date().toISOString().slice(0, 19).replace("T", " ") + " UTC", demo: source.demo })
      })
  })

  const shellFile = join(CLIENT_DIST, "index.html")
  const shell = existsSync(shellFile) ? readFileSync(shellFile) : null
  const consoleShell = () => shell
    ? Reply.bytes(shell, "text/html; charset=utf-8", [["cache-control", "no-cache"], ["x-frame-options", "DENY"]])
    : Reply.html(sitePage({ title: "Console" }, "<h1>The console is not built</h1><p>Run <code>npm run build</code>.</p>"), 200, [["cache-control", "no-store"]])
  const notFoundPage = () =>
    Reply.html(sitePage({ title: "Not found" }, `<h1>Page not found</h1><p>There is nothing at this address.</p><p><a href="/">Whale Intelligence</a></p>`), 404, [["cache-control", "no-store"]])

  const docs = apiDocsPage(redocAsset())
  const pricing = yield* Pricing

  return [
    route(endpoint({ method: "GET", path: "/pricing", summary: "The public pricing page: every tier's price, limits and features", tags: TAGS, produces: "text/html" }), {
      guard: Guard.anon,
      handler: () => pricing.current().pipe(Effect.map((p) => html(pricingPage(p.body))))
    }),
    route(endpoint({ method: "GET", path: "/docs", summary: "API documentation: the OpenAPI document rendered (Redoc, served from this origin)", tags: TAGS, produces: "text/html" }), {
      guard: Guard.anon,
      handler: () => Effect.succeed(Reply.html(docs, 200, [["cache-control", "public, max-age=300"], ["content-security-policy", DOCS_CSP]]))
    }),
    ...legalPages.map(([path, summary, page]) =>
      route(endpoint({ method: "GET", path, summary, tags: TAGS, produces: "text/html" }), { guard: Guard.anon, handler: () => Effect.succeed(html(page)) })),
    ...redirects.map(([from, to]) =>
      route(endpoint({ method: "GET", path: from, summary: `Permanent redirect to ${to}`, tags: TAGS, produces: "text/html" }), {
        guard: Guard.anon,
        handler: ({ req }) => Effect.succeed(Reply.redirect(`${to}${req.query ? `?${req.query}` : ""}`, 301, [["cache-control", "public, max-age=86400"]]))
      })),
    route(endpoint({ method: "GET", path: "/positioning", summary: "Whale positioning, rendered per tier (anon, free, pro, alpha and above)", tags: TAGS, produces: "text/html" }), {
      guard: guards.optionalUser,
      handler: ({ auth }) =>
        positioning.get(auth?.tier ?? "anon").pipe(Effect.map((page) => Reply.html(page, 200, [
          ["cache-control", "private, no-cache"], ["vary", "Cookie, Authorization"], ["content-security-policy", SITE_CSP]
        ])))
    }),
    ...SIGNED_IN_CONSOLE_PATHS.map((path) =>
      route(endpoint({ method: "GET", path, summary: "Console page for signed-in users (anonymous: the login page, then back)", tags: TAGS, produces: "text/html" }), {
        guard: guards.optionalUser,
        handler: ({ auth, req }) => Effect.succeed(
          auth === null
            ? Reply.redirect(`/login?next=${encodeURIComponent(path + (req.query ? `?${req.query}` : ""))}`, 302, [["cache-control", "no-store"]])
            : path === "/email" && !(auth.admin || auth.tier === "staff") ? notFoundPage() : consoleShell()
        )
      }))
  ]
})


