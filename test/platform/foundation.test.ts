import { request } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startApp, type TestApp } from "../support/harness"

let app: TestApp
beforeAll(async () => {
  app = await startApp()
})
afterAll(async () => {
  await app?.close()
})

const json = (path: string, init?: RequestInit) => fetch(app.url + path, init)

/** A raw request with a declared length and a body of a given size (fetch cannot lie about lengths). */
const rawPost = (path: string, body: Buffer, headers: Record<string, string>) =>
  new Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
    const req = request(app.url + path, { method: "POST", headers }, (res) => {
      let text = ""
      res.on("data", (c) => (text += c))
      res.on("end", () => resolve({ status: res.statusCode!, body: text, headers: res.headers }))
    })
    req.on("error", reject)
    req.end(body)
  })

describe("operations endpoints", () => {
  it("healthz answers ok", async () => {
    const res = await json("/healthz")
    expect(res.status).toBe(200)
    expect(await res.json()).toMatchObject({ status: "ok", version: "0.1.0" })
  })

  it("readyz reports database, bus and actors ready", async () => {
    const res = await json("/readyz")
    const body = await res.json()
    expect(res.status).toBe(200)
    expect(body.status).toBe("ready")
    expect(body.database.ok).toBe(true)
    expect(body.bus.ok).toBe(true)
    expect(body.bus.kind).toBe(process.env.REDIS_URL ? "redis" : "memory")
  })

  it("metrics exposes per-route request counts, latency histogram and pool figures, on its own loopback listener only", async () => {
    await json("/api/pricing")
    const res = await fetch(`${app.metricsUrl}/metrics`)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("text/plain; version=0.0.4")
    const text = await res.text()
    expect(text).toMatch(/http_requests_total\{method="GET",route="\/api\/pricing",status="200"\} \d+/)
    expect(text).toMatch(/http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/api\/pricing"\} \d+/)
    expect(text).toMatch(/db_pool_connections\{kind="(embedded|postgres)",state="max"\} 5/)
    // Not on the public port (no METRICS_TOKEN here), and nothing else on the metrics port.
    expect((await json("/metrics")).status).toBe(404)
    expect((await fetch(`${app.metricsUrl}/api/pricing`)).status).toBe(404)
    expect((await fetch(`${app.metricsUrl}/metrics`, { method: "POST" })).status).toBe(404)
  })

  it("openapi.json lists every route with its parameters and validation error", async () => {
    const doc = await (await json("/openapi.json")).json()
    expect(doc.openapi).toBe("3.1.0")
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/api/pricing", "/api/founding-waitlist", "/email/unsubscribe", "/healthz", "/readyz"]))
    expect(Object.keys(doc.paths)).not.toContain("/metrics")
    const waitlist = doc.paths["/api/founding-waitlist"].post
    expect(waitlist.requestBody.content["application/json"].schema.required).toContain("email")
    expect(waitlist.responses["422"]).toBeDefined()
    expect(doc.paths["/email/unsubscribe"].get.parameters).toContainEqual(expect.objectContaining({ name: "token", in: "query", required: false }))
    // Every keyed endpoint carries an example request.
    const keyed = Object.entries(doc.paths).filter(([p]) => p.startsWith("/api/v1/") && !p.startsWith("/api/v1/public"))
    expect(keyed.length).toBeGreaterThanOrEqual(8)
    for (const [path, ops] of keyed) {
      const sample = (ops as any).get["x-codeSamples"]?.[0]?.source as string | undefined
      // A path parameter is filled with an example value (`{address}`: a seed wallet).
      expect(sample, path).toMatch(new RegExp(`^curl -H "X-API-Key: \\$WHALE_API_KEY" "http[^"]+${path.replace(/[/]/g, "\\/").replace(/\{\w+\}/g, "[^/\"{}]+")}`))
    }
  })

  it("openapi.json carries the schemas' bounds: integer parameters with their limits and defaults", async () => {
    const doc = await (await json("/openapi.json")).json()
    const param = (path: string, method: string, name: string) =>
      (doc.paths[path][method].parameters as Array<{ name: string; schema: unknown }>).find((p) => p.name === name)?.schema
    expect(param("/api/v1/transactions", "get", "limit")).toEqual({ type: "integer", minimum: 1, maximum: 500, default: 100 })
    expect(param("/api/v1/wallets", "get", "limit")).toEqual({ type: "integer", minimum: 1, maximum: 100, default: 20 })
    expect(param("/api/alerts/{alert_id}", "put", "alert_id")).toEqual({ type: "integer", minimum: 1 })
    expect(param("/api/alerts/history", "get", "limit")).toEqual({ type: "integer", minimum: 1, maximum: 200, default: 50 })
  })
})

describe("HTTP behaviour", () => {
  it("unknown path is a JSON 404", async () => {
    const res = await json("/no/such/thing")
    expect(res.status).toBe(404)
    expect(await res.json()).toEqual({ detail: "No route for GET /no/such/thing", code: "not_found" })
  })

  it("known path with the wrong method is 405 with Allow", async () => {
    const res = await json("/api/pricing", { method: "DELETE" })
    expect(res.status).toBe(405)
    expect(res.headers.get("allow")).toBe("GET, HEAD")
    expect((await res.json()).code).toBe("method_not_allowed")
  })

  it("a body over the cap is 413, by declared length and by streamed size", async () => {
    const big = Buffer.alloc(1_100_000, "a")
    const declared = await rawPost("/api/founding-waitlist", big, { "content-type": "application/json", "content-length": String(big.length) })
    expect(declared.status).toBe(413)
    expect(JSON.parse(declared.body).code).toBe("payload_too_large")
    const chunked = await rawPost("/api/founding-waitlist", big, { "content-type": "application/json", "transfer-encoding": "chunked" })
    expect(chunked.status).toBe(413)
  })

  it("invalid JSON is a 422 on the body", async () => {
    const res = await json("/api/founding-waitlist", { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" })
    expect(res.status).toBe(422)
    const body = await res.json()
    expect(body.detail[0]).toMatchObject({ type: "json_invalid", loc: ["body"] })
  })

  it("an unsupported content type is 415", async () => {
    const res = await json("/api/founding-waitlist", { method: "POST", headers: { "content-type": "text/csv" }, body: "email\na@b.co" })
    expect(res.status).toBe(415)
  })

  it("every response carries a request id, echoing a valid given one", async () => {
    const given = await json("/healthz", { headers: { "x-request-id": "trace-123" } })
    expect(given.headers.get("x-request-id")).toBe("trace-123")
    const made = await json("/healthz", { headers: { "x-request-id": "bad id with spaces" } })
    expect(made.headers.get("x-request-id")).toMatch(/^[0-9a-f]{6}-[0-9a-z]+$/)
  })

  it("answers pipelined requests for a cached endpoint, in order", async () => {
    await json("/api/pricing")
    const { connect } = await import("node:net")
    const statuses = await new Promise<Array<string>>((resolve, reject) => {
      const socket = connect(app.port, "127.0.0.1")
      let out = ""
      socket.on("data", (c) => {
        out += c.toString("latin1")
        const lines = out.match(/HTTP\/1\.1 \d{3}/g) ?? []
        if (lines.length === 3 && out.trimEnd().endsWith("}")) {
          socket.destroy()
          resolve(lines)
        }
      })
      socket.on("error", reject)
      socket.on("connect", () => socket.write("GET /api/pricing HTTP/1.1\r\nHost: x\r\n\r\n".repeat(3)))
    })
    expect(statuses).toEqual(["HTTP/1.1 200", "HTTP/1.1 200", "HTTP/1.1 200"])
  })

  it("HEAD answers like GET without a body", async () => {
    const res = await json("/healthz", { method: "HEAD" })
    expect(res.status).toBe(200)
    expect(await res.text()).toBe("")
  })
})

describe("first endpoints", () => {
  it("GET /auth/tier is anon without credentials", async () => {
    const res = await json("/auth/tier")
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ tier: "anon" })
  })

  it("GET /api/pricing lists the public tiers from the database, never the internal one", async () => {
    const res = await json("/api/pricing")
    expect(res.status).toBe(200)
    const body = await res.json()
    expect(body.tiers.map((t: { name: string }) => t.name)).toEqual(["free", "pro", "alpha", "whale"])
    const whale = body.tiers.find((t: { name: string }) => t.name === "whale")
    expect(whale).toMatchObject({ monthly_usd: 199, yearly_usd: 1990, api_requests_per_day: 25000 })
    expect(whale.features).toEqual(expect.arrayContaining(["api_keys", "playbook", "echo", "custom_wallets"]))
    const stored = await app.query<{ name: string }>("SELECT name FROM tiers WHERE NOT public")
    expect(stored.map((r) => r.name)).toEqual(["staff"])
  })

  it("POST /api/founding-waitlist stores an address once, from JSON or a form", async () => {
    const first = await json("/api/founding-waitlist", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "Whale@Example.com" }) })
    expect(first.status).toBe(200)
    const again = await json("/api/founding-waitlist", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "email=whale%40example.com" })
    expect(again.status).toBe(200)
    expect((await again.json()).ok).toBe(true)
    const rows = await app.query<{ email: string }>("SELECT email FROM waitlist WHERE email = 'whale@example.com'")
    expect(rows).toHaveLength(1)
  })

  it("POST /api/founding-waitlist without or with a bad email is 422 at body.email", async () => {
    for (const body of ["{}", JSON.stringify({ email: "not-an-email" }), ""]) {
      const res = await json("/api/founding-waitlist", { method: "POST", headers: { "content-type": "application/json" }, body })
      expect(res.status).toBe(422)
      const detail = (await res.json()).detail
      expect(detail[0].loc).toEqual(["body", "email"])
      expect(typeof detail[0].msg).toBe("string")
      expect(detail[0]).toHaveProperty("input")
      expect(detail[0]).toHaveProperty("type")
    }
  })

  it("GET /email/unsubscribe answers the same page for empty, unknown and real tokens, and unsubscribes the real one", async () => {
    await json("/api/founding-waitlist", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "unsub@example.com" }) })
    const [row] = await app.query<{ unsubscribe_token: string }>("SELECT unsubscribe_token FROM waitlist WHERE email = 'unsub@example.com'")
    const pages = await Promise.all(["", "?token=", "?token=unknown-token-that-is-long", `?token=${row!.unsubscribe_token}`].map(async (q) => {
      const res = await json(`/email/unsubscribe${q}`)
      expect(res.status).toBe(200)
      expect(res.headers.get("content-type")).toContain("text/html")
      return res.text()
    }))
    expect(new Set(pages).size).toBe(1)
    const [after] = await app.query<{ unsubscribed: boolean }>("SELECT unsubscribed_at IS NOT NULL AS unsubscribed FROM waitlist WHERE email = 'unsub@example.com'")
    expect(after!.unsubscribed).toBe(true)
  })
})
