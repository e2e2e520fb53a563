/**
 * The live whale trade feed: `feed:trades` from the hub, newest first. The first subscription asks for a backlog;
 * every later one resumes from the last seq, so a dropped connection shows no gap (a `truncated` resume is counted
 * and shown).
 */
import { FeedTrade } from "../../../schema/ws"
import type { Actions, Deps, SetState, State } from "./types"

/** Trades kept in memory (and shown). */
export const FEED_SIZE = 300
const BACKLOG = 60

export const createFeed = (deps: Deps, actions: Partial<Actions>, state: State, setState: SetState) => {
  deps.ws.subscribe("feed:trades", {
    backlog: BACKLOG,
    onSubscribed: (frame, resumed) => {
      setState("feed", { delayMs: frame.delay_ms, loaded: true })
      if (resumed && frame.truncated) setState("feed", "gaps", (g) => g + 1)
    },
    onData: (data, seq) => {
      const trade = FeedTrade.safeParse(data)
      if (!trade.success) return
      setState("feed", "trades", (list) => [{ ...trade.data, seq }, ...list].slice(0, FEED_SIZE))
    }
  })
}
