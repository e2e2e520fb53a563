/**
 * One HTTP request as guards and handlers see it (`RequestInfo`), copied out of uWS lazily, and the request id.
 */
import { randomBytes } from "node:crypto"
import type uWS from "uWebSockets.js"
import type { RequestInfo } from "./Route"

// Constant header names as bytes: uWS converts a string argument to UTF-8 (with a malloc) on every call.
const encodedNames = new Map<string, Buffer>()
export const encodedName = (name: string) => {
  let bytes = encodedNames.get(name)
  if (bytes === undefined) {
    bytes = Buffer.from(name)
    if (encodedNames.size < 256) encodedNames.set(name, bytes)
  }
  return bytes
}

const bootId = randomBytes(3).toString("hex")
let requestCounter = 0
export const nextRequestId = () => `${bootId}-${(++requestCounter).toString(36)}`
export const REQUEST_ID = /^[\w.-]{1,64}$/

/**
 * The request as guards and handlers see it. `req` is valid only inside the uWS callback: headers are copied from it
 * on first use, and `detach` copies what is left before the request goes on asynchronously. A hot path that answers
 * later (`FastPath`) reads what it needs synchronously; the request is then detached without copying, and reading its
 * headers afterwards is a defect that says so.
 */
export class IncomingRequest implements RequestInfo {
  #req: uWS.HttpRequest | undefined
  readonly #res: uWS.HttpResponse
  readonly #forwarded: string
  readonly #clientAddress: (socket: string, forwarded: string) => string
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
    /** `X-Forwarded-For` when a proxy is trusted ("" otherwise), and how the client address is decided from it. */
    forwarded: string,
    clientAddress: (socket: string, forwarded: string) => string
  ) {
    this.#res = res
    this.#req = req
    this.#forwarded = forwarded
    this.#clientAddress = clientAddress
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

  /** The client's address (http/ClientAddress.ts: the peer's, or a trusted proxy's word); read on first use. */
  get ip(): string {
    if (this.#ip === undefined) {
      this.#ip = this.#clientAddress(Buffer.from(this.#address ?? this.#res.getRemoteAddressAsText()).toString("latin1"), this.#forwarded)
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
      this.#address ??= this.#res.getRemoteAddressAsText()
    }
    this.#req = undefined
  }
}
