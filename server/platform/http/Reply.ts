/** What a handler may return besides a plain JSON value: a reply with its own status, headers and body. */
import type { Stream } from "effect"

export type Header = readonly [name: string, value: string]

/**
 * Header lists fixed when the server starts (a route's constant headers) are written to uWS as ONE pre-joined block
 * instead of one native call per header: measured, 8 separate `writeHeader` calls cost about 0.8 µs a reply, a third
 * of a cached answer. Only lists made here are joined, and their names and values are checked for CR/LF once.
 */
const blocks = new WeakMap<ReadonlyArray<Header>, { readonly text: Header; readonly bytes: EncodedHeader }>()

/** A header encoded once: uWS converts a string argument to UTF-8 (with a malloc) on every call, bytes it takes as they are. */
export type EncodedHeader = readonly [name: Uint8Array, value: Uint8Array]
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/

export const staticHeaders = (headers: ReadonlyArray<Header>): ReadonlyArray<Header> => {
  for (const [name, value] of headers) {
    if (!TOKEN.test(name) || /[\r\n]/.test(value)) throw new Error(`invalid static header ${JSON.stringify(name)}`)
  }
  const list = Object.freeze([...headers])
  const [first, ...rest] = list
  if (first !== undefined) {
    const text: Header = [first[0], first[1] + rest.map(([k, v]) => `\r\n${k}: ${v}`).join("")]
    blocks.set(list, { text, bytes: [Buffer.from(text[0]), Buffer.from(text[1])] })
  }
  return list
}

/** The joined block of a list made by `staticHeaders` (a name and the rest as its value), or undefined. */
export const headerBlock = (headers: ReadonlyArray<Header>): Header | undefined => blocks.get(headers)?.text

/** The same block as UTF-8, as the server writes it. */
export const headerBlockBytes = (headers: ReadonlyArray<Header>): EncodedHeader | undefined => blocks.get(headers)?.bytes

/** `content-type: application/json; charset=utf-8` as a static list (one pre-joined block). */
export const JSON_ONLY = staticHeaders([["content-type", "application/json; charset=utf-8"]])
const HTML_ONLY = staticHeaders([["content-type", "text/html; charset=utf-8"]])

/**
 * The Content-Security-Policy of every HTML answer (console shell, server-rendered pages, link pages): scripts,
 * fonts, images and connections (fetch, the same-origin WebSocket) from this origin only, no plugins, no framing,
 * forms post here only. Inline styles are allowed (the server-rendered pages carry one `<style>` block; Solid sets
 * style properties); inline scripts are not.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'", "script-src 'self'", "style-src 'self' 'unsafe-inline'", "img-src 'self' data:", "font-src 'self'",
  "connect-src 'self'", "manifest-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'", "object-src 'none'"
].join("; ")

/**
 * Whether a reply gets the default Content-Security-Policy: an HTML document that does not bring its own (a page
 * with other needs — the API docs' search worker, the scriptless site pages — states its policy, and only that one
 * is sent: two policies would both be enforced).
 */
export const needsDefaultCsp = (headers: ReadonlyArray<Header>): boolean => {
  if (headers === JSON_ONLY) return false
  let html = false
  for (const [name, value] of headers) {
    const lower = name.toLowerCase()
    if (lower === "content-security-policy") return false
    if (lower === "content-type") html = value.startsWith("text/html")
  }
  return html
}

export class Reply {
  constructor(
    readonly status: number,
    readonly headers: ReadonlyArray<Header>,
    readonly body: string | Uint8Array,
    /**
     * More headers, pre-joined by a hot path into one name and a value holding the rest as `\r\nname: value` lines
     * (written with one native call). Only for values the server makes itself (numbers), never for request data.
     */
    readonly block?: readonly [name: string | Uint8Array, value: string]
  ) {}

  withHeaders(...more: ReadonlyArray<Header>): Reply {
    return new Reply(this.status, [...this.headers, ...more], this.body, this.block)
  }

  static json(value: unknown, status = 200, headers: ReadonlyArray<Header> = []): Reply {
    return new Reply(status, headers.length === 0 ? JSON_ONLY : [...JSON_ONLY, ...headers], JSON.stringify(value))
  }

  /** A body already serialised as JSON (cached responses). */
  static rawJson(text: string | Uint8Array, status = 200, headers: ReadonlyArray<Header> = []): Reply {
    return new Reply(status, headers.length === 0 ? JSON_ONLY : [...JSON_ONLY, ...headers], text)
  }

  static html(html: string, status = 200, headers: ReadonlyArray<Header> = []): Reply {
    return new Reply(status, headers.length === 0 ? HTML_ONLY : [...HTML_ONLY, ...headers], html)
  }

  static text(text: string, contentType = "text/plain; charset=utf-8", status = 200, headers: ReadonlyArray<Header> = []): Reply {
    return new Reply(status, [["content-type", contentType], ...headers], text)
  }

  static bytes(body: Uint8Array, contentType: string, headers: ReadonlyArray<Header> = []): Reply {
    return new Reply(200, [["content-type", contentType], ...headers], body)
  }

  static redirect(location: string, status: 301 | 302 | 303 | 307 | 308 = 302, headers: ReadonlyArray<Header> = []): Reply {
    return new Reply(status, [["location", location], ...headers], "")
  }

  static empty(status = 204, headers: ReadonlyArray<Header> = []): Reply {
    return new Reply(status, headers, "")
  }

  /**
   * A body written as it is produced (`Transfer-Encoding: chunked`): each chunk of `chunks` is written when the
   * previous one has left (backpressure: the next is pulled only once uWS's buffer drained), so an answer of any size
   * never sits in memory whole. The status and headers go out before the first chunk: a failure after that closes the
   * connection (the client sees a truncated body, never a complete-looking wrong one). A client that goes away
   * interrupts the stream.
   */
  static stream(chunks: Stream.Stream<string | Uint8Array>, contentType: string, status = 200, headers: ReadonlyArray<Header> = []): StreamReply {
    return new StreamReply(status, [["content-type", contentType], ...headers], chunks)
  }

  /** A JSON body streamed in chunks (their concatenation is the JSON document). */
  static jsonStream(chunks: Stream.Stream<string | Uint8Array>, status = 200, headers: ReadonlyArray<Header> = []): StreamReply {
    return new StreamReply(status, headers.length === 0 ? JSON_ONLY : [...JSON_ONLY, ...headers], chunks)
  }
}

/** A reply whose body is a stream of chunks (see `Reply.stream`); `body` is empty. */
export class StreamReply extends Reply {
  constructor(status: number, headers: ReadonlyArray<Header>, readonly chunks: Stream.Stream<string | Uint8Array>) {
    super(status, headers, "")
  }

  override withHeaders(...more: ReadonlyArray<Header>): StreamReply {
    return new StreamReply(this.status, [...this.headers, ...more], this.chunks)
  }
}

const STATUS_TEXT: Record<number, string> = {
  200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 301: "Moved Permanently", 302: "Found",
  303: "See Other", 304: "Not Modified", 307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request",
  401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 408: "Request Timeout", 409: "Conflict",
  413: "Payload Too Large", 415: "Unsupported Media Type", 422: "Unprocessable Entity", 429: "Too Many Requests",
  500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"
}

/** The status line uWS wants, e.g. `404 Not Found`. */
export const statusLine = (status: number) => `${status} ${STATUS_TEXT[status] ?? "Status"}`
