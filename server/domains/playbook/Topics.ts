/**
 * The playbook's WebSocket topic (registered by its module):
 *
 *   playbook:live  whale tier and above (the playbook is whale-gated): the `LiveSnapshot`s the playbook-live actor
 *                  publishes on `console.playbook` while an event is LIVE; a payload that does not parse is skipped.
 */
import { LiveSnapshot } from "../../../schema/http/playbook"
import { CONSOLE_STREAMS } from "../../../schema/ws"
import { Gate, parsed, type TopicDef } from "../../platform/ws/Topics"

export const PLAYBOOK_TOPICS: ReadonlyArray<TopicDef> = [
  {
    topic: "playbook:live",
    source: {
      stream: CONSOLE_STREAMS.playbook, kind: "log", delayedForAnon: false,
      route: (payload) => {
        const snapshot = parsed(LiveSnapshot, payload)
        return snapshot && { topic: "playbook:live", key: "", live: snapshot }
      }
    },
    gate: Gate.tier("whale")
  }
]
