/** Graceful shutdown: a request in flight when shutdown starts still gets its answer; new connections are refused. */
import { waitFor } from "../support/wait"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Exit, Layer, Logger, LogLevel, Scope } from "effect"
import { describe, expect, it } from "vitest"
import { AppConfig } from "../../server/platform/Config"
import { Guard } from "../../server/platform/http/Guards"
import { route } from "../../server/platform/http/Route"
import { makeHttpServer } from "../../server/platform/http/Uws"
import { Metrics } from "../../server/platform/ops/Metrics"
import { testEnv } from "../support/env"

const startServer = async (graceMs: number) => {
  const env = { ...testEnv(mkdtempSync(join(tmpdir(), "whale-shutdown-"))), SHUTDOWN_GRACE_MS: String(graceMs) }
  const layer = Layer.mergeAll(AppConfig.Default, Metrics.Default, Logger.minimumLogLevel(LogLevel.Error)).pipe(
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env)))))
  )
  const scope = Effect.runSync(Scope.make())
  const slow = route({ method: "GET", path: "/slow", summary: "answers after 600 ms" }, {
    guard: Guard.anon,
    handler: () => Effect.sleep("600 millis").pipe(Effect.as({ done: true }))
  })
  const forever = route({ method: "GET", path: "/forever", summary: "never answers by itself" }, {
    guard: Guard.anon,
    handler: () => Effect.never
  })
  const server = await Effect.runPromise(makeHttpServer({ routes: [slow, forever] }).pipe(Effect.provide(layer), Scope.extend(scope)))
  return { url: `http://127.0.0.1:${server.port}`, server, stop: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

describe("graceful shutdown", () => {
  it("drains a request in flight, then stops accepting connections", async () => {
    const s = await startServer(3_000)
    const inflight = fetch(`${s.url}/slow`)
    await waitFor(() => s.server.inFlight() === 1, 10_000, 10)
    const t0 = Date.now()
    const stopping = s.stop()
    const res = await inflight
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ done: true })
    expect(res.headers.get("connection")).toBe("close")
    await stopping
    expect(Date.now() - t0).toBeGreaterThanOrEqual(400)
    await expect(fetch(`${s.url}/slow`)).rejects.toThrow()
  })

  it("interrupts what is still running when the grace period ends, answering 503", async () => {
    const s = await startServer(300)
    const stuck = fetch(`${s.url}/forever`)
    await waitFor(() => s.server.inFlight() === 1, 10_000, 10)
    const t0 = Date.now()
    await s.stop()
    const res = await stuck
    expect(res.status).toBe(503)
    expect((await res.json()).code).toBe("shutting_down")
    expect(Date.now() - t0).toBeLessThan(2_000)
  })
})
