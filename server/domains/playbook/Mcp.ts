/**
 * The playbook's MCP tools (joined to the free MCP endpoint by the MCP gateway):
 *   playbook_events  the calendar: events by category/status, newest first
 *   playbook_event   one event with the whale-flow metrics of its window
 */
import { Effect } from "effect"
import { z } from "zod"
import { EventCategory, EventDetail, EventList, EventStatus } from "../../../schema/http/playbook"
import { Playbook } from "./Playbook"

const cachedJson = <A>(value: A) => {
  const json = JSON.stringify(value)
  return { value, json, bytes: Buffer.from(json) }
}

export const PlaybookEventsInput = z
  .object({
    category: EventCategory.optional().describe("fomc, cpi, jobs, etf, unlock, upgrade, listing, exploit or other"),
    status: EventStatus.optional().describe("SCHEDULED, LIVE or COMPLETED"),
    limit: z.number().int().min(1).max(200).default(50).describe("How many (1–200, default 50)")
  })
  .strict()
export const PlaybookEventInput = z.object({ event_id: z.number().int().describe("The event's id (from playbook_events)") }).strict()
export const PlaybookEventOutput = z.object({ event: EventDetail.nullable() })

export const makePlaybookTools = Effect.gen(function* () {
  const pb = yield* Playbook
  return [
    {
      name: "playbook_events",
      title: "Event playbook calendar",
      description:
        "Scheduled, live and completed market events (FOMC decisions, US CPI releases, Ethereum upgrades, ETF dates, exploits) " +
        "with category, UTC timestamp, severity 1-5 and source; final whale-flow metrics for completed ones. Newest first.",
      input: PlaybookEventsInput,
      output: EventList,
      run: (a: z.output<typeof PlaybookEventsInput>) => pb.list(a).pipe(Effect.map(cachedJson))
    },
    {
      name: "playbook_event",
      title: "Whale flow around one event",
      description:
        "One event with the whale flow of its window (24 h before to 48 h after by default): DEX buys/sells, exchange deposits/" +
        "withdrawals, net flow and active whales for the window and its pre/post halves, each against the 7-day baseline " +
        "(ratio) and matched non-event weeks (z-score), top tokens and the recovery hour. `event` is null for an unknown id.",
      input: PlaybookEventInput,
      output: PlaybookEventOutput,
      run: (a: z.output<typeof PlaybookEventInput>) =>
        pb.detail(a.event_id).pipe(
          Effect.map((event) => ({ event })),
          Effect.catchTag("EventNotFound", () => Effect.succeed({ event: null })),
          Effect.map(cachedJson)
        )
    }
  ] as const
})
