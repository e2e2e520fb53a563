/**
 * The playbook's routes (spec §4.9): reads for the whale tier and above, writes for administrators (401 anonymous,
 * 403 otherwise), and the `/playbook` page, gated on the server before the console is served. Contracts:
 * schema/http/playbook.ts.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import { PlaybookEndpoints as E } from "../../../schema/http/playbook"
import { TIER_RANK } from "../../../schema/tiers"
import { AuthGuards } from "../accounts/Guards"
import { Reply } from "../../platform/http/Reply"
import { route } from "../../platform/http/Route"
import { CLIENT_DIST } from "../../platform/http/Static"
import { Playbook } from "./Playbook"
import { PlaybookReads } from "./Reads"
import { eventView } from "./Views"

const NOT_WHALE = `<!doctype html><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Event playbook · Whale Intelligence</title>
<body style="font-family:system-ui,sans-serif;background:#0b1020;color:#e6e9f2;display:grid;place-items:center;min-height:100vh;margin:0">
<main style="max-width:32rem;padding:2rem;text-align:center"><h1>Event playbook</h1>
<p>How whales position before and react after FOMC decisions, CPI releases, upgrades and ETF dates is part of the Whale tier.</p>
<p><a style="color:#7aa2ff" href="/billing">See plans</a> · <a style="color:#7aa2ff" href="/">Back to the console</a></p></main></body>`

export const PlaybookRoutes = Effect.gen(function* () {
  const pb = yield* Playbook
  const reads = yield* PlaybookReads
  const guards = yield* AuthGuards
  const reader = guards.tier("whale")
  const admin = guards.admin
  const indexFile = join(CLIENT_DIST, "index.html")
  const shell = existsSync(indexFile) ? readFileSync(indexFile) : null

  return [
    route(E.page, {
      guard: guards.optionalUser,
      handler: ({ auth }) =>
        Effect.succeed(
          auth === null
            ? Reply.redirect("/login?next=%2Fplaybook", 302, [["cache-control", "no-store"]])
            : TIER_RANK[auth.tier] < TIER_RANK.whale
              ? Reply.html(NOT_WHALE, 403, [["cache-control", "no-store"]])
              : shell
                ? Reply.bytes(shell, "text/html; charset=utf-8", [["cache-control", "no-store"], ["x-frame-options", "DENY"]])
                : Reply.html("<!doctype html><p>The console has not been built. Run <code>npm run build</code>.</p>", 200)
        )
    }),
    route(E.events, { guard: reader, handler: ({ query }) => pb.list(query) }),
    route(E.create, { guard: admin, handler: ({ body }) => pb.create(body) }),
    route(E.past, { guard: reader, handler: ({ query }) => pb.past(query) }),
    route(E.detail, { guard: reader, handler: ({ params }) => pb.detail(params.event_id) }),
    route(E.update, { guard: admin, handler: ({ params, body }) => pb.update(params.event_id, body) }),
    route(E.flow, { guard: reader, handler: ({ params, query }) => reads.flow(params.event_id, query.bucket) }),
    route(E.live, { guard: reader, handler: () => reads.live() }),
    route(E.patterns, { guard: reader, handler: () => reads.patterns() }),
    route(E.impact, { guard: reader, handler: ({ query }) => reads.impact(query.limit) }),
    route(E.positioning, { guard: reader, handler: ({ query }) => reads.positioning(query.days_ahead) }),
    route(E.confluence, { guard: reader, handler: ({ query }) => reads.confluence(query.window_days) }),
    route(E.setStatus, {
      guard: admin,
      handler: ({ params, body, auth }) => pb.setStatus(params.event_id, body.status, `admin:${auth.id}`).pipe(Effect.map(eventView))
    }),
    route(E.search, { guard: reader, handler: ({ query }) => reads.search(query) }),
    route(E.compare, { guard: reader, handler: ({ query }) => reads.compare(query.a, query.b) }),
    route(E.recovery, { guard: reader, handler: ({ params }) => reads.recovery(params.event_id) }),
    route(E.signals, { guard: reader, handler: ({ params }) => reads.signals(params.event_id) }),
    route(E.fastest, { guard: reader, handler: ({ params, query }) => reads.fastest(params.event_id, query.limit) }),
    route(E.recompute, { guard: admin, handler: ({ params }) => pb.recompute(params.event_id) })
  ]
})
