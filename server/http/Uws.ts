/**
 * The HTTP server on uWebSockets.js. One completion path per request: copy what is needed from `req`
 * synchronously, attach `onAborted`, read the capped body, run guard → validation → handler as an Effect, and
 * write the reply inside `cork` exactly once. Shutdown stops listening, lets in-flight requests finish within the
 * grace period (answering them with `Connection: close`), then interrupts what is left.
 */
import { randomBytes } from "node:crypto"
import { Context, Deferred, Duration, Effect, type Exit, FiberId, FiberRef, Layer, LogLevel, Runtime } from "effect"
import uWS from "uWebSockets.js"
import { AppConfig } from "../Config"
import { type Cell, Metrics, type Series } from "../ops/Metrics"
import { BodyTooLarge, parseBody, parseForm, readBody } from "./Body"
import type { AppError } from "./Errors"
import { errorReply, replyForCause } from "./Respond"
import { headerBlockBytes, Reply, staticHeaders, statusLine } from "./Reply"
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

const BASE_HEADERS = headerBlockBytes(staticHeaders([
  ["x-content-type-options", "nosniff"],
  ["referrer-policy", "strict-origin-when-cross-origin"]
]))!
// Constant names and lines as bytes: uWS converts a string argument to UTF-8 (with a malloc) on every call.
const REQUEST_ID_HEADER = Buffer.from("x-request-id")
const FORWARDED_FOR = Buffer.from("x-forwarded-for")
const encodedNames = new Map<string, Buffer>()
const encodedName = (name: string) => {
  let bytes = encodedNames.get(name)
  if (bytes === undefined) {
    bytes = Buffer.from(name)
    if (encodedNames.size < 256) encodedNames.set(name, bytes)
  }
  return bytes
}

const OK = Buffer.from(statusLine(200))
const NOOP = () => {}
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"])

const bootId = randomBytes(3).toString("hex")
let requestCounter = 0
const nextRequestId = () => `${bootId}-${(++requestCounter).toString(36)}`
const REQUEST_ID = /^[\w.-]{1,64}$/

const queryObject = (query: string) => parseForm(query)

/**
 * The request as guards and handlers see it. `req` is valid only inside the uWS callback: headers are copied from it
 * on first use, and `detach` copies what is left before the request goes on asynchronously. A hot path that answers
 * later (`FastPath`) reads what it needs synchronously; the request is then detached without copying, and reading its
 * headers afterwards is a defect that says so.
 */
class IncomingRequest implements RequestInfo {
  #req: uWS.HttpRequest | undefined
  readonly #res: uWS.HttpResponse
  readonly #forwarded: string
  #headers: Map<string, string> | undefined
  #address: ArrayBuffer | undefined
  #ip: string | undefined
  #cookies: Map<string, string> | undefined

  constructor(
    res: uWS.HttpResponse,
    req: uWS.HttpRequest,
    readonly id: string,
    readonly method: string,
    readonly path: string,
    readonly query: string,
    forwarded: string
  ) {
    this.#res = res
    this.#req = req
    this.#forwarded = forwarded
  }

  get headers(): ReadonlyMap<string, string> {
    if (this.#headers === undefined) {
      const req = this.#req
      if (req === undefined) throw new Error("request headers read after the uWS callback returned (see FastPath)")
      const headers = new Map<string, string>()
      req.forEach((k, v) => headers.set(k, v))
      this.#headers = headers
    }
    return this.#headers
  }

