/**
 * The signed-in user's events (`user:<id>`, schema/ws.ts `UserEvent`), followed by kind: the handler gets the data of
 * its kind only, parsed with that kind's schema (an event that does not parse is dropped). Several pages may follow
 * the topic at once, each for its kind.
 */
import { UserEvent, userTopic, type UserEventData, type UserEventKind } from "../../../schema/ws"
import type { WsClient } from "./ws"

export const onUserEvent = <K extends UserEventKind>(
  ws: Pick<WsClient, "subscribe">,
  userId: number,
  kind: K,
  handler: (data: UserEventData<K>) => void,
  options: { readonly backlog?: number } = {}
): (() => void) =>
  ws.subscribe(userTopic(userId), {
    ...options,
    onData: (raw) => {
      // The kind first: another kind's data is not parsed at all.
      if (typeof raw !== "object" || raw === null || (raw as { kind?: unknown }).kind !== kind) return
      const event = UserEvent.safeParse({ user_id: userId, ...(raw as object) })
      if (event.success && event.data.kind === kind) handler(event.data.data as UserEventData<K>)
    }
  })
