/**
 * Streamed replies (`Reply.stream`): chunked transfer, chunks in order, a body far larger than the socket buffers
 * written under backpressure, a client that goes away mid-stream (the stream stops, the request leaves the in-flight
 * count), a failure after the head (the connection is closed: a truncated body, never a complete-looking one), and
 * shutdown draining a stream in flight.
 */
import { connect } from "node:net"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Exit, Layer, Logger, LogLevel, Scope, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { AppConfig } from "../../server/platform/Config"
import { Guard } from "../../server/platform/http/Guards"
import { Reply } from "../../server/platform/http/Reply"
import { route } from "../../server/platform/http/Route"
import { makeHttpServer } from "../../server/platform/http/Uws"
import { Metrics } from "../../server/platform/ops/Metrics"
import { testEnv } from "../support/env"
import { waitFor } from "../support/wait"

const ROWS = 20_000
const row = (i: number) => JSON.stringify({ i, pad: "x".repeat(200) })

const startServer = async (graceMs = 3_000) => {
  const env = { ...testEnv(mkdtempSync(join(tmpdir(), "whale-stream-"))), SHUTDOWN_GRACE_MS: String(graceMs) }
  const layer = Layer.mergeAll(AppConfig.Default, Metrics.Default, Logger.minimumLogLevel(LogLevel.None)).pipe(
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
  )
  const scope = Effect.runSync(Scope.make())
  let pulled = 0
  // ~4.4 MB in 200 chunks of 100 rows, each produced only when asked for.
  const rows = (n: number) => Stream.range(0, n / 100 - 1).pipe(
    Stream.tap(() => Effect.sync(() => pulled++)),
    Stream.map((b) => (b === 0 ? "" : ",") + Array.from({ length: 100 }, (_, k) => row(b * 100 + k)).join(","))
  )
  const routes = [
    route({ method: "GET", path: "/big", summary: "a large streamed JSON array" }, {
      guard: Guard.anon,
      handler: () => Effect.succeed(Reply.jsonStream(Stream.concat(Stream.concat(Stream.succeed("["), rows(ROWS)), Stream.succeed("]"))))
    }),
    route({ method: "GET", path: "/broken", summary: "fails after its first chunk" }, {
      guard: Guard.anon,
      handler: () => Effect.succeed(Reply.jsonStream(Stream.concat(Stream.succeed('{"partial":'), Stream.fromEffect(Effect.die(new Error("lost the database"))))))
    }),
    route({ method: "GET", path: "/slow", summary: "three chunks 300 ms apart" }, {
      guard: Guard.anon,
      handler: () => Effect.succeed(Reply.stream(Stream.make("a", "b", "c").pipe(Stream.tap(() => Effect.sleep("300 millis"))), "text/plain; charset=utf-8"))
    }),
    route({ method: "GET", path: "/endless", summary: "never ends" }, {
      guard: Guard.anon,
      handler: () => Effect.succeed(Reply.stream(Stream.repeatEffect(Effect.sleep("50 millis").pipe(Effect.as("."))), "text/plain"))
    })
  ]
  const server = await Effect.runPromise(makeHttpServer({ routes }).pipe(Effect.provide(layer), Scope.extend(scope)))
  return {
    url: `http://127.0.0.1:${server.port}`, port: server.port, server, pulled: () => pulled,
    stop: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

describe("streamed replies", () => {
  it("sends a large body chunked, in order, complete", async () => {
    const s = await startServer()
    try {
      const res = await fetch(`${s.url}/big`)
      expect(res.status).toBe(200)
      expect(res.headers.get("transfer-encoding")).toBe("chunked")
      expect(res.headers.get("content-type")).toContain("application/json")
      expect(res.headers.get("x-request-id")).toBeTruthy()
      const body = (await res.json()) as Array<{ i: number }>
      expect(body).toHaveLength(ROWS)
      expect(body.every((r, i) => r.i === i)).toBe(true)
      await waitFor(() => s.server.inFlight() === 0, 5_000, 10)
      // HEAD: the head only.
      const head = await fetch(`${s.url}/big`, { method: "HEAD" })
      expect(head.status).toBe(200)
      expect(await head.text()).toBe("")
    } finally {
      await s.stop()
    }
  })

  it("stops producing when a client that stopped reading goes away, and leaves nothing in flight", async () => {
    const s = await startServer()
    try {
      const socket = connect({ host: "127.0.0.1", port: s.port })
      await new Promise<void>((resolve) => socket.once("connect", () => resolve()))
      socket.write("GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
      await new Promise<void>((resolve) => socket.once("data", () => resolve()))
      socket.pause()
      // uWS's buffer fills, the stream waits for it to drain: it has not produced the whole body.
      await waitFor(() => s.server.inFlight() === 1 && s.pulled() > 0, 5_000, 10)
      await new Promise((r) => setTimeout(r, 200))
      const pulledWhilePaused = s.pulled()
      expect(pulledWhilePaused).toBeLessThan(ROWS / 100)
      socket.destroy()
      await waitFor(() => s.server.inFlight() === 0, 5_000, 10)
      expect(s.pulled()).toBeLessThan(ROWS / 100)
      // The server goes on serving.
      expect(((await (await fetch(`${s.url}/big`)).json()) as Array<unknown>).length).toBe(ROWS)
    } finally {
      await s.stop()
    }
  })

  it("closes the connection when the stream fails after its head: the body is truncated, not complete", async () => {
    const s = await startServer()
    try {
      // The head may or may not have left before the failure; either way the client sees an error, not a body.
      await expect(fetch(`${s.url}/broken`).then((r) => r.text())).rejects.toThrow()
      await waitFor(() => s.server.inFlight() === 0, 5_000, 10)
    } finally {
      await s.stop()
    }
  })

  it("drains a stream in flight at shutdown, and cuts one that outlives the grace period", async () => {
    const s = await startServer(2_000)
    const slow = fetch(`${s.url}/slow`).then((r) => r.text())
    const endless = fetch(`${s.url}/endless`).then((r) => r.text())
    endless.catch(() => undefined)
    await waitFor(() => s.server.inFlight() === 2, 5_000, 10)
    await s.stop()
    expect(await slow).toBe("abc")
    await expect(endless).rejects.toThrow()
  })
})
