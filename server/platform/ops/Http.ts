/** Health, readiness, metrics (with METRICS_TOKEN) and the OpenAPI document; contracts in schema/http/ops.ts. */
import { Effect } from "effect"
import { OpsEndpoints as E } from "../../../schema/http/ops"
import { AppConfig } from "../Config"
import { Guard } from "../http/Guards"
import { Reply } from "../http/Reply"
import { route, type AnyRoute } from "../http/Route"
import { Health } from "./Health"
import { Metrics } from "./Metrics"
import { METRICS_CONTENT_TYPE } from "./MetricsServer"
import { openApiDocument } from "./OpenApi"

export const VERSION = "0.1.0"

/** `catalog` yields the whole route table (this list included) once the app has assembled it. */
export const OpsRoutes = (catalog: () => ReadonlyArray<AnyRoute>) =>
  Effect.gen(function* () {
    const health = yield* Health
    const metrics = yield* Metrics
    const config = yield* AppConfig
    let openapi: string | undefined
    return [
      route(E.healthz, {
        guard: Guard.anon,
        handler: () => Effect.succeed(Reply.json({ status: "ok", uptime_seconds: health.uptimeSeconds(), version: VERSION }, 200, [["cache-control", "no-store"]]))
      }),
      route(E.readyz, {
        guard: Guard.anon,
        handler: () =>
          health.readiness().pipe(
            Effect.map((r) => Reply.json({ status: r.ready ? "ready" : "not_ready", ...r.checks }, r.ready ? 200 : 503, [["cache-control", "no-store"]]))
          )
      }),
      // On the public port only with METRICS_TOKEN (to that bearer token); otherwise on METRICS_PORT alone (MetricsServer).
      ...(config.metrics.token === undefined ? [] : [route(E.metrics, {
        guard: Guard.bearerSecret(config.metrics.token),
        handler: () => metrics.render.pipe(Effect.map((text) => Reply.text(text, METRICS_CONTENT_TYPE, 200, [["cache-control", "no-store"]])))
      })]),
      route(E.openapi, {
        guard: Guard.anon,
        handler: () =>
          Effect.sync(() => {
            openapi ??= JSON.stringify(openApiDocument(catalog(), { title: "Whale Intelligence API", version: VERSION, serverUrl: config.publicBaseUrl }))
            return Reply.rawJson(openapi, 200, [["cache-control", "public, max-age=300"]])
          })
      })
    ]
  })
