/**
 * The playbook page's own store, created when the page mounts: upcoming events with their positioning gauge, the
 * live event (its snapshot kept current from the `playbook:live` topic), past events, patterns, confluence, and
 * the selected event's metrics, flow, signals, recovery and comparison. `dispose` releases the subscription.
 */
import { createStore } from "solid-js/store"
import type { z } from "zod"
import {
  LiveSnapshot, type CompareResult, type ConfluenceList, type EventDetail, type EventFlow, type LiveResponse, type PastEventList,
  type Patterns, type PositioningList, type RecoveryResult, type SignalsResult
} from "../../../../schema/http/playbook"
import type { Deps } from "../../store/types"
import { playbookApi } from "./api"

type Out<S extends z.ZodType> = z.output<S>

export interface PlaybookState {
  live: Out<typeof LiveResponse> | null
  positioning: Out<typeof PositioningList> | null
  past: Out<typeof PastEventList> | null
  patterns: Out<typeof Patterns> | null
  confluence: Out<typeof ConfluenceList> | null
  selected: {
    id: number | null
    detail: EventDetail | null
    flow: Out<typeof EventFlow> | null
    bucket: number
    signals: Out<typeof SignalsResult> | null
    recovery: RecoveryResult | null
    compareWith: number | null
    compare: Out<typeof CompareResult> | null
  }
  error: string | null
  notice: string | null
  busy: boolean
}

export const createPlaybookStore = (deps: Deps) => {
  const [state, setState] = createStore<PlaybookState>({
    live: null, positioning: null, past: null, patterns: null, confluence: null,
    selected: { id: null, detail: null, flow: null, bucket: 60, signals: null, recovery: null, compareWith: null, compare: null },
    error: null, notice: null, busy: false
  })
  const fail = (e: unknown) => setState({ error: (e as Error).message })

  const loadAll = async () => {
    try {
      const [live, positioning, past, patterns, confluence] = await Promise.all([
        playbookApi.live(), playbookApi.positioning(), playbookApi.past(), playbookApi.patterns(), playbookApi.confluence()
      ])
      setState({ live, positioning, past, patterns, confluence, error: null })
      if (state.selected.id === null && past.events[0]) await select(past.events[0].id)
    } catch (e) {
      fail(e)
    }
  }

  const loadFlow = async (id: number, bucket: number) => {
    const flow = await playbookApi.flow(id, bucket)
    if (state.selected.id === id) setState("selected", { flow, bucket })
  }

  const select = async (id: number) => {
    setState("selected", { id, detail: null, flow: null, signals: null, recovery: null, compare: null })
    try {
      const [detail, signals, recovery] = await Promise.all([playbookApi.detail(id), playbookApi.signals(id), playbookApi.recovery(id)])
      if (state.selected.id !== id) return
      setState("selected", { detail, signals, recovery })
      await loadFlow(id, state.selected.bucket)
      if (state.selected.compareWith !== null && state.selected.compareWith !== id) await compare(state.selected.compareWith)
    } catch (e) {
      fail(e)
    }
  }

  const compare = async (other: number | null) => {
    setState("selected", { compareWith: other, compare: null })
    if (other === null || state.selected.id === null) return
    try {
      const result = await playbookApi.compare(state.selected.id, other)
      setState("selected", { compare: result })
    } catch (e) {
      fail(e)
    }
  }

  /** Follows `playbook:live`; returns the unsubscribe function. */
  const follow = () =>
    deps.ws.subscribe("playbook:live", {
      backlog: 1,
      onData: (data) => {
        const snap = LiveSnapshot.safeParse(data)
        if (!snap.success) return
        if (state.live && state.live.event.id === snap.data.event_id) setState("live", "live", snap.data)
        else void playbookApi.live().then((live) => setState({ live })).catch(fail)
      },
      onError: (frame) => setState({ error: frame.message })
    })

  const act = async (what: () => Promise<unknown>, notice: string) => {
    setState({ busy: true })
    try {
      await what()
      setState({ notice, error: null })
      await loadAll()
    } catch (e) {
      fail(e)
    } finally {
      setState({ busy: false })
    }
  }

  return {
    state,
    loadAll,
    select,
    setBucket: (bucket: number) => (state.selected.id === null ? undefined : loadFlow(state.selected.id, bucket).catch(fail)),
    compare,
    follow,
    goLive: (id: number) => act(() => playbookApi.setStatus(id, "LIVE"), "The event is LIVE."),
    complete: (id: number) => act(() => playbookApi.setStatus(id, "COMPLETED"), "The event is COMPLETED; final metrics cached."),
    create: (body: Parameters<typeof playbookApi.create>[0]) => act(() => playbookApi.create(body), "Event created.")
  }
}
export type PlaybookStore = ReturnType<typeof createPlaybookStore>
