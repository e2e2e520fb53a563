/**
 * The response check: in tests and development every 2xx JSON answer of a route that declares a response schema is
 * parsed with that schema, as the text that goes on the wire (so what a client would parse is what is checked:
 * handler values after JSON serialisation, cached bodies, hot-path answers and streamed bodies alike).
 *
 *   RESPONSE_CHECK=strict  a mismatch answers 500 {"code":"response_contract","detail":"GET /api/x: items.0.usd: …"}
 *                          and logs an error (the test harness: the test fails naming the route and the field)
 *   RESPONSE_CHECK=warn    a mismatch is logged as a warning; the answer goes out as it was (development)
 *   RESPONSE_CHECK=off     nothing is looked at twice (production)
 *
 * A streamed body is checked once its last chunk went by: its head is out by then, so a strict mismatch closes the
 * connection (the client sees a truncated body, as for any failure after the head) and logs the error.
 */
import { Effect, Runtime, Stream } from "effect"
import type { z } from "zod"
import { AppConfig } from "../Config"
import { Reply, StreamReply } from "./Reply"
import type { AnyRoute, RequestInfo } from "./Route"

export type ResponseCheckMode = "off" | "warn" | "strict"

/** Returns the reply to send for a route's reply: the same one, unless `strict` found a mismatch. */
export type ResponseCheck = (route: AnyRoute, info: RequestInfo, reply: Reply) => Reply

const isJson = (reply: Reply) => {
  for (const [name, value] of reply.headers) {
    if (name.length === 12 && name.toLowerCase() === "content-type") return /^application\/json\b/i.test(value)
  }
  return false
}

const textOf = (body: string | Uint8Array) => (typeof body === "string" ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("utf8"))

/** Where a body departs from its schema (`items.0.usd: Invalid input: …`; more issues counted), or null when it fits. */
export const mismatchOf = (schema: z.ZodType, text: string): string | null => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (e) {
    return `(body): not JSON: ${(e as Error).message}`
  }
  const result = schema.safeParse(value)
  if (result.success) return null
  const [first, ...rest] = result.error.issues
  const at = (issue: z.core.$ZodIssue) => `${issue.path.length === 0 ? "(body)" : issue.path.map(String).join(".")}: ${issue.message}`
  return `${at(first!)}${rest.length > 0 ? ` (and ${rest.length} more: ${rest.slice(0, 4).map(at).join("; ")})` : ""}`
}

/** The check of the configured mode; undefined when RESPONSE_CHECK=off, so the server skips it without a call. */
export const makeResponseCheck = Effect.gen(function* () {
  const mode: ResponseCheckMode = (yield* AppConfig).responseCheck
  if (mode === "off") return undefined
  const runSync = Runtime.runSync(yield* Effect.runtime<never>())
  const strict = mode === "strict"

  const report = (detail: string, route: AnyRoute, info: RequestInfo) =>
    (strict ? Effect.logError("response does not match its contract", detail) : Effect.logWarning("response does not match its contract", detail))
      .pipe(Effect.annotateLogs({ req: info.id, route: route.path }))

  /** A streamed JSON body: its chunks pass through unchanged; after the last, the whole text is checked. */
  const checkStream = (route: AnyRoute, info: RequestInfo, schema: z.ZodType, reply: StreamReply): StreamReply => {
    const decoder = new TextDecoder()
    let text = ""
    const after = Effect.suspend(() => {
      const problem = mismatchOf(schema, text + decoder.decode())
      if (problem === null) return Effect.void
      const detail = `${route.method} ${route.path}: ${problem}`
      return report(detail, route, info).pipe(Effect.zipRight(strict ? Effect.die(new Error(`response_contract: ${detail}`)) : Effect.void))
    })
    const chunks = reply.chunks.pipe(
      Stream.tap((chunk) => Effect.sync(() => { text += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }) })),
      Stream.concat(Stream.drain(Stream.fromEffect(after)))
    )
    return new StreamReply(reply.status, reply.headers, chunks)
  }

  const check: ResponseCheck = (route, info, reply) => {
    const schema = route.response
    if (schema === undefined || reply.status < 200 || reply.status > 299 || !isJson(reply)) return reply
    if (reply instanceof StreamReply) return checkStream(route, info, schema, reply)
    const problem = mismatchOf(schema, textOf(reply.body))
    if (problem === null) return reply
    const detail = `${route.method} ${route.path}: ${problem}`
    runSync(report(detail, route, info))
    return strict ? Reply.json({ detail, code: "response_contract" }, 500) : reply
  }
  return check
})
