/**
 * A raw HTTP/1.1 client over a TCP socket, for requests `fetch` refuses to send: bytes that are not UTF-8 in the
 * request line, a body shorter than its Content-Length, conflicting framing headers, a slow writer. One request per
 * connection (`Connection: close`); the answer is parsed as soon as it is complete.
 */
import { connect, type Socket } from "node:net"

export interface RawRequest {
  readonly method: string
  /** Request target (path and query) as bytes or text. */
  readonly target: string | Buffer
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: Buffer
  /** Send only half the body (Content-Length stays the full length), then half-close the socket. */
  readonly truncate?: boolean
  /** Give up waiting for an answer after this long (default 5 s). */
  readonly timeoutMs?: number
}

export interface RawResponse {
  /** 0 when the server closed the connection without answering, -1 on timeout. */
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: Buffer
}

const parseHead = (head: string) => {
  const [statusLine, ...lines] = head.split("\r\n")
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? "")?.[1] ?? 0)
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const i = line.indexOf(":")
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim()
  }
  return { status, headers }
}

export const rawRequest = (port: number, req: RawRequest): Promise<RawResponse> =>
  new Promise((resolve) => {
    const socket: Socket = connect({ host: "127.0.0.1", port })
    const chunks: Array<Buffer> = []
    let settled = false
    const finish = (r: RawResponse) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve(r)
    }
    const tryParse = (closed: boolean) => {
      const all = Buffer.concat(chunks)
      const end = all.indexOf("\r\n\r\n")
      if (end < 0) return closed ? finish({ status: 0, headers: {}, body: all }) : undefined
      const { status, headers } = parseHead(all.subarray(0, end).toString("latin1"))
      const body = all.subarray(end + 4)
      const length = headers["content-length"] !== undefined ? Number(headers["content-length"]) : undefined
      if (req.method === "HEAD" || status === 204 || status === 304) return finish({ status, headers, body: Buffer.alloc(0) })
      if (length !== undefined && body.length >= length) return finish({ status, headers, body: body.subarray(0, length) })
      if (closed) finish({ status, headers, body })
    }
    const timer = setTimeout(() => finish({ status: -1, headers: {}, body: Buffer.concat(chunks) }), req.timeoutMs ?? 5_000)
    socket.on("data", (c) => {
      chunks.push(c)
      tryParse(false)
    })
    socket.on("end", () => tryParse(true))
    socket.on("close", () => tryParse(true))
    socket.on("error", () => tryParse(true))
    socket.on("connect", () => {
      const given = Object.fromEntries(Object.entries(req.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]))
      const body = req.body ?? Buffer.alloc(0)
      const chunked = given["transfer-encoding"] === "chunked"
      const lines = [`host: 127.0.0.1:${port}`, "connection: close"]
      for (const [k, v] of Object.entries(given)) lines.push(`${k}: ${v.replace(/[\r\n]/g, " ")}`)
      if (!chunked && given["content-length"] === undefined && (body.length > 0 || req.method === "POST")) lines.push(`content-length: ${body.length}`)
      const target = typeof req.target === "string" ? Buffer.from(req.target, "latin1") : req.target
      socket.write(Buffer.concat([Buffer.from(`${req.method} `), target, Buffer.from(` HTTP/1.1\r\n${lines.join("\r\n")}\r\n\r\n`)]))
      if (chunked) socket.write(Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n0\r\n\r\n")]))
      else if (req.truncate) {
        socket.write(body.subarray(0, Math.floor(body.length / 2)))
        socket.end()
      } else if (body.length > 0) socket.write(body)
    })
  })
