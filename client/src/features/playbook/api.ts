/** The playbook's calls (spec §4.9), by their shared contracts (schema/http/playbook.ts). */
import type { BodyOf } from "../../../../schema/http/endpoint"
import { PlaybookEndpoints as E } from "../../../../schema/http/playbook"
import { call } from "../../api/http"

export const playbookApi = {
  live: () => call(E.live),
  positioning: (daysAhead = 60) => call(E.positioning, { query: { days_ahead: daysAhead } }),
  past: (limit = 40) => call(E.past, { query: { limit } }),
  patterns: () => call(E.patterns),
  confluence: () => call(E.confluence),
  detail: (id: number) => call(E.detail, { params: { event_id: id } }),
  flow: (id: number, bucket: number) => call(E.flow, { params: { event_id: id }, query: { bucket } }),
  signals: (id: number) => call(E.signals, { params: { event_id: id } }),
  recovery: (id: number) => call(E.recovery, { params: { event_id: id } }),
  compare: (a: number, b: number) => call(E.compare, { query: { a, b } }),
  create: (body: BodyOf<typeof E.create>) => call(E.create, { body }),
  setStatus: (id: number, status: "LIVE" | "COMPLETED") => call(E.setStatus, { params: { event_id: id }, body: { status } })
}
