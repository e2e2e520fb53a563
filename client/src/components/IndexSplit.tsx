/**
 * The index's human-vs-bot split (issue 28 part 5): today's DEX volume of the whales the score counts against that of
 * the bots, routers, pools, exchanges and bridges it leaves out. Nothing when the answer has no split.
 */
import { Show, type Component } from "solid-js"
import type { WhaleIndex } from "../../../schema/http/analytics"
import { pct, usd } from "../lib/format"

export const IndexSplit: Component<{ index: WhaleIndex }> = (props) => (
  <Show when={props.index.split}>
    {(s) => (
      <p class="muted small index-split" data-testid="index-split">
        Whales only: {usd(s().human_volume_usd)} of DEX volume today from {s().human_wallets} whale{s().human_wallets === 1 ? "" : "s"};{" "}
        {usd(s().bot_volume_usd)} from {s().bot_wallets} bot{s().bot_wallets === 1 ? "" : "s"}, router{s().bot_wallets === 1 ? "" : "s"} and
        exchange wallets left out{s().bot_share === null ? "" : ` (${pct(s().bot_share! * 100, 1)} of the total)`}. Exchange housekeeping is never counted.
      </p>
    )}
  </Show>
)
