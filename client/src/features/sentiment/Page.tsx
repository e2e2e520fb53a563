/** The Whale Sentiment Index: today's score, what it is made of, and its 30-day history. */
import { For, Show, type Component } from "solid-js"
import { Card } from "../../components/Card"
import { Gauge } from "../../components/Gauge"
import { IndexHistoryChart } from "../../components/IndexHistoryChart"
import { IndexSplit } from "../../components/IndexSplit"
import { ago } from "../../lib/format"
import { useStore } from "../../store"

export const Sentiment: Component = () => {
  const [state] = useStore()
  return (
    <Show when={state.market.index} fallback={<p class="empty">{state.market.error ?? "Loading the index…"}</p>}>
      {(index) => (
        <div class="grid grid-sentiment">
          <Card title="Whale Sentiment Index" aside={<span class="muted">{index().date}{state.market.updatedAt ? ` · updated ${ago(new Date(state.market.updatedAt).toISOString(), state.now)}` : ""}</span>}>
            <Gauge score={index().score} label={index().label} />
            <p class="muted small">0–100 daily score of whale buying against selling; 50 is neutral. Observational data, not financial advice.</p>
            <IndexSplit index={index()} />
          </Card>
          <Card title="Components">
            <div class="components" role="table" aria-label="Index components">
              <For each={index().components} fallback={<p class="empty">No components yet.</p>}>
                {(c) => (
                  <div class="component" role="row">
                    <span class="component-name" role="cell" title={c.description}>{c.name}</span>
                    <span class="meter" role="cell" aria-label={`${c.score.toFixed(0)} of 100`}>
                      <span style={{ width: `${Math.max(0, Math.min(100, c.score))}%` }} class={c.score >= 50 ? "meter-pos" : "meter-neg"} />
                    </span>
                    <span class="num strong" role="cell">{c.score.toFixed(0)}</span>
                    <span class="num muted" role="cell">×{c.weight}</span>
                    <span class="component-desc muted" role="cell">{c.description}</span>
                  </div>
                )}
              </For>
            </div>
          </Card>
          <Card title="Last 30 days" class="span-2">
            <IndexHistoryChart index={index()} height={280} />
          </Card>
        </div>
      )}
    </Show>
  )
}

/** The page as the console's route table loads it (CONSOLE_PAGES in schema/http/console.ts). */
export default Sentiment
