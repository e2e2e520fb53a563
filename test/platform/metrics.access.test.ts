/**
 * Who can read /metrics (docs/security.md): its own listener on loopback (METRICS_HOST:METRICS_PORT); the public
 * port only with METRICS_TOKEN, to that bearer token; a taken metrics port refuses the start, naming the setting.
 */
import { createServer, type Server } from "node:net"
import { ConfigProvider, Effect, Exit, Layer, Cause } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AppConfig } from "../../server/platform/Config"
import { Metrics } from "../../server/platform/ops/Metrics"
import { serveMetrics } from "../../server/platform/ops/MetricsServer"
import { startApp, type TestApp } from "../support/harness"

const TOKEN = "metrics-token-for-the-test-0123456789"
let app: TestApp
beforeAll(async () => {
  app = await startApp({ env: { METRICS_TOKEN: TOKEN, WHALE_ROLES: "http" } })
})
afterAll(async () => {
  await app?.close()
})

const publicMetrics = (authorization?: string) => fetch(`${app.url}/metrics`, authorization === undefined ? {} : { headers: { authorization } })

describe("/metrics", () => {
  it("is served on the public port only to the METRICS_TOKEN bearer token", async () => {
    for (const authorization of [undefined, "Bearer wrong-token", `Basic ${TOKEN}`, `Bearer ${TOKEN}x`, TOKEN]) {
      const res = await publicMetrics(authorization)
      expect(res.status, String(authorization)).toBe(401)
      const body = await res.json()
      expect(body.code).toBe("bad_token")
      expect(JSON.stringify(body)).not.toContain("http_requests_total")
    }
    const ok = await publicMetrics(`Bearer ${TOKEN}`)
    expect(ok.status).toBe(200)
    expect(ok.headers.get("cache-control")).toBe("no-store")
    expect(await ok.text()).toMatch(/^http_requests_total\{/m)
  })

  it("keeps its loopback listener, which needs no token", async () => {
    expect(new URL(app.metricsUrl).hostname).toBe("127.0.0.1")
    const res = await fetch(`${app.metricsUrl}/metrics`)
    expect(res.status).toBe(200)
    expect(await res.text()).toMatch(/^# TYPE http_requests_total counter$/m)
  })

  it("refuses to start when METRICS_PORT is taken, naming the setting; METRICS_PORT=off starts none", async () => {
    const taken: Server = createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    const port = (taken.address() as { port: number }).port
    const run = (env: Record<string, string>) =>
      Effect.runPromiseExit(Effect.scoped(serveMetrics).pipe(
        Effect.provide(Layer.mergeAll(AppConfig.Default, Metrics.Default)),
        Effect.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries({ DATA_DIR: app.env.DATA_DIR!, LOG_LEVEL: "warn", ...env })))))
      ))
    try {
      const exit = await run({ METRICS_PORT: String(port) })
      expect(Exit.isFailure(exit)).toBe(true)
      expect(Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "").toContain(`METRICS_PORT 127.0.0.1:${port}`)
    } finally {
      await new Promise((resolve) => taken.close(resolve))
    }
    const off = await run({ METRICS_PORT: "off" })
    expect(Exit.isSuccess(off) ? off.value : "failed").toBeNull()
    const bad = await run({ METRICS_PORT: "90000" })
    expect(Exit.isFailure(bad) ? Cause.pretty(bad.cause) : "").toContain("METRICS_PORT=90000")
  })
})
