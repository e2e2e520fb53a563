/**
 * GET /metrics on its own listener (METRICS_HOST:METRICS_PORT, 127.0.0.1:9464 by default), apart from the public
 * port: the exposition names routes, actors, queues and pool figures, which are for operators only. Every process
 * serves its own (an actors-only process too); a scraper on the same host or network namespace reads it. Any other
 * path or method is 404. The public port serves /metrics only when METRICS_TOKEN is set, to that bearer token
 * (ops/Http.ts). A port already taken refuses the start, naming the setting: two processes on one host need two ports.
 */
import { Effect, Runtime } from "effect"
import uWS from "uWebSockets.js"
import { AppConfig } from "../Config"
import { statusLine } from "../http/Reply"
import { Metrics } from "./Metrics"

export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

/** Starts the listener (scoped); the bound port, or null when METRICS_PORT=off. */
export const serveMetrics = Effect.gen(function* () {
  const config = (yield* AppConfig).metrics
  if (config.port === null) return null
  const metrics = yield* Metrics
  const runCallback = Runtime.runCallback(yield* Effect.runtime<never>())
  const app = uWS.App()
  app.get("/metrics", (res) => {
    let aborted = false
    res.onAborted(() => (aborted = true))
    runCallback(metrics.render, {
      onExit: (exit) => {
        if (aborted) return
        res.cork(() => {
          if (exit._tag === "Success") res.writeStatus(statusLine(200)).writeHeader("content-type", METRICS_CONTENT_TYPE).writeHeader("cache-control", "no-store").end(exit.value)
          else res.writeStatus(statusLine(500)).end("metrics could not be rendered\n")
        })
      }
    })
  })
  app.any("/*", (res) => {
    res.cork(() => res.writeStatus(statusLine(404)).writeHeader("content-type", "text/plain").end("only GET /metrics here\n"))
  })
  const socket = yield* Effect.async<uWS.us_listen_socket | false>((resume) => {
    app.listen(config.host, config.port!, (s) => resume(Effect.succeed(s)))
  })
  if (!socket) {
    return yield* Effect.die(new Error(
      `Could not listen on METRICS_HOST:METRICS_PORT ${config.host}:${config.port} (taken by another process of this service?); ` +
      `give each process on a host its own METRICS_PORT, 0 for any free port, or off`
    ))
  }
  const port = uWS.us_socket_local_port(socket as unknown as uWS.us_socket)
  yield* Effect.logInfo(`metrics listening on ${config.host}:${port}`)
  yield* Effect.addFinalizer(() => Effect.sync(() => uWS.us_listen_socket_close(socket)))
  return port
})
