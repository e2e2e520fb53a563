/** The picks page's calls (spec §4.10), each answer parsed with its shared schema (schema/http/picks.ts). */
import { Distributions, ExitTiming, PicksList, Recent, Summary } from "../../../../schema/http/picks"
import { call } from "../../api/http"

export const picksApi = {
  summary: () => call(Summary, "GET", "/api/picks2/summary"),
  distributions: () => call(Distributions, "GET", "/api/picks2/distributions"),
  recent: () => call(Recent, "GET", "/api/picks2/recent"),
  topRunners: (limit = 10) => call(PicksList, "GET", `/api/picks2/top-runners?limit=${limit}`),
  /** Picks with at least `minExits` dated exits (at most two per token): the exit-timing chart's choices. */
  exitTimingIndex: (minExits = 2) => call(PicksList, "GET", `/api/picks2/exit-timing?min_exits=${minExits}`),
  exitTiming: (id: number) => call(ExitTiming, "GET", `/api/picks2/exit-timing/${id}`)
}
