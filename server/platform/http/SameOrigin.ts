/**
 * Same-origin for cookie sessions: a state-changing request (anything but GET, HEAD, OPTIONS) that a cookie
 * authenticates must come from this service's own origin — `PUBLIC_BASE_URL`'s, or the origin the request itself was
 * addressed to (its Host, so `127.0.0.1` and `localhost` both work locally). `Origin` decides when present; without
 * it, `Sec-Fetch-Site: same-origin`; with neither, the request is refused. SameSite=Lax alone lets another port or a
 * subdomain of the same site through. Requests carrying `Authorization` (bearer tokens) or an API key are not
 * affected: a browser never attaches those by itself. Used by the session guards and the e-mail workspace's forms.
 */
import { Forbidden } from "./Errors"
import type { RequestInfo } from "./Route"

const SAFE = new Set(["GET", "HEAD", "OPTIONS"])

const originOf = (url: string) => {
  try {
    return new URL(url).origin
  } catch {
    return null
  }
}

/** Why `req` may not act with its cookie (null when it may). */
export const crossSite = (req: RequestInfo, publicBaseUrl: string): string | null => {
  if (SAFE.has(req.method.toUpperCase())) return null
  const origin = req.header("origin")
  if (origin !== undefined) {
    const host = req.header("host")
    const own = origin === originOf(publicBaseUrl) || (host !== undefined && (origin === `http://${host}` || origin === `https://${host}`))
    return own ? null : `a request from ${origin.slice(0, 100)} may not act with this site's session cookie`
  }
  const site = req.header("sec-fetch-site")
  if (site !== undefined) return site === "same-origin" ? null : `a ${site} request may not act with this site's session cookie`
  return "a request without Origin or Sec-Fetch-Site may not act with this site's session cookie; send the session as a bearer token"
}

/** 403 `{"code":"cross_site"}`. */
export const crossSiteRefused = (why: string) => new Forbidden({ message: `Cross-site request refused: ${why}`, code: "cross_site" })
