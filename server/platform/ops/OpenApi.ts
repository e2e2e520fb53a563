/** OpenAPI 3.1 generated from the route table and its zod schemas: every route appears without extra work. */
import { z } from "zod"
import { integerBounds } from "../../../schema/common"
import type { AnyRoute } from "../http/Route"

/**
 * An integer given as a number or its decimal text (`intParam`) is documented as the integer it is, with its bounds
 * and its default (zod leaves the default of a transformed value out of an input schema).
 */
const override = (ctx: { zodSchema: z.core.$ZodType; jsonSchema: Record<string, unknown> }) => {
  const def = ctx.zodSchema._zod.def as { type: string; defaultValue?: unknown }
  if (def.type === "default" && ctx.jsonSchema.default === undefined) ctx.jsonSchema.default = def.defaultValue
  const bounds = integerBounds.get(ctx.zodSchema as z.ZodType)
  if (bounds === undefined) return
  for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key]
  Object.assign(ctx.jsonSchema, { type: "integer", ...bounds })
}

const schemaOf = (s: z.ZodType, io: "input" | "output") => {
  try {
    const json = z.toJSONSchema(s, { io, unrepresentable: "any", target: "draft-2020-12", override }) as Record<string, unknown>
    delete json.$schema
    return json
  } catch {
    return {}
  }
}

const ERROR_BODY = { type: "object", properties: { detail: { type: "string" }, code: { type: "string" } }, required: ["detail", "code"] }
const VALIDATION_BODY = {
  type: "object",
  properties: {
    detail: {
      type: "array",
      items: {
        type: "object",
        properties: { type: { type: "string" }, loc: { type: "array", items: { type: ["string", "integer"] } }, msg: { type: "string" }, input: {} },
        required: ["type", "loc", "msg", "input"]
      }
    }
  },
  required: ["detail"]
}

const parameters = (where: "path" | "query", s: z.ZodType | undefined) => {
  if (!s) return []
  const json = schemaOf(s, "input") as { properties?: Record<string, unknown>; required?: Array<string> }
  return Object.entries(json.properties ?? {}).map(([name, schema]) => ({
    name,
    in: where,
    required: where === "path" || (json.required ?? []).includes(name),
    schema
  }))
}

/** The wallet of the examples with an `{address}` in their path (a seed wallet, data/wallets.json). */
const EXAMPLE_ADDRESS = "0xd8da6bf26964af9d7eed9e03e53415d37aa96045"

/** The query of each keyed endpoint's example request (the others need none). */
const EXAMPLE_QUERIES: Readonly<Record<string, string>> = {
  "/api/v1/top-tokens": "?tf=24H&limit=10",
  "/api/v1/flows": "?tf=24H&token=WETH",
  "/api/v1/transactions": "?limit=20&category=dex_buy",
  "/api/v1/wallets": "?q=fund&limit=10",
  "/api/v1/wallets/{address}/flows": "?days=30",
  // An example starting with `/` replaces the path (its parameters filled in).
  "/api/v1/tokens/{token}/history": "/api/v1/tokens/WETH/history?interval=hour&from=2026-11-01T00:00:00Z&to=2026-11-02T00:00:00Z",
  "/api/v1/export/transactions": "?from=2026-11-01&to=2026-11-08&format=ndjson",
  "/api/v1/export/token-flows": "?from=2026-10-01&to=2026-11-01&format=csv"
}

export const openApiDocument = (routes: ReadonlyArray<AnyRoute>, info: { title: string; version: string; serverUrl: string }) => {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const r of routes) {
    const op: Record<string, unknown> = {
      summary: r.summary,
      tags: r.tags,
      operationId: `${r.method.toLowerCase()}${r.path.replace(/[{}]/g, "").replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ""))}`,
      parameters: [...parameters("path", r.params), ...parameters("query", r.query)],
      responses: {
        // A page that answers API callers JSON (Accept) declares both its content type and its response schema.
        "200": {
          description: "OK",
          content: {
            ...(r.response || !r.produces ? { "application/json": { schema: r.response ? schemaOf(r.response, "output") : {} } } : {}),
            ...(r.produces ? { [r.produces]: {} } : {})
          }
        },
        ...(r.params || r.query || r.body ? { "422": { description: "Validation error", content: { "application/json": { schema: VALIDATION_BODY } } } } : {}),
        default: { description: "Error", content: { "application/json": { schema: ERROR_BODY } } }
      },
      "x-guard": r.guard.name
    }
    if (r.guard.security) op.security = r.guard.security
    // An example request for every keyed endpoint, ready to paste (rendered by the API docs page, /docs).
    if (r.tags.includes("data-api") && r.method === "GET" && r.path.startsWith("/api/v1/")) {
      const example = EXAMPLE_QUERIES[r.path] ?? ""
      const path = r.path.replace("{address}", EXAMPLE_ADDRESS)
      op["x-codeSamples"] = [{ lang: "curl", label: "curl", source: `curl -H "X-API-Key: $WHALE_API_KEY" "${info.serverUrl}${example.startsWith("/") ? example : path + example}"` }]
    }
    if (r.body) {
      const schema = schemaOf(r.body, "input")
      op.requestBody = {
        required: true,
        content: r.bodyKind === "form"
          ? { "application/x-www-form-urlencoded": { schema } }
          : r.bodyKind === "json"
            ? { "application/json": { schema } }
            : { "application/json": { schema }, "application/x-www-form-urlencoded": { schema } }
      }
    }
    ;(paths[r.path.replace(/\/\*$/, "/{rest}")] ??= {})[r.method.toLowerCase()] = op
  }
  return {
    openapi: "3.1.0",
    info: { title: info.title, version: info.version, license: { name: "Data: CC-BY-4.0", url: "https://creativecommons.org/licenses/by/4.0/" } },
    servers: [{ url: info.serverUrl }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
        cookie: { type: "apiKey", in: "cookie", name: "whale_token" },
        apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
        internalSecret: { type: "apiKey", in: "header", name: "X-Internal-Secret" },
        metricsToken: { type: "http", scheme: "bearer", description: "METRICS_TOKEN, the operators' scrape token" }
      }
    }
  }
}
