/**
 * Trace context across the bus in the whole app (ops/TraceContext.ts), exported over OTLP/HTTP to a collector on
 * 127.0.0.1: the demo chain's block listener stores a block in its span `ChainListener.take` and publishes its
 * records on `chain.tx`; the alert fan-out's handling of them (`alert-fanout.handle`) arrives in the same trace,
 * below the publish.
 */
import { createServer, type Server } from "node:http"
import { afterAll, beforeAll, expect, it } from "vitest"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"

interface OtlpSpan { readonly name: string; readonly traceId: string; readonly spanId: string; readonly parentSpanId?: string }
const spans: Array<OtlpSpan> = []
let collector: Server
let app: TestApp

beforeAll(async () => {
  collector = createServer((req, res) => {
    let body = ""
    req.on("data", (c) => (body += c))
    req.on("end", () => {
      const doc = JSON.parse(body) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<OtlpSpan> }> }> }
      for (const rs of doc.resourceSpans) for (const s of rs.scopeSpans) spans.push(...s.spans)
      res.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve))
  const port = (collector.address() as { port: number }).port
  app = await startApp({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORT_INTERVAL_MS: "200", CHAIN_SOURCE: "demo", DEMO_BLOCK_MS: "300" } })
})
afterAll(async () => {
  await app?.close()
  await new Promise((resolve) => collector?.close(resolve))
})

/** A fan-out handling, the bus publish it continues, and the listener's publish above that, once all are exported. */
const chain = () => {
  for (const handle of spans.filter((s) => s.name === "alert-fanout.handle")) {
    const publishMany = spans.find((s) => s.spanId === handle.parentSpanId)
    const publish = publishMany && spans.find((s) => s.spanId === publishMany.parentSpanId)
    if (publish) return { handle, publishMany: publishMany!, publish }
  }
  return undefined
}

it("a block stored, published on chain.tx and handled by the alert fan-out is one trace", async () => {
  await waitFor(() => chain() !== undefined, 45_000, 200)
  const { handle, publishMany, publish } = chain()!
  expect(publishMany.name).toMatch(/^Bus(Redis|Memory)\.publishMany$/)
  expect(publish.name).toBe("ChainListener.publish")
  expect(new Set([handle.traceId, publishMany.traceId, publish.traceId]).size).toBe(1)
  // The trace starts at the block: the listener's publish sits below its `ChainListener.take`.
  await waitFor(() => spans.some((s) => s.spanId === publish.parentSpanId), 10_000, 100)
  const take = spans.find((s) => s.spanId === publish.parentSpanId)!
  expect(take.name).toBe("ChainListener.take")
  expect(take.traceId).toBe(handle.traceId)
}, 60_000)
