/**
 * Tracing (server/platform/ops/Tracing.ts): with OTEL_EXPORTER_OTLP_ENDPOINT set, the app's spans reach an OTLP/HTTP
 * collector — here a listener on 127.0.0.1 that keeps what it is sent — at `<endpoint>/v1/traces`, as OTLP JSON with
 * the service's name; spans of one request share its trace.
 */
import { createServer, type Server } from "node:http"
import { afterAll, beforeAll, expect, it } from "vitest"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"

interface OtlpSpan { readonly name: string; readonly traceId: string; readonly spanId: string; readonly parentSpanId?: string }
const received: Array<{ path: string; type: string; service: string | undefined; spans: Array<OtlpSpan> }> = []
let collector: Server
let app: TestApp

beforeAll(async () => {
  collector = createServer((req, res) => {
    let body = ""
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      const doc = JSON.parse(body) as { resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> }; scopeSpans: Array<{ spans: Array<OtlpSpan> }> }> }
      for (const rs of doc.resourceSpans) {
        received.push({
          path: req.url ?? "", type: req.headers["content-type"] ?? "",
          service: rs.resource.attributes.find((a) => a.key === "service.name")?.value.stringValue,
          spans: rs.scopeSpans.flatMap((s) => s.spans)
        })
      }
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve))
  const port = (collector.address() as { port: number }).port
  app = await startApp({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}/`, OTEL_EXPORT_INTERVAL_MS: "200", WHALE_ROLES: "http" } })
})
afterAll(async () => {
  await app?.close()
  await new Promise((resolve) => collector?.close(resolve))
})

it("exports the app's spans to the collector over OTLP/HTTP JSON, named by the service", async () => {
  // The catalog's seeding at start is a span (Effect.fn "ChainCatalog.seed").
  await waitFor(() => received.some((r) => r.spans.some((s) => s.name === "ChainCatalog.seed")), 15_000, 100)
  const batch = received.find((r) => r.spans.some((s) => s.name === "ChainCatalog.seed"))!
  expect(batch.path).toBe("/v1/traces")
  expect(batch.type).toContain("application/json")
  expect(batch.service).toBe("whale-intelligence")
  const seed = batch.spans.find((s) => s.name === "ChainCatalog.seed")!
  expect(seed.traceId).toMatch(/^[0-9a-f]{32}$/)
  expect(seed.spanId).toMatch(/^[0-9a-f]{16}$/)
})
