/** The landing page: headline figures, the index, top tokens and the live feed at a glance. */
import { Show, type Component } from "solid-js"
import { Card } from "../../components/Card"
import { FeedNote } from "../../components/FeedNote"
import { FlowBars } from "../../components/FlowBars"
import { Gauge } from "../../components/Gauge"
import { IndexHistoryChart } from "../../components/IndexHistoryChart"
import { IndexSplit } from "../../components/IndexSplit"
import { StatsStrip } from "../../components/StatsStrip"
import { TradeList } from "../../components/TradeList"
import { Link } from "../../router"
import { useStore } from "../../store"

export const Overview: Component = () => {
  const [state] = useStore()
  return (
    <>
      <StatsStrip />
      <div class="grid grid-overview">
        <Card title="Whale Sentiment Index" aside={<Link href="/sentiment">Components & history →</Link>}>
          <Show when={state.market.index} fallback={<p class="empty">Loading the index…</p>}>
            {(index) => (
              <div class="index-summary">
                <Gauge score={index().score} label={index().label} />
                <IndexHistoryChart index={index()} height={150} />
                <IndexSplit index={index()} />
              </div>
            )}
          </Show>
        </Card>
        <Card title="Top tokens · 24h" aside={<Link href="/tokens">All →</Link>}>
          <Show when={state.market.top} fallback={<p class="empty">Loading top tokens…</p>}>
            {(top) => <FlowBars tokens={top().tokens} limit={6} />}
          </Show>
        </Card>
        <Card title="Live whale trades" class="span-2" id="live-feed" aside={<FeedNote />}>
          <TradeList trades={state.feed.trades.slice(0, 25)} empty="Waiting for the first whale trade…" />
          <p class="card-foot"><Link href="/feed">Full feed with filters →</Link></p>
        </Card>
      </div>
    </>
  )
}

/** The page as the console's route table loads it (CONSOLE_PAGES in schema/http/console.ts). */
export default Overview
