/**
 * The picks page's own store, created when the page mounts: the summary, the distributions, recent picks (PENDING
 * included as the caller's tier allows), top runners, the picks with enough exits to chart, and the selected pick's
 * exit timing. Everything is public; `recent` answers pro tier and above PENDING picks at once.
 */
import { createStore } from "solid-js/store"
import type { Distributions, ExitTiming, PickRow, Recent, Summary } from "../../../../schema/http/picks"
import { picksApi } from "./api"

export interface PicksState {
  summary: Summary | null
  distributions: Distributions | null
  recent: Recent | null
  runners: ReadonlyArray<PickRow> | null
  chartable: ReadonlyArray<PickRow> | null
  selected: { id: number | null; timing: ExitTiming | null; loading: boolean }
  error: string | null
}

export const createPicksStore = () => {
  const [state, setState] = createStore<PicksState>({
    summary: null, distributions: null, recent: null, runners: null, chartable: null,
    selected: { id: null, timing: null, loading: false }, error: null
  })
  const fail = (e: unknown) => setState({ error: (e as Error).message })

  const select = async (id: number) => {
    setState("selected", { id, timing: null, loading: true })
    try {
      const timing = await picksApi.exitTiming(id)
      if (state.selected.id === id) setState("selected", { timing, loading: false })
    } catch (e) {
      if (state.selected.id === id) setState("selected", { loading: false })
      fail(e)
    }
  }

  const load = async () => {
    try {
      const [summary, distributions, recent, runners, chartable] = await Promise.all([
        picksApi.summary(), picksApi.distributions(), picksApi.recent(), picksApi.topRunners(10), picksApi.exitTimingIndex(2)
      ])
      setState({ summary, distributions, recent, runners: runners.picks, chartable: chartable.picks, error: null })
      // First view: the pick with the most dated exits, else the latest one that has any.
      const first = chartable.picks[0] ?? recent.picks.find((p) => p.exits > 0)
      if (state.selected.id === null && first) await select(first.id)
    } catch (e) {
      fail(e)
    }
  }

  return { state, load, select }
}
export type PicksStore = ReturnType<typeof createPicksStore>
