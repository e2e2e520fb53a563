/** The operators' endpoints (server/platform/ops): health, readiness, the OpenAPI document, metrics, actor restarts. */
import { z } from "zod"
import { endpoint } from "./endpoint"

export const RestartParams = z.object({ name: z.string().regex(/^[\w.:-]{1,64}$/, "not an actor name") })
export const RestartAccepted = z.object({ accepted: z.literal(true), actor: z.string(), processes: z.number().int() })
export type RestartAccepted = z.infer<typeof RestartAccepted>

export const Liveness = z.object({ status: z.literal("ok"), uptime_seconds: z.number(), version: z.string() })

/** The checks of readiness; a 503 answers the same shape with `not_ready`. */
export const Readiness = z.object({
  status: z.enum(["ready", "not_ready"]),
  database: z.object({ ok: z.boolean(), ms: z.number().int(), error: z.string().optional() }),
  bus: z.object({ ok: z.boolean(), kind: z.string() }),
  actors: z.object({
    ok: z.boolean(),
    notReady: z.array(z.object({ name: z.string(), state: z.string(), lastError: z.string().nullable() })),
    /** Healthy actors idling on purpose, with why (e.g. the messenger bot without a token). */
    idle: z.array(z.object({ name: z.string(), reason: z.string() }))
  })
})

const tags = ["ops"]

export const OpsEndpoints = {
  healthz: endpoint({ method: "GET", path: "/healthz", summary: "Liveness: the process answers", tags, response: Liveness }),
  readyz: endpoint({ method: "GET", path: "/readyz", summary: "Readiness: database, bus and actors (503 with the reason otherwise)", tags, response: Readiness }),
  metrics: endpoint({
    method: "GET", path: "/metrics", summary: "Prometheus text exposition (METRICS_TOKEN as bearer token; also on METRICS_PORT, loopback)", tags,
    produces: "text/plain"
  }),
  /** The OpenAPI 3.1 document itself (its shape is the OpenAPI specification's, not declared here). */
  openapi: endpoint({ method: "GET", path: "/openapi.json", summary: "This API's OpenAPI 3.1 document", tags }),
  restart: endpoint({
    method: "POST", path: "/ops/actors/{name}/restart", summary: "Restart an actor wherever it runs (administrators)", tags,
    params: RestartParams, response: RestartAccepted
  })
}
