/**
 * The HTTP server on uWebSockets.js. One completion path per request: copy what is needed from `req`
 * synchronously, try the route's hot path, attach `onAborted`, read the capped body, run the pipeline (Pipeline.ts), and
 * write the reply inside `cork` exactly once. Shutdown stops listening, lets in-flight requests finish within the
 * grace period (answering them with `Connection: close`), then interrupts what is left.
 */
import { Deferred, Duration, Effect, Exit, FiberId, Runtime, Stream } from "effect"
import uWS from "uWebSockets.js"
import { AppConfig } from "../Config"
import { Metrics } from "../ops/Metrics"
import { BodyTimeout, BodyTooLarge, readBody } from "./Body"
import type { ErrorMap } from "./Errors"
import { makePipeline } from "./Pipeline"
import { errorReply } from "./Respond"
import { CONTENT_SECURITY_POLICY, headerBlockBytes, needsDefaultCsp, Reply, staticHeaders, statusLine, StreamReply } from "./Reply"
import type { AnyRoute, RequestInfo } from "./Route"
import { compileRoutes } from "./Router"
import { MethodNotAllowed, NotFound, PayloadTooLarge } from "./Errors"
import { clientAddressOf } from "./ClientAddress"
import { IncomingRequest, nextRequestId, REQUEST_ID } from "./Request"
import { makeRequestLog } from "./RequestLog"
import { makeResponseCheck } from "./ResponseCheck"

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

export interface HttpServerOptions {
  readonly routes: ReadonlyArray<AnyRoute>
  /** Extra registrations on the uWS app before it listens (WebSocket endpoints). */
  readonly configure?: ReadonlyArray<(app: uWS.TemplatedApp) => void>
  /** How the modules' tagged errors answer (merged `Module.errors`). */
  readonly errors?: ErrorMap
  /**
   * The page a browser gets (a GET or HEAD accepting text/html) for a path no route knows: the console shell with
   * status 404, so the console shows its not-found page instead of a JSON error. API clients still get JSON.
   */
  readonly browserNotFound?: () => Reply
}

const BASE_HEADERS = headerBlockBytes(staticHeaders([
  ["x-content-type-options", "nosniff"],
  ["referrer-policy", "strict-origin-when-cross-origin"]
]))!
// Constant names and lines as bytes: uWS converts a string argument to UTF-8 (with a malloc) on every call.
const REQUEST_ID_HEADER = Buffer.from("x-request-id")
const CSP = [Buffer.from("content-security-policy"), Buffer.from(CONTENT_SECURITY_POLICY)] as const
const FORWARDED_FOR = Buffer.from("x-forwarded-for")
const OK = Buffer.from(statusLine(200))
const NOOP = () => {}

