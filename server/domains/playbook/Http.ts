/**
 * The playbook's routes (spec §4.9): reads for the whale tier and above, writes for administrators (401 anonymous,
 * 403 otherwise), and the `/playbook` page, gated on the server before the console is served.
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { Effect } from "effect"
import {
  CompareQuery, CompareResult, ConfluenceList, ConfluenceQuery, CreateEventRequest, EventDetail, EventFlow, EventIdParams,
  EventList, EventsQuery, FastestQuery, FastestResult, FlowQuery, ImpactList, ImpactQuery, LiveResponse, PastEventList,
  PastEventsQuery, Patterns, PlaybookEvent, PositioningList, PositioningQuery, RecoveryResult, SearchQuery, SearchResult,
  SignalsResult, StatusRequest, UpdateEventRequest
} from "../../../schema/http/playbook"
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
  const tags = ["playbook"]
  const indexFile = join(CLIENT_DIST, "index.html")
  const shell = existsSync(indexFile) ? readFileSync(indexFile) : null

  return [
    route({
      method: "GET", path: "/playbook", summary: "The event playbook page (whale tier; anonymous callers are sent to sign in)", tags,
      guard: guards.optionalUser, produces: "text/html",
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
    route({
      method: "GET", path: "/api/playbook/events", summary: "List events, newest first (category, status, limit 50)", tags,
      guard: reader, query: EventsQuery, response: EventList, handler: ({ query }) => pb.list(query)
    }),
    route({
      method: "POST", path: "/api/playbook/events", summary: "Create an event (admin)", tags,
      guard: admin, body: CreateEventRequest, bodyKind: "json", response: PlaybookEvent, handler: ({ body }) => pb.create(body)
    }),
    route({
      method: "GET", path: "/api/playbook/past-events", summary: "SCHEDULED events whose time has passed plus every COMPLETED one, newest first", tags,
      guard: reader, query: PastEventsQuery, response: PastEventList, handler: ({ query }) => pb.past(query)
    }),
    route({
      method: "GET", path: "/api/playbook/events/{event_id}", summary: "An event with the flow metrics of its window", tags,
      guard: reader, params: EventIdParams, response: EventDetail, handler: ({ params }) => pb.detail(params.event_id)
    }),
    route({
      method: "PUT", path: "/api/playbook/events/{event_id}", summary: "Update an event (admin); the fields given replace the stored ones", tags,
      guard: admin, params: EventIdParams, body: UpdateEventRequest, bodyKind: "json", response: PlaybookEvent,
      handler: ({ params, body }) => pb.update(params.event_id, body)
    }),
    route({
      method: "GET", path: "/api/playbook/events/{event_id}/flow", summary: "Buy/sell/net per bucket of `bucket` minutes over the window", tags,
      guard: reader, params: EventIdParams, query: FlowQuery, response: EventFlow, handler: ({ params, query }) => reads.flow(params.event_id, query.bucket)
    }),
    route({
      method: "GET", path: "/api/playbook/live", summary: "The LIVE event with real-time metrics, or null", tags,
      guard: reader, response: LiveResponse, handler: () => reads.live()
    }),
    route({
      method: "GET", path: "/api/playbook/patterns", summary: "Whale reaction patterns per event category", tags,
      guard: reader, response: Patterns, handler: () => reads.patterns()
    }),
    route({
      method: "GET", path: "/api/playbook/impact", summary: "COMPLETED events by absolute net flow", tags,
      guard: reader, query: ImpactQuery, response: ImpactList, handler: ({ query }) => reads.impact(query.limit)
    }),
    route({
      method: "GET", path: "/api/playbook/positioning", summary: "Pre-positioning gauge of each upcoming SCHEDULED event", tags,
      guard: reader, query: PositioningQuery, response: PositioningList, handler: ({ query }) => reads.positioning(query.days_ahead)
    }),
    route({
      method: "GET", path: "/api/playbook/confluence", summary: "Clusters of two or more high-severity events within `window_days`", tags,
      guard: reader, query: ConfluenceQuery, response: ConfluenceList, handler: ({ query }) => reads.confluence(query.window_days)
    }),
    route({
      method: "POST", path: "/api/playbook/events/{event_id}/status", summary: "Status transition (admin): SCHEDULED → LIVE → COMPLETED", tags,
      guard: admin, params: EventIdParams, body: StatusRequest, bodyKind: "json", response: PlaybookEvent,
      handler: ({ params, body, auth }) => pb.setStatus(params.event_id, body.status, `admin:${auth.id}`).pipe(Effect.map(eventView))
    }),
    route({
      method: "GET", path: "/api/playbook/search", summary: "Search events (q, category, flow, sort, token, limit 20)", tags,
      guard: reader, query: SearchQuery, response: SearchResult, handler: ({ query }) => reads.search(query)
    }),
    route({
      method: "GET", path: "/api/playbook/compare", summary: "Two events side by side with their differences", tags,
      guard: reader, query: CompareQuery, response: CompareResult, handler: ({ query }) => reads.compare(query.a, query.b)
    }),
    route({
      method: "GET", path: "/api/playbook/events/{event_id}/recovery", summary: "Hourly net flow after the timestamp and the recovery point", tags,
      guard: reader, params: EventIdParams, response: RecoveryResult, handler: ({ params }) => reads.recovery(params.event_id)
    }),
    route({
      method: "GET", path: "/api/playbook/events/{event_id}/signals", summary: "The 6 hours before: buckets, biggest trades, most active wallets", tags,
      guard: reader, params: EventIdParams, response: SignalsResult, handler: ({ params }) => reads.signals(params.event_id)
    }),
    route({
      method: "GET", path: "/api/playbook/events/{event_id}/fastest", summary: "The first whale records after the timestamp", tags,
      guard: reader, params: EventIdParams, query: FastestQuery, response: FastestResult, handler: ({ params, query }) => reads.fastest(params.event_id, query.limit)
    }),
    route({
      method: "POST", path: "/api/playbook/events/{event_id}/recompute", summary: "Recompute a COMPLETED event's final metrics (admin)", tags,
      guard: admin, params: EventIdParams, response: EventDetail, handler: ({ params }) => pb.recompute(params.event_id)
    })
  ]
})
