/**
 * Market figures: stats, the sentiment index and top tokens. Loaded over the public API (which says whether the
 * numbers are demo data), then kept current by the `index` and `top-tokens` topics; stats are re-read every minute
 * (the public API caches them that long).
 */
import { onCleanup } from "solid-js"
import { ChainHead, IndexSnapshot, TopTokensSnapshot } from "../../../../schema/ws"
import type { Actions, Deps, SetState, State } from "../../store/types"

const STATS_EVERY_MS = 60_000

export const createMarket = (deps: Deps, actions: Partial<Actions>, state: State, setState: SetState) => {
  const loadMarket = async () => {
    const [stats, index, top] = await Promise.allSettled([deps.http.analytics.stats(), deps.http.analytics.whaleIndex(), deps.http.analytics.topTokens()])
    const meta = [stats, index, top].find((r) => r.status === "fulfilled")
    setState("market", {
      ...(stats.status === "fulfilled" ? { stats: stats.value.data } : {}),
      ...(index.status === "fulfilled" && !state.market.index ? { index: index.value.data } : {}),
      ...(top.status === "fulfilled" && !state.market.top ? { top: top.value.data } : {}),
      ...(meta?.status === "fulfilled" ? { meta: meta.value.meta } : {}),
      error: meta ? null : "Market figures are not available right now.",
      updatedAt: Date.now()
    })
  }

  const offIndex = deps.ws.subscribe("index", {
    onData: (data) => {
      const s = IndexSnapshot.safeParse(data)
      if (s.success) setState("market", { index: s.data.index, meta: { source: s.data.source, demo: s.data.demo, generated_at: s.data.generated_at }, updatedAt: Date.now() })
    }
  })
  // "Latest block" between stats reads: the listener publishes every block it stores.
  const offHead = deps.ws.subscribe("chain:head", {
    onData: (data) => {
      const head = ChainHead.safeParse(data)
      const stats = state.market.stats
      if (!head.success || !stats || (stats.latest_block && stats.latest_block.number >= head.data.number)) return
      setState("market", "stats", { ...stats, latest_block: { number: head.data.number, ts: head.data.ts, age_seconds: 0 } })
    }
  })
  const offTop = deps.ws.subscribe("top-tokens", {
    onData: (data) => {
      const s = TopTokensSnapshot.safeParse(data)
      if (s.success && s.data.top.timeframe === "24H") setState("market", { top: s.data.top, updatedAt: Date.now() })
    }
  })

  Object.assign(actions, { loadMarket } satisfies Pick<Actions, "loadMarket">)
  void loadMarket()
  const every = setInterval(() => void loadMarket(), STATS_EVERY_MS)
  onCleanup(() => {
    offIndex()
    offHead()
    offTop()
    clearInterval(every)
  })
}
