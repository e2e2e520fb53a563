/** The live whale trade feed with side and size filters. */
import { createMemo, createSignal, For, type Component } from "solid-js"
import { Card } from "../../components/Card"
import { FeedNote } from "../../components/FeedNote"
import { TradeList } from "../../components/TradeList"
import { usd } from "../../lib/format"
import { useStore } from "../../store"

const SIDES = [
  { key: "all", label: "All" }, { key: "dex_buy", label: "Buys" }, { key: "dex_sell", label: "Sells" },
  { key: "exchange_withdraw", label: "Withdrawals" }, { key: "exchange_deposit", label: "Deposits" }
] as const
const SIZES = [0, 100_000, 500_000, 1_000_000] as const

export const FeedPage: Component = () => {
  const [state] = useStore()
  const [side, setSide] = createSignal<string>("all")
  const [min, setMin] = createSignal<number>(0)
  const shown = createMemo(() => state.feed.trades.filter((t) => (side() === "all" || t.category === side()) && (t.usd ?? 0) >= min()))
  return (
    <Card title="Live whale trades" aside={<FeedNote />}>
      <div class="filters" role="group" aria-label="Filters">
        <div class="chips">
          <For each={SIDES}>
            {(s) => (
              <button class="chip" aria-pressed={side() === s.key} onClick={() => setSide(s.key)}>
                {s.label}
              </button>
            )}
          </For>
        </div>
        <label class="select">
          Min value
          <select value={min()} onChange={(e) => setMin(Number(e.currentTarget.value))}>
            <For each={SIZES}>{(n) => <option value={n}>{n === 0 ? "Any" : usd(n)}</option>}</For>
          </select>
        </label>
        <span class="muted count">{shown().length} of {state.feed.trades.length} trades</span>
      </div>
      <TradeList trades={shown()} empty={state.feed.loaded ? "No trades match these filters yet." : "Connecting to the feed…"} />
    </Card>
  )
}

/** The page as the console's route table loads it (CONSOLE_PAGES in schema/http/console.ts). */
export default FeedPage
