/**
 * The HTTP server on uWebSockets.js. One completion path per request: copy what is needed from `req`
 * synchronously, attach `onAborted`, read the capped body, run guard → validation → handler as an Effect, and
 * write the reply inside `cork` exactly once. Shutdown stops listening, lets in-flight requests finish within the
 * grace period (answering them with `Connection: close`), then interrupts what is left.
 */
import { randomBytes } from "node:crypto"
import { Cause, Context, Deferred, Duration, Effect, Exit, type Fiber, FiberId, FiberRef, Layer, LogLevel, Option, Runtime } from "effect"
import uWS from "uWebSockets.js"
import { AppConfig } from "../Config"
import { Metrics } from "../ops/Metrics"
import { BodyTooLarge, parseBody, parseForm, readBody } from "./Body"
import type { AppError } from "./Errors"
import { errorReply, replyForCause } from "./Respond"
import { Reply, statusLine } from "./Reply"
import type { AnyRoute, RequestInfo } from "./Route"
import { compileRoutes } from "./Router"
import { validate } from "./Validate"
import { MethodNotAllowed, NotFound, PayloadTooLarge, UnsupportedMediaType, ValidationFailed } from "./Errors"
import { redactQuery } from "./Redact"

/** uWS silently falls back to a slow pure-Node implementation when its binary does not load: refuse to run on it. */
export const assertNativeUws = () => {
  if (typeof (uWS as unknown as { H3App?: unknown }).H3App !== "function") {
    throw new Error("uWebSockets.js native binary did not load (fallback implementation detected); refusing to start")
  }
}

export interface HttpServerShape {
  readonly port: number
  readonly app: uWS.TemplatedApp
  readonly inFlight: () => number
  readonly routes: ReadonlyArray<AnyRoute>
}

export class HttpServer extends Context.Tag("app/HttpServer")<HttpServer, HttpServerShape>() {}

export interface HttpServerOptions {
  readonly routes: ReadonlyArray<AnyRoute>
  /** Extra registrations on the uWS app before it listens (WebSocket endpoints). */
  readonly configure?: ReadonlyArray<(app: uWS.TemplatedApp) => void>
}

const BASE_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ["x-content-type-options", "nosniff"],
  ["referrer-policy", "strict-origin-when-cross-origin"]
]

const bootId = randomBytes(3).toString("hex")
let requestCounter = 0
const nextRequestId = () => `${bootId}-${(++requestCounter).toString(36)}`
const REQUEST_ID = /^[\w.-]{1,64}$/

const queryObject = (query: string) => parseForm(query)

const cookieReader = (header: string | undefined) => {
  let jar: Map<string, string> | undefined
  return (name: string) => {
    if (!header) return undefined
    if (!jar) {
      jar = new Map()
      for (const part of header.split(";")) {
        const i = part.indexOf("=")
        if (i > 0) {
          const value = part.slice(i + 1).trim()
          try {
            jar.set(part.slice(0, i).trim(), decodeURIComponent(value))
          } catch {
            jar.set(part.slice(0, i).trim(), value)
          }
        }
      }
    }
    return jar.get(name)
  }
}