export const makeHttpServer = (options: HttpServerOptions) =>
  Effect.gen(function* () {
    assertNativeUws()
    const config = yield* AppConfig
    const runtime = yield* Effect.runtime<never>()
    const runSync = Runtime.runSync(runtime)
    const runFork = Runtime.runFork(runtime)
    const log = yield* makeRequestLog
    const inflightCell = (yield* Metrics).gauge("http_requests_in_flight", "HTTP requests being handled").cell()
    const accessLogOn = log.accessLogOn
    const lookup = compileRoutes(options.routes)
    const clientAddress = clientAddressOf(config.trustProxy)
    const runRoute = yield* makePipeline(options.errors ?? {})
    // Every answer of a route passes here before it is written (hot-path answers included); undefined when off.
    const checkResponse = yield* makeResponseCheck
    let inFlight = 0
    let draining = false
    const idle = yield* Deferred.make<void>()
    const cancels = new Set<() => void>()

    /** Status and headers (inside the caller's `cork`). */
    const writeHead = (res: uWS.HttpResponse, info: RequestInfo, reply: Reply) => {
      res.writeStatus(reply.status === 200 ? OK : statusLine(reply.status))
      res.writeHeader(BASE_HEADERS[0], BASE_HEADERS[1])
      const block = headerBlockBytes(reply.headers)
      if (block !== undefined) res.writeHeader(block[0], block[1])
      else for (const [k, v] of reply.headers) res.writeHeader(k, v)
      if (reply.block !== undefined) res.writeHeader(reply.block[0], reply.block[1])
      if (needsDefaultCsp(reply.headers)) res.writeHeader(CSP[0], CSP[1])
      res.writeHeader(REQUEST_ID_HEADER, info.id)
    }

    const finish = (res: uWS.HttpResponse, info: RequestInfo, template: string, started: number, reply: Reply, head: boolean, close = false) => {
      // uWS does not count `endWithoutBody` as a response: a HEAD answered inside its callback would abort the process
      // ("returning from a request handler without responding") unless an abort handler is attached.
      if (head) res.onAborted(NOOP)
      res.cork(() => {
        writeHead(res, info, reply)
        if (head) res.endWithoutBody(typeof reply.body === "string" ? Buffer.byteLength(reply.body) : reply.body.byteLength, draining || close)
        else res.end(reply.body, draining || close)
      })
      log.record(info, template, reply.status, started)
    }

    /**
     * Writes a streamed reply (`Reply.stream`): the head at once, then each chunk when uWS's buffer has drained
     * (`write` false → wait for `onWritable`), then the terminating chunk. Returns how to interrupt it; `settled` runs
     * once when it is over (ended, failed or interrupted). A failure or an interruption after the head closes the
     * connection. The caller's `onAborted` must call the returned interrupt and set `isAborted`.
     */
    const startStream = (
      res: uWS.HttpResponse, info: RequestInfo, template: string, started: number, reply: StreamReply, head: boolean,
      isAborted: () => boolean, settled: () => void
    ): (() => void) => {
      res.cork(() => writeHead(res, info, reply))
      if (head) {
        res.cork(() => res.endWithoutBody(undefined, draining))
        log.record(info, template, reply.status, started)
        settled()
        return NOOP
      }
      const write = (chunk: string | Uint8Array) =>
        Effect.async<void>((resume) => {
          if (isAborted()) return resume(Effect.interrupt)
          let ok = true
          res.cork(() => { ok = res.write(chunk) })
          if (ok) return resume(Effect.void)
          res.onWritable(() => {
            resume(isAborted() ? Effect.interrupt : Effect.void)
            return true
          })
        })
      const fiber = runFork(Stream.runForEach(reply.chunks, write))
      fiber.addObserver((exit) => {
        if (!isAborted()) {
          // (No closeConnection here: this uWS build would write its `Connection: close` header after the chunks.)
          if (Exit.isSuccess(exit)) res.cork(() => res.end())
          else {
            if (!Exit.isInterrupted(exit)) runSync(Effect.logError("streamed reply failed after its head", exit.cause).pipe(Effect.annotateLogs({ req: info.id, route: template })))
            res.close()
          }
        }
        log.record(info, template, Exit.isSuccess(exit) ? reply.status : 499, started)
        settled()
      })
      return () => fiber.unsafeInterruptAsFork(FiberId.none)
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
        clientAddress.usesHeader ? req.getHeader(FORWARDED_FOR) : "", clientAddress.of
      )
      // The access log reads the peer address after the reply is written: read it while `res` is valid.
      if (accessLogOn) void info.ip
      const head = method === "HEAD"
      if (found.kind === "none" && options.browserNotFound !== undefined && (method === "GET" || head) && req.getHeader("accept").includes("text/html")) {
        return finish(res, info, "unmatched", started, options.browserNotFound(), head)
      }
      if (found.kind !== "found") {
        const error = found.kind === "none"
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
        if (immediate !== undefined) {
          return finish(res, info, route.path, started, checkResponse === undefined ? immediate : checkResponse(route, info, immediate), head)
        }
      }
      // From here the request may outlive this callback.
      info.detach(!taken)

      let done = false
      let cancel: (() => void) | undefined
      inFlight++
      inflightCell.value = inFlight
      const settle = () => {
        inFlight--
        inflightCell.value = inFlight
        if (draining && inFlight === 0) runSync(Deferred.succeed(idle, undefined))
      }
      const complete = (answer: Reply, close = false) => {
        if (done) return
        done = true
        if (cancel) cancels.delete(cancel)
        const reply = checkResponse === undefined || aborted ? answer : checkResponse(route, info, answer)
        if (reply instanceof StreamReply && !aborted) {
          // Still in flight until the last chunk is out: shutdown waits for it, then interrupts it like a handler.
          // (It may be over before `startStream` returns: a short stream with nothing to wait for.)
          let over = false
          cancel = undefined
          const stop = startStream(res, info, route.path, started, reply, head, () => aborted, () => {
            over = true
            if (cancel) cancels.delete(cancel)
            settle()
          })
          if (!over) {
            cancel = stop
            cancels.add(stop)
          }
          return
        }
        if (!aborted) finish(res, info, route.path, started, reply, head, close)
        settle()
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
        const cancelFiber = runRoute(route, info, found.params, rawBody, complete)
        if (done) return
        cancel = cancelFiber
        cancels.add(cancel)
      }

      if (!route.bodyKind) return run(Buffer.alloc(0))
      const declared = info.headers.get("content-length")
      const maxBytes = route.maxBodyBytes ?? config.maxBodyBytes
      readBody(res, maxBytes, declared ? Number(declared) : undefined, config.bodyTimeoutMs).then(run, (e) =>
        e instanceof BodyTooLarge
          // Answer and close: the rest of an oversized body is not read.
          ? complete(errorReply(new PayloadTooLarge({ message: `Request body exceeds ${maxBytes} bytes` })), true)
          : e instanceof BodyTimeout
            ? complete(Reply.json({ detail: `Request body not received within ${config.bodyTimeoutMs} ms`, code: "request_timeout" }, 408), true)
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

