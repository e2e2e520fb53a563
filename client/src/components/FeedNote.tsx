/** Whether the feed is live or delayed for this visitor, and whether a resume missed anything. */
import { Show, type Component } from "solid-js"
import { Link } from "../router"
import { useStore } from "../store"

export const FeedNote: Component = () => {
  const [state] = useStore()
  return (
    <span class="feed-note">
      <Show
        when={state.feed.delayMs > 0}
        fallback={
          <Show when={state.connection.status === "live"} fallback={<span class="pill pill-delayed">Paused · reconnecting</span>}>
            <span class="pill pill-live">Live</span>
          </Show>
        }
      >
        <span class="pill pill-delayed">Delayed {Math.round(state.feed.delayMs / 1000)}s</span>{" "}
        <Link href="/login">Sign in for live</Link>
      </Show>
      <Show when={state.feed.gaps > 0}>
        <span class="pill pill-warn" title="The connection was down longer than the server keeps history">Some trades were missed while offline</span>
      </Show>
    </span>
  )
}
