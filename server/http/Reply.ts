/** What a handler may return besides a plain JSON value: a reply with its own status, headers and body. */

export type Header = readonly [name: string, value: string]

export class Reply {
  constructor(
    readonly status: number,
    readonly headers: ReadonlyArray<Header>,
    readonly body: string | Uint8Array
  ) {}

  withHeaders(...more: ReadonlyArray<Header>): Reply {
    return new Reply(this.status, [...this.headers, ...more], this.body)
  }

  static json(value: unknown, status = 200, headers: ReadonlyArray<Header> = []): Reply {
    return new Reply(status, [["content-type", "application/json; charset=utf-8"], ...headers], JSON.stringify(value))
  }

  /** A body already serialised as JSON (cached responses). */
  static rawJson(text: string | Uint8Array, status = 200, headers: ReadonlyArray<Header> = []): Reply {
    return new Reply(status, [["content-type", "application/json; charset=utf-8"], ...headers], text)
  }

  static html(html: string, status = 200, headers: ReadonlyArray<Header> = []): Reply {
    return new Reply(status, [["content-type", "text/html; charset=utf-8"], ...headers], html)
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
}

const STATUS_TEXT: Record<number, string> = {
  200: "OK", 201: "Created", 202: "Accepted", 204: "No Content", 301: "Moved Permanently", 302: "Found",
  303: "See Other", 304: "Not Modified", 307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request",
  401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 409: "Conflict",
  413: "Payload Too Large", 415: "Unsupported Media Type", 422: "Unprocessable Entity", 429: "Too Many Requests",
  500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"
}

/** The status line uWS wants, e.g. `404 Not Found`. */
export const statusLine = (status: number) => `${status} ${STATUS_TEXT[status] ?? "Status"}`