export const makeHttpServer = (options: HttpServerOptions) =>
  Effect.gen(function* () {
    assertNativeUws()
    const config = yield* AppConfig
    const metrics = yield* Metrics
    const runtime = yield* Effect.runtime<never>()
    const runSyncExit = Runtime.runSyncExit(runtime)
    const runSync = Runtime.runSync(runtime)
    const lookup = compileRoutes(options.routes)
    const requests = metrics.counter("http_requests_total", "HTTP requests by method, route template and status")
    const latency = metrics.histogram("http_request_duration_seconds", "HTTP request latency by method and route template")
    const inflightGauge = metrics.gauge("http_requests_in_flight", "HTTP requests being handled")
    // The access log is one line per request: skip building it at all when the level filters it out.
    const accessLogOn = LogLevel.greaterThanEqual(LogLevel.Info, yield* FiberRef.get(FiberRef.currentMinimumLogLevel))

    let inFlight = 0
    let draining = false
    const idle = yield* Deferred.make<void>()
    const cancels = new Set<() => void>()

    const finish = (res: uWS.HttpResponse, info: RequestInfo, template: string, started: number, reply: Reply, head: boolean, close = false) => {
      res.cork(() => {
        res.writeStatus(statusLine(reply.status))
        for (const [k, v] of BASE_HEADERS) res.writeHeader(k, v)
        for (const [k, v] of reply.headers) res.writeHeader(k, v)
        res.writeHeader("x-request-id", info.id)
        if (head) res.endWithoutBody(typeof reply.body === "string" ? Buffer.byteLength(reply.body) : reply.body.byteLength, draining || close)
        else res.end(reply.body, draining || close)
      })
      const seconds = (performance.now() - started) / 1000
      requests.inc({ method: info.method, route: template, status: reply.status })
      latency.observe({ method: info.method, route: template }, seconds)
      if (accessLogOn) runSync(
        Effect.logInfo("http").pipe(
          Effect.annotateLogs({
            req: info.id,
            method: info.method,
            path: info.query ? `${info.path}?${redactQuery(info.query)}` : info.path,
            status: reply.status,
            ms: Math.round(seconds * 10_000) / 10,
            ip: info.ip
          })
        )
      )
    }

    const handle = (res: uWS.HttpResponse, req: uWS.HttpRequest) => {
      const started = performance.now()
      const headers = new Map<string, string>()
      req.forEach((k, v) => headers.set(k, v))
      const rawPath = req.getUrl()
      const path = rawPath.length > 1 && rawPath.endsWith("/") ? rawPath.slice(0, -1) : rawPath
      const method = req.getCaseSensitiveMethod().toUpperCase()
      const forwarded = headers.get("x-forwarded-for")
      const givenId = headers.get("x-request-id")
      const info: RequestInfo = {
        id: givenId && REQUEST_ID.test(givenId) ? givenId : nextRequestId(),
        method,
        path,
        query: req.getQuery() ?? "",
        headers,
        ip: forwarded ? forwarded.split(",")[0]!.trim() : Buffer.from(res.getRemoteAddressAsText()).toString(),
        cookie: cookieReader(headers.get("cookie"))
      }
      const head = method === "HEAD"
      const found = lookup(method, path)
      if (found.kind !== "found") {
        const error: AppError = found.kind === "none"
          ? new NotFound({ message: `No route for ${method} ${path}` })
          : new MethodNotAllowed({ message: `Method ${method} not allowed on ${path}`, allow: found.allow })
        return finish(res, info, found.kind === "none" ? "unmatched" : path, started, errorReply(error), head)
      }
      const route = found.route
      let done = false
      let cancel: (() => void) | undefined
      inFlight++
      inflightGauge.set({}, inFlight)
      const complete = (reply: Reply, close = false) => {
        if (done) return
        done = true
        if (cancel) cancels.delete(cancel)
        inFlight--
        inflightGauge.set({}, inFlight)
        if (!aborted) finish(res, info, route.path, started, reply, head, close)
        if (draining && inFlight === 0) runSync(Deferred.succeed(idle, undefined))
      }
      let aborted = false
      res.onAborted(() => {
        aborted = true
        cancel?.()
        complete(Reply.empty(499))
      })

      const run = (rawBody: Buffer) => {
        const program = Effect.gen(function* () {
          const auth = yield* route.guard.run(info)
          const params = route.params ? yield* validate("path", route.params, found.params) : {}
          const query = route.query ? yield* validate("query", route.query, queryObject(info.query)) : {}
          let body: unknown = {}
          if (route.bodyKind) {
            const parsed = parseBody(route.bodyKind, headers.get("content-type"), rawBody)
            if (!parsed.ok) {
              return yield* parsed.reason === "json_invalid"
                ? Effect.fail(new ValidationFailed({ issues: [{ type: "json_invalid", loc: ["body"], msg: parsed.message, input: null }] }))
                : Effect.fail(new UnsupportedMediaType({ message: parsed.message }))
            }
            body = route.body ? yield* validate("body", route.body, parsed.value) : parsed.value
          }
          return yield* route.handler({ params, query, body, auth, req: info, rawBody })
        })
        const onExit = (exit: Exit.Exit<unknown, AppError>) => {
          if (exit._tag === "Success") return complete(exit.value instanceof Reply ? exit.value : Reply.json(exit.value ?? null))
          const { reply, fault } = replyForCause(exit.cause, info.id)
          if (fault) runSync(Effect.logError("request failed", exit.cause).pipe(Effect.annotateLogs({ req: info.id, route: route.path })))
          complete(reply)
        }
        // Run synchronously as far as it goes: a handler that needs no I/O (cache hits, validation errors) replies
        // inside this uWS callback. Only an effect that suspends continues as a fiber, observed until it exits.
        const first = runSyncExit(program)
        const pending = Exit.isFailure(first) ? Option.filter(Cause.dieOption(first.cause), Runtime.isAsyncFiberException) : Option.none()
        if (Option.isNone(pending)) return onExit(first)
        const fiber = pending.value.fiber as Fiber.RuntimeFiber<unknown, AppError>
        fiber.addObserver(onExit)
        cancel = () => fiber.unsafeInterruptAsFork(FiberId.none)
        cancels.add(cancel)
      }

      if (!route.bodyKind) return run(Buffer.alloc(0))
      const declared = headers.get("content-length")
      readBody(res, config.maxBodyBytes, declared ? Number(declared) : undefined).then(run, (e) =>
        e instanceof BodyTooLarge
          // Answer and close: the rest of an oversized body is not read.
          ? complete(errorReply(new PayloadTooLarge({ message: `Request body exceeds ${config.maxBodyBytes} bytes` })), true)
          : complete(Reply.json({ detail: "Could not read body", code: "bad_request" }, 400), true)
      )
    }

    const app = uWS.App()
    for (const configure of options.configure ?? []) configure(app)
    app.any("/*", (res, req) => {
      try {
        handle(res, req)
      } catch (e) {
        // Never let an exception escape into the native callback.
        runSync(Effect.logError("http handler threw", e))
        res.cork(() => res.writeStatus(statusLine(500)).end(JSON.stringify({ detail: "Internal server error", code: "internal_error" }), true))
      }
    })

    const listenSocket = yield* Effect.async<uWS.us_listen_socket, Error>((resume) => {
      app.listen(config.host, config.port, (socket) => {
        resume(socket ? Effect.succeed(socket) : Effect.fail(new Error(`Could not listen on ${config.host}:${config.port}`)))
      })
    }).pipe(Effect.orDie)
    const port = uWS.us_socket_local_port(listenSocket as unknown as uWS.us_socket)
    yield* Effect.logInfo(`HTTP listening on ${config.host}:${port}`)

    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        uWS.us_listen_socket_close(listenSocket)
        draining = true
        yield* Effect.logInfo(`HTTP stopped listening; draining ${inFlight} request(s)`)
        if (inFlight > 0) {
          // Finalizers run uninterruptibly: the wait must be made interruptible for the timeout to end it.
          const drained = yield* Deferred.await(idle).pipe(Effect.interruptible, Effect.timeout(Duration.millis(config.shutdownGraceMs)), Effect.option)
          if (drained._tag === "None") {
            yield* Effect.logWarning(`HTTP grace period over; interrupting ${cancels.size} request(s)`)
            for (const c of [...cancels]) c()
          }
        }
      })
    )

    return { port, app, inFlight: () => inFlight, routes: options.routes } satisfies HttpServerShape
  })

export const HttpServerLayer = (options: HttpServerOptions) => Layer.scoped(HttpServer, makeHttpServer(options))

