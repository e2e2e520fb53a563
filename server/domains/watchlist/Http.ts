/**
 * Watchlist routes (§4.12): the JSON API for the console, and the two pages people reach from e-mails — the
 * one-tap quick-add confirmation and the interest page. A bad or expired link shows a friendly page (200), never
 * an error; confirming needs a session (otherwise: sign in, then back to the same link). Contracts:
 * schema/http/watchlist.ts.
 */
import { Effect, Redacted } from "effect"
import { WatchlistEndpoints as E } from "../../../schema/http/watchlist"
import { AppConfig } from "../../platform/Config"
import { Reply } from "../../platform/http/Reply"
import { route, type RequestInfo } from "../../platform/http/Route"
import { AuthGuards, type AuthUser } from "../accounts/Guards"
import { makeCsrf } from "../email/Csrf"
import { purposeKey } from "../email/Tokens"
import { esc, sitePage } from "../pages/Site"
import { Watchlist } from "./Watchlist"

const PAGE_HEADERS = [["cache-control", "no-store"], ["referrer-policy", "no-referrer"]] as const
const wantsHtml = (req: RequestInfo) => /\btext\/html\b/.test(req.header("accept") ?? "")
const caller = (u: AuthUser) => ({ id: u.id, tier: u.tier, emailVerified: u.emailVerified })

const friendly = (title: string, message: string) =>
  Reply.html(sitePage({ title }, `<h1>${esc(title)}</h1><p>${esc(message)}</p><p><a class="btn" href="/watchlist">Open your watchlist</a></p>`), 200, PAGE_HEADERS)

const LINK_PROBLEM = {
  expired: ["This link has expired", "Quick-add links from our e-mails work for 14 days. You can still add the token from your watchlist."],
  invalid: ["This link does not work", "The link may have been cut off by your e-mail program. You can add tokens from your watchlist."]
} as const

const problemPage = (reason: keyof typeof LINK_PROBLEM) => friendly(LINK_PROBLEM[reason][0], LINK_PROBLEM[reason][1])

export const WatchlistRoutes = Effect.gen(function* () {
  const watchlist = yield* Watchlist
  const guards = yield* AuthGuards
  const app = yield* AppConfig
  const csrf = makeCsrf(purposeKey(Redacted.value(app.sessionSecret), "csrf"), app.publicBaseUrl)
  const loginBack = (ref: string) => `/login?next=${encodeURIComponent(`/watchlist/quick-add?ref=${encodeURIComponent(ref)}`)}`

  return [
    route(E.list, { guard: guards.user, handler: ({ auth }) => watchlist.list(caller(auth)) }),
    route(E.add, { guard: guards.user, handler: ({ auth, body }) => watchlist.add(caller(auth), body.token) }),
    route(E.remove, { guard: guards.user, handler: ({ auth, params }) => watchlist.remove(caller(auth), params.item_id) }),
    route(E.addPending, { guard: guards.user, handler: ({ auth, body }) => watchlist.addPending(caller(auth), body.token) }),
    route(E.quickAddPage, {
      guard: guards.optionalUser,
      handler: ({ query, auth }) =>
        Effect.gen(function* () {
          const link = yield* watchlist.readQuickAdd(query.ref)
          if (!link.ok) return problemPage(link.reason)
          const action = auth
            ? `<form method="post" action="/watchlist/quick-add"><input type="hidden" name="ref" value="${esc(query.ref)}">
<input type="hidden" name="_csrf" value="${esc(csrf.token(auth))}"><button class="btn" type="submit">Add ${esc(link.symbol)} to my watchlist</button></form>`
            : `<p><a class="btn" href="${esc(loginBack(query.ref))}">Sign in to add ${esc(link.symbol)}</a></p>
<p class="muted">No account yet? <a href="/register?next=${esc(encodeURIComponent(`/watchlist/quick-add?ref=${query.ref}`))}">Create one free</a>.</p>`
          return Reply.html(sitePage({ title: `Watch ${link.symbol}` }, `<h1>Watch ${esc(link.symbol)}?</h1>
<p>Follow what tracked whales do with <strong>${esc(link.symbol)}</strong> <span class="muted">(${esc(link.token)})</span>: price, 24 h whale flow and live trades on your watchlist.</p>
${action}`), 200, PAGE_HEADERS)
        })
    }),
    route(E.quickAdd, {
      guard: guards.optionalUser,
      handler: ({ body, auth, req }) =>
        Effect.gen(function* () {
          if (!auth) return Reply.redirect(loginBack(body.ref), 303)
          yield* csrf.check(req, auth, body._csrf)
          const link = yield* watchlist.readQuickAdd(body.ref)
          if (!link.ok) return wantsHtml(req) ? problemPage(link.reason) : Reply.json({ detail: LINK_PROBLEM[link.reason][0], code: `link_${link.reason}` }, 400)
          const added = yield* watchlist.add(caller(auth), link.token, "quick_add")
          return wantsHtml(req) ? Reply.redirect("/watchlist", 303) : added
        })
    }),
    route(E.interest, {
      guard: guards.optionalUser,
      handler: ({ query, auth }) =>
        Effect.gen(function* () {
          const picked = yield* watchlist.rememberInterest(query.s, auth ? { id: auth.id, email: auth.email } : null)
          if (!picked.ok) return problemPage(picked.reason)
          return Reply.html(sitePage({ title: picked.title }, `<h1>Noted: ${esc(picked.title)}</h1>
<p>${esc(picked.about)}</p>
<p>We'll lean our e-mails towards ${esc(picked.title.toLowerCase())}. Meanwhile, see what whales are doing now:</p>
<p><a class="btn" href="/positioning">Whale positioning</a> <a href="/watchlist">Your watchlist</a></p>`), 200, PAGE_HEADERS)
        })
    })
  ]
})
