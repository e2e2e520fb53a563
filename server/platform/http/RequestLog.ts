/**
 * What every answered request leaves behind: its Prometheus samples (count by method, route template and status;
 * latency by method and route template) and one access-log line when the level lets it through.
 */
import { Effect, FiberRef, LogLevel, Runtime } from "effect"
import { type Cell, Metrics, type Series } from "../ops/Metrics"
import { redactQuery } from "./Redact"
import type { RequestInfo } from "./Route"

const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"])

export interface RequestLog {
  /** Whether access-log lines are written (the peer address must then be read while uWS's `res` is valid). */
  readonly accessLogOn: boolean
  /** Records one answered request. */
  readonly record: (info: RequestInfo, template: string, status: number, started: number) => void
}

export const makeRequestLog = Effect.gen(function* () {
  const metrics = yield* Metrics
  const runSync = Runtime.runSync(yield* Effect.runtime<never>())
  const requests = metrics.counter("http_requests_total", "HTTP requests by method, route template and status")
  const latency = metrics.histogram("http_request_duration_seconds", "HTTP request latency by method and route template")
  // The access log is one line per request: skip building it at all when the level filters it out.
  const accessLogOn = LogLevel.greaterThanEqual(LogLevel.Info, yield* FiberRef.get(FiberRef.currentMinimumLogLevel))

  // The samples of each (method, route, status), so counting a request is two additions, not a label lookup.
  type Sample = { readonly count: Cell; readonly latency: Series }
  const samples = new Map<string, Map<string, Map<number, Sample>>>()
  const samplesOf = (anyMethod: string, route: string, status: number): Sample => {
    // Label values stay few: route templates, known methods.
    const method = KNOWN_METHODS.has(anyMethod) ? anyMethod : "OTHER"
    let byMethod = samples.get(route)
    if (byMethod === undefined) samples.set(route, (byMethod = new Map()))
    let byStatus = byMethod.get(method)
    if (byStatus === undefined) byMethod.set(method, (byStatus = new Map()))
    let s = byStatus.get(status)
    if (s === undefined) byStatus.set(status, (s = { count: requests.cell({ method, route, status }), latency: latency.seriesOf({ method, route }) }))
    return s
  }

  const record = (info: RequestInfo, template: string, status: number, started: number) => {
    const seconds = (performance.now() - started) / 1000
    const sample = samplesOf(info.method, template, status)
    sample.count.value++
    latency.record(sample.latency, seconds)
    if (accessLogOn) runSync(
      Effect.logInfo("http").pipe(
        Effect.annotateLogs({
          req: info.id,
          method: info.method,
          path: info.query ? `${info.path}?${redactQuery(info.query)}` : info.path,
          status,
          ms: Math.round(seconds * 10_000) / 10,
          ip: info.ip
        })
      )
    )
  }

  return { accessLogOn, record } satisfies RequestLog
})
