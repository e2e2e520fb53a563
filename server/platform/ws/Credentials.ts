/**
 * What a WebSocket upgrade request presents as credentials, read synchronously from the request (uWS `req` is
 * dead after the handler returns). A session token may come, in this order of preference, as
 *  - a subprotocol entry `whale.token.<jwt>` (offer `whale.v1` too: the server answers with it),
 *  - `Authorization: Bearer <jwt>` (non-browser clients),
 *  - the query parameter `?token=<jwt>`,
 *  - the `whale_token` session cookie — only when the request's Origin is this server's own (or absent), so a
 *    page of another site cannot open an authenticated socket with the visitor's cookie.
 */
import { SESSION_COOKIE, cookieValue } from "../http/Principals"
import { WS_SUBPROTOCOL, WS_TOKEN_PROTOCOL_PREFIX } from "../../../schema/ws"

export interface UpgradeHeaders {
  readonly host: string
  readonly origin: string
  readonly cookie: string
  readonly authorization: string
  readonly protocols: string
  readonly query: string
}

export interface Presented {
  readonly token: string | undefined
  /** The subprotocol to answer with (must be one the client offered, or empty). */
  readonly protocol: string
  readonly via: "protocol" | "header" | "query" | "cookie" | "none"
}

/** Whether `origin` is the server's own: same host as the request, or the configured public base URL. */
export const sameOrigin = (origin: string, host: string, publicBaseUrl: string) => {
  if (origin === "") return true
  try {
    const o = new URL(origin)
    if (o.host === host) return true
    return o.origin === new URL(publicBaseUrl).origin
  } catch {
    return false
  }
}

const queryToken = (query: string) => {
  for (const part of query.split("&")) {
    const i = part.indexOf("=")
    if (i > 0 && part.slice(0, i) === "token") {
      try {
        return decodeURIComponent(part.slice(i + 1).replace(/\+/g, " "))
      } catch {
        return undefined
      }
    }
  }
  return undefined
}

export const presented = (h: UpgradeHeaders, publicBaseUrl: string): Presented => {
  const offered = h.protocols.split(",").map((p) => p.trim()).filter(Boolean)
  const protocol = offered.includes(WS_SUBPROTOCOL) ? WS_SUBPROTOCOL : ""
  const fromProtocol = offered.find((p) => p.startsWith(WS_TOKEN_PROTOCOL_PREFIX))?.slice(WS_TOKEN_PROTOCOL_PREFIX.length)
  if (fromProtocol) return { token: fromProtocol, protocol, via: "protocol" }
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(h.authorization)?.[1]
  if (bearer) return { token: bearer, protocol, via: "header" }
  const fromQuery = queryToken(h.query)
  if (fromQuery) return { token: fromQuery, protocol, via: "query" }
  const fromCookie = cookieValue(h.cookie, SESSION_COOKIE)
  if (fromCookie && sameOrigin(h.origin, h.host, publicBaseUrl)) return { token: fromCookie, protocol, via: "cookie" }
  return { token: undefined, protocol, via: "none" }
}

/**
 * Connections per client address: a slot is taken when an upgrade starts (before its asynchronous authentication,
 * so a burst cannot pass the check all at once) and given back when the upgrade fails or the socket closes.
 */
export class IpSlots {
  private readonly used = new Map<string, number>()
  constructor(private readonly max: number) {}

  take(ip: string): boolean {
    const n = this.used.get(ip) ?? 0
    if (n >= this.max) return false
    this.used.set(ip, n + 1)
    return true
  }

  release(ip: string) {
    const n = (this.used.get(ip) ?? 0) - 1
    if (n <= 0) this.used.delete(ip)
    else this.used.set(ip, n)
  }

  count(ip: string) {
    return this.used.get(ip) ?? 0
  }
}
