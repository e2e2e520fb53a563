/** The picks page's calls (spec §4.10), by their shared contracts (schema/http/picks.ts). */
import { PicksEndpoints as E } from "../../../../schema/http/picks"
import { call } from "../../api/http"

export const picksApi = {
  summary: () => call(E.summary),
  distributions: () => call(E.distributions),
  recent: () => call(E.recent),
  topRunners: (limit = 10) => call(E.topRunners, { query: { limit } }),
  /** Picks with at least `minExits` dated exits (at most two per token): the exit-timing chart's choices. */
  exitTimingIndex: (minExits = 2) => call(E.exitTimingIndex, { query: { min_exits: minExits } }),
  exitTiming: (id: number) => call(E.exitTiming, { params: { pick_id: id } })
}
