/** The playbook's calls (spec §4.9), each answer parsed with its shared schema. */
import { z } from "zod"
import {
  CompareResult, ConfluenceList, type CreateEventRequest, EventDetail, EventFlow, LiveResponse, PastEventList, Patterns,
  PlaybookEvent, PositioningList, RecoveryResult, SignalsResult
} from "../../../../schema/http/playbook"
import { call } from "../../api/http"

export const playbookApi = {
  live: () => call(LiveResponse, "GET", "/api/playbook/live"),
  positioning: (daysAhead = 60) => call(PositioningList, "GET", `/api/playbook/positioning?days_ahead=${daysAhead}`),
  past: (limit = 40) => call(PastEventList, "GET", `/api/playbook/past-events?limit=${limit}`),
  patterns: () => call(Patterns, "GET", "/api/playbook/patterns"),
  confluence: () => call(ConfluenceList, "GET", "/api/playbook/confluence"),
  detail: (id: number) => call(EventDetail, "GET", `/api/playbook/events/${id}`),
  flow: (id: number, bucket: number) => call(EventFlow, "GET", `/api/playbook/events/${id}/flow?bucket=${bucket}`),
  signals: (id: number) => call(SignalsResult, "GET", `/api/playbook/events/${id}/signals`),
  recovery: (id: number) => call(RecoveryResult, "GET", `/api/playbook/events/${id}/recovery`),
  compare: (a: number, b: number) => call(CompareResult, "GET", `/api/playbook/compare?a=${a}&b=${b}`),
  create: (body: z.input<typeof import("../../../../schema/http/playbook").CreateEventRequest> | CreateEventRequest) =>
    call(PlaybookEvent, "POST", "/api/playbook/events", body),
  setStatus: (id: number, status: "LIVE" | "COMPLETED") => call(PlaybookEvent, "POST", `/api/playbook/events/${id}/status`, { status })
}
