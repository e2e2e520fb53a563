/**
 * The console follows the user's topic by kind (client/src/api/userEvents.ts) over one WebSocket subscription shared
 * by several handlers (client/src/api/ws.ts): each handler gets its kind's data only, parsed; the topic is subscribed
 * once and left when its last follower stops. A fake WebSocket stands in for the server.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { onUserEvent } from "../../client/src/api/userEvents"
import { createWsClient } from "../../client/src/api/ws"

class FakeSocket {
  static last: FakeSocket | null = null
  static readonly OPEN = 1
  readyState = 1
  sent: Array<Record<string, unknown>> = []
  onmessage: ((e: { data: string }) => void) | null = null
  onopen: (() => void) | null = null
  onclose: (() => void) | null = null
  constructor() {
    FakeSocket.last = this
  }
  send(text: string) {
    this.sent.push(JSON.parse(text) as Record<string, unknown>)
  }
  close() {}
  receive(frame: unknown) {
    this.onmessage?.({ data: JSON.stringify(frame) })
  }
}

const saved = { WebSocket: globalThis.WebSocket, window: (globalThis as { window?: unknown }).window }
beforeEach(() => {
  Object.assign(globalThis, { WebSocket: FakeSocket, window: { addEventListener() {}, removeEventListener() {} } })
})
afterEach(() => {
  Object.assign(globalThis, saved)
})

describe("user events by kind", () => {
  it("several handlers share user:<id>: one subscription, each gets its kind parsed, the last to stop leaves", () => {
    const client = createWsClient({ url: "ws://test/ws", onStatus: () => {}, onWelcome: () => {} })
    client.start()
    const socket = FakeSocket.last!
    const watched: Array<unknown> = []
    const alerts: Array<unknown> = []
    const stopWatch = onUserEvent(client, 7, "watchlist", (d) => watched.push(d))
    const stopAlerts = onUserEvent(client, 7, "alert", (d) => alerts.push(d))
    expect(socket.sent.filter((f) => f.type === "subscribe")).toEqual([{ type: "subscribe", topic: "user:7" }])

    const retraction = { item_id: 1, token: "0xabc", tx_hash: "0xdef", retracted: true }
    socket.receive({ topic: "user:7", seq: 1, data: { kind: "watchlist", data: retraction } })
    // An alert whose data does not parse is dropped; an echo event reaches neither handler.
    socket.receive({ topic: "user:7", seq: 2, data: { kind: "alert", data: { delivery_id: "x" } } })
    socket.receive({ topic: "user:7", seq: 3, data: { kind: "echo", data: { reason: "price" } } })
    const alert = { delivery_id: 4, alert_id: 2, type: "whale_trade", title: "t", summary: "s", url: null, event_at: "2026-01-01T00:00:00.000Z", test: false }
    socket.receive({ topic: "user:7", seq: 4, data: { kind: "alert", data: alert } })
    expect(watched).toEqual([retraction])
    expect(alerts).toEqual([alert])

    stopAlerts()
    expect(socket.sent.some((f) => f.type === "unsubscribe")).toBe(false)
    socket.receive({ topic: "user:7", seq: 5, data: { kind: "alert", data: { ...alert, delivery_id: 5 } } })
    expect(alerts).toHaveLength(1)
    stopWatch()
    expect(socket.sent.filter((f) => f.type === "unsubscribe")).toEqual([{ type: "unsubscribe", topic: "user:7" }])
    client.stop()
  })
})
