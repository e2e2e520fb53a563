/**
 * The bus is typed per stream (schema/bus.ts): a payload of the wrong shape for a listed stream does not compile —
 * the `@ts-expect-error` lines below fail `tsc` (which covers test/) the day they compile. The runtime part checks
 * the same calls on the in-memory bus, so this file also runs under vitest.
 */
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import type { PayloadOf } from "../../schema/bus"
import { deliverMessage, STREAMS, type ChainTxMessage, type NotifyMessage } from "../../schema/streams"
import { CONSOLE_STREAMS } from "../../schema/ws"
import { Bus } from "../../server/platform/infra/Bus"
import { BusMemory } from "../../server/platform/infra/BusMemory"

// Type-level: a listed stream's payload type is its message type; an unlisted stream takes any JSON object.
const notifyIsNotifyMessage: PayloadOf<typeof STREAMS.notify> extends NotifyMessage ? true : false = true
const anyStream: PayloadOf<"test.anything"> = { whatever: 1 }

const publishes = Effect.gen(function* () {
  const bus = yield* Bus
  // The right shapes compile.
  yield* bus.publish(STREAMS.notify, deliverMessage(7, [1, 2]))
  yield* bus.publish(CONSOLE_STREAMS.user, { user_id: 7, kind: "watchlist", data: { item_id: 1, token: "0x", tx_hash: "0x", retracted: true } })
  yield* bus.publish("test.anything", { n: 1 })
  // @ts-expect-error a chain.tx record is not a notify message
  yield* bus.publish(STREAMS.notify, { messageId: "x", tx_hash: "0x" } as unknown as ChainTxMessage)
  // @ts-expect-error notify's Deliver needs its delivery ids
  yield* bus.publish(STREAMS.notify, { _tag: "Deliver", messageId: "x", user_id: 7 })
  // @ts-expect-error an unknown _tag on domain.events
  yield* bus.publishMany(STREAMS.domainEvents, [{ _tag: "PickFlaggd", messageId: "x" }])
  // @ts-expect-error an alert's data is not a watchlist item's (UserEvent is keyed on kind)
  yield* bus.publish(CONSOLE_STREAMS.user, { user_id: 7, kind: "alert", data: { item_id: 1, token: "0x", tx_hash: "0x", retracted: true } })
  // @ts-expect-error a console.user event names its user
  yield* bus.publish(CONSOLE_STREAMS.user, { kind: "alert", data: {} })
  // @ts-expect-error echo.cmd's sides are BUY and SELL
  yield* bus.publish(STREAMS.echoCmd, { _tag: "Trade", messageId: "x", userId: 1, side: "HOLD", token: "0x" })
  return yield* bus.tail(STREAMS.notify, 10)
})

describe("the bus typed per stream", () => {
  it("publishes what the types allow (and, at run time, what they refuse: the bus does not check)", async () => {
    expect(notifyIsNotifyMessage).toBe(true)
    expect(anyStream).toEqual({ whatever: 1 })
    const tail = await Effect.runPromise(publishes.pipe(Effect.provide(BusMemory.layer), Effect.scoped))
    expect(tail.map((e) => e.payload._tag)).toEqual(["Deliver", undefined, "Deliver"])
  })
})