  header(name: string): string | undefined {
    if (this.#headers !== undefined || this.#req === undefined) return this.headers.get(name)
    const value = this.#req.getHeader(encodedName(name))
    // uWS answers "" for an absent header; an empty one present is rare enough to look up properly.
    return value !== "" ? value : this.headers.get(name)
  }

  /** The peer address (or the first `X-Forwarded-For` hop); read from uWS on first use, while `res` is valid. */
  get ip(): string {
    if (this.#ip === undefined) {
      if (this.#forwarded !== "") this.#ip = this.#forwarded.split(",")[0]!.trim()
      else this.#ip = Buffer.from(this.#address ?? this.#res.getRemoteAddressAsText()).toString("latin1")
    }
    return this.#ip
  }

  cookie(name: string): string | undefined {
    if (this.#cookies === undefined) {
      this.#cookies = new Map()
      const header = this.headers.get("cookie")
      if (header) {
        for (const part of header.split(";")) {
          const i = part.indexOf("=")
          if (i > 0) {
            const value = part.slice(i + 1).trim()
            try {
              this.#cookies.set(part.slice(0, i).trim(), decodeURIComponent(value))
            } catch {
              this.#cookies.set(part.slice(0, i).trim(), value)
            }
          }
        }
      }
    }
    return this.#cookies.get(name)
  }

  /** Before going on after the uWS callback: copies the headers (and the peer address) unless `copy` is false. */
  detach(copy: boolean) {
    if (copy) {
      void this.headers
      if (this.#forwarded === "") this.#address ??= this.#res.getRemoteAddressAsText()
    }
    this.#req = undefined
  }
}

export const makeHttpServer = (options: HttpServerOptions) =>
  Effect.gen(function* () {
    assertNativeUws()
    const config = yield* AppConfig
    const metrics = yield* Metrics
    const runtime = yield* Effect.runtime<never>()
    const runFork = Runtime.runFork(runtime)
    const runSync = Runtime.runSync(runtime)
    const lookup = compileRoutes(options.routes)
    const requests = metrics.counter("http_requests_total", "HTTP requests by method, route template and status")
    const latency = metrics.histogram("http_request_duration_seconds", "HTTP request latency by method and route template")
    const inflightCell = metrics.gauge("http_requests_in_flight", "HTTP requests being handled").cell()
    // The access log is one line per request: skip building it at all when the level filters it out.
    const accessLogOn = LogLevel.greaterThanEqual(LogLevel.Info, yield* FiberRef.get(FiberRef.currentMinimumLogLevel))

    let inFlight = 0
    let draining = false
    const idle = yield* Deferred.make<void>()
    const cancels = new Set<() => void>()

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

    const finish = (res: uWS.HttpResponse, info: RequestInfo, template: string, started: number, reply: Reply, head: boolean, close = false) => {
      // uWS does not count `endWithoutBody` as a response: a HEAD answered inside its callback would abort the process
      // ("returning from a request handler without responding") unless an abort handler is attached.
      if (head) res.onAborted(NOOP)
      res.cork(() => {
        res.writeStatus(reply.status === 200 ? OK : statusLine(reply.status))
        res.writeHeader(BASE_HEADERS[0], BASE_HEADERS[1])
        const block = headerBlockBytes(reply.headers)
        if (block !== undefined) res.writeHeader(block[0], block[1])
        else for (const [k, v] of reply.headers) res.writeHeader(k, v)
        if (reply.block !== undefined) res.writeHeader(reply.block[0], reply.block[1])
        res.writeHeader(REQUEST_ID_HEADER, info.id)
        if (head) res.endWithoutBody(typeof reply.body === "string" ? Buffer.byteLength(reply.body) : reply.body.byteLength, draining || close)
        else res.end(reply.body, draining || close)
      })
      const seconds = (performance.now() - started) / 1000
      const sample = samplesOf(info.method, template, reply.status)
      sample.count.value++
      latency.record(sample.latency, seconds)
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
      const rawPath = req.getUrl()
      const path = rawPath.length > 1 && rawPath.endsWith("/") ? rawPath.slice(0, -1) : rawPath
      const method = req.getCaseSensitiveMethod().toUpperCase()
      const givenId = req.getHeader(REQUEST_ID_HEADER)
      const found = lookup(method, path)
      const info = new IncomingRequest(
        res, req, givenId !== "" && REQUEST_ID.test(givenId) ? givenId : nextRequestId(), method, path, req.getQuery() ?? "",
        req.getHeader(FORWARDED_FOR)
      )
      // The access log reads the peer address after the reply is written: read it while `res` is valid.
      if (accessLogOn) void info.ip
      const head = method === "HEAD"
      if (found.kind !== "found") {
        const error: AppError = found.kind === "none"
          ? new NotFound({ message: `No route for ${method} ${path}` })
          : new MethodNotAllowed({ message: `Method ${method} not allowed on ${path}`, allow: found.allow })
        return finish(res, info, found.kind === "none" ? "unmatched" : "method_not_allowed", started, errorReply(error), head)
      }
      const route = found.route
      // The hot path first. A reply it gives at once is written at once, without in-flight bookkeeping; one it
      // promises for later is tracked like any pending request (`later` is set before anything can resolve it).
      let taken = false
      let immediate: Reply | undefined
      let later: ((reply: Reply) => void) | undefined
      if (route.fast !== undefined && route.bodyKind === undefined) {
        taken = route.fast(info, (reply) => (later !== undefined ? later(reply) : (immediate ??= reply)))
        if (immediate !== undefined) return finish(res, info, route.path, started, immediate, head)
      }
      // From here the request may outlive this callback.
      info.detach(!taken)

      let done = false
      let cancel: (() => void) | undefined
      inFlight++
      inflightCell.value = inFlight
      const complete = (reply: Reply, close = false) => {
        if (done) return
        done = true
        if (cancel) cancels.delete(cancel)
        inFlight--
        inflightCell.value = inFlight
        if (!aborted) finish(res, info, route.path, started, reply, head, close)
        if (draining && inFlight === 0) runSync(Deferred.succeed(idle, undefined))
      }
      let aborted = false
      res.onAborted(() => {
        aborted = true
        cancel?.()
        complete(Reply.empty(499))
      })

      if (taken) {
        later = complete
        return
      }

      const run = (rawBody: Buffer) => {
        const program = Effect.gen(function* () {
          const auth = yield* route.guard.run(info)
          const params = route.params ? yield* validate("path", route.params, found.params) : {}
          const query = route.query ? yield* validate("query", route.query, queryObject(info.query)) : {}
          let body: unknown = {}
          if (route.bodyKind) {
            const parsed = parseBody(route.bodyKind, info.headers.get("content-type"), rawBody)
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
        // The fiber starts at once and runs as far as it goes: a handler that needs no I/O (cache hits, validation
        // errors) has replied inside this uWS callback when `runFork` returns. (`runSyncExit` would do the same but
        // builds an AsyncFiberException with a stack trace for every request that suspends.)
        const fiber = runFork(program)
        fiber.addObserver(onExit)
        if (done) return
        cancel = () => fiber.unsafeInterruptAsFork(FiberId.none)
        cancels.add(cancel)
      }

      if (!route.bodyKind) return run(Buffer.alloc(0))
      const declared = info.headers.get("content-length")
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

