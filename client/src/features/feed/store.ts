/**
 * The live whale trade feed: `feed:trades` from the hub, newest first. The first subscription asks for a backlog;
 * every later one resumes from the last seq, so a dropped connection shows no gap (a `truncated` resume is counted
 * and shown). A trade a reorg rolled back is removed when its retraction arrives.
 */
import { onCleanup } from "solid-js"
import { FeedRetraction, FeedTrade } from "../../../../schema/ws"
import type { Actions, Deps, SetState, State } from "../../store/types"

/** Trades kept in memory (and shown). */
export const FEED_SIZE = 300
const BACKLOG = 60

export const createFeed = (deps: Deps, actions: Partial<Actions>, state: State, setState: SetState) => {
  const off = deps.ws.subscribe("feed:trades", {
    backlog: BACKLOG,
    onSubscribed: (frame, resumed) => {
      setState("feed", { delayMs: frame.delay_ms, loaded: true })
      if (resumed && frame.truncated) setState("feed", "gaps", (g) => g + 1)
    },
    onData: (data, seq) => {
      const retraction = FeedRetraction.safeParse(data)
      if (retraction.success) {
        const r = retraction.data
        setState("feed", "trades", (list) => list.filter((t) => !(t.tx_hash === r.tx_hash && t.log_index === r.log_index && t.token === r.token)))
        return
      }
      const trade = FeedTrade.safeParse(data)
      if (!trade.success) return
      setState("feed", "trades", (list) => [{ ...trade.data, seq }, ...list].slice(0, FEED_SIZE))
    }
  })
  onCleanup(off)
}
