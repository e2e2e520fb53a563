/**
 * Tracing: every `Effect.fn` and `Effect.withSpan` span of the process exported over OTLP/HTTP (JSON) when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set — `<endpoint>/v1/traces`, the standard path below the base URL — and nothing
 * at all otherwise (Effect's own no-op tracer: no cost). Uses `@effect/opentelemetry`'s native exporter (no
 * OpenTelemetry SDK in the process). OTEL_SERVICE_NAME names the service (default `whale-intelligence`, with the
 * process's roles as an attribute); OTEL_EXPORT_INTERVAL_MS how often spans are sent (default 5000).
 */
import { OtlpSerialization, OtlpTracer } from "@effect/opentelemetry"
import { FetchHttpClient } from "@effect/platform"
import { Config, Duration, Effect, Layer, Option } from "effect"
import { AppConfig } from "../Config"

export const TracingLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const endpoint = yield* Config.option(Config.nonEmptyString("OTEL_EXPORTER_OTLP_ENDPOINT"))
    if (Option.isNone(endpoint)) return Layer.empty
    const config = yield* AppConfig
    const serviceName = yield* Config.string("OTEL_SERVICE_NAME").pipe(Config.withDefault("whale-intelligence"))
    const intervalMs = yield* Config.integer("OTEL_EXPORT_INTERVAL_MS").pipe(Config.withDefault(5_000))
    const url = `${endpoint.value.replace(/\/+$/, "")}/v1/traces`
    yield* Effect.logInfo(`tracing: spans exported to ${url} every ${intervalMs} ms`)
    return OtlpTracer.layer({
      url,
      resource: { serviceName, serviceVersion: "0.1.0", attributes: { "whale.roles": [...config.roles].join(",") } },
      exportInterval: Duration.millis(intervalMs)
    }).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer))
  })
)
