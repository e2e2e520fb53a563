/**
 * The one guard for outbound URLs a user gives (alert webhooks today; anything later). `resolveOutbound` parses the
 * URL, resolves its host once and checks EVERY address it resolves to; the request is then made to the address that
 * was checked (`pinnedLookup`: no second lookup, so a name that resolves elsewhere a moment later — DNS rebinding —
 * cannot reach inside). Only globally routable unicast addresses pass, classified by `ipaddr.js`: loopback,
 * unspecified, private, CGNAT, link-local, unique-local, multicast, broadcast, documentation, benchmarking and
 * reserved ranges are refused in every spelling — IPv4-mapped (`::ffff:7f00:1`), IPv4-compatible (`::7f00:1`), NAT64
 * (`64:ff9b::/96`), 6to4 and Teredo (which carry an IPv4 address inside), and the decimal, octal and hex IPv4 forms
 * (the WHATWG URL parser turns `http://2130706433/` and `http://0x7f.1/` into `127.0.0.1` before we look).
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns"
import { isIP } from "node:net"
import ipaddr from "ipaddr.js"

/** Why an address is refused (its range as `ipaddr.js` names it), or null when it is public unicast. */
export const refusedRange = (address: string): string | null => {
  if (!ipaddr.isValid(address)) return "invalid"
  // IPv4-mapped IPv6 becomes the IPv4 address it carries.
  const parsed = ipaddr.process(address)
  const range = parsed.range()
  if (range !== "unicast") return range
  // ::/8 (IPv4-compatible ::a.b.c.d among it) is reserved, though ipaddr.js calls it unicast.
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).parts[0]! < 0x0100) return "reserved"
  return null
}

/** Host names that are private whatever they resolve to. */
const privateName = (host: string) => {
  const h = host.toLowerCase().replace(/\.$/, "")
  return h === "" || h === "localhost" || h.endsWith(".localhost") || h.endsWith(".local") || h.endsWith(".internal")
}

export interface Resolved {
  readonly url: URL
  /** The checked address the request must connect to, and its family. */
  readonly address: string
  readonly family: 4 | 6
}
export type Outbound = { readonly ok: true; readonly target: Resolved } | { readonly ok: false; readonly reason: "invalid" | "refused" | "unresolvable" }

const lookupAll = (host: string) =>
  new Promise<ReadonlyArray<LookupAddress>>((resolve) =>
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => resolve(err ? [] : addresses)))

/**
 * Parses `raw` and decides where it may go. `allowPrivate` (an operator's setting for tests and closed networks)
 * skips the address check but still resolves once and pins the address.
 */
export const resolveOutbound = async (raw: string, options: { readonly allowPrivate?: boolean } = {}): Promise<Outbound> => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return { ok: false, reason: "invalid" }
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, reason: "invalid" }
  const host = url.hostname.replace(/^\[|\]$/g, "")
  const allow = options.allowPrivate === true
  if (!allow && privateName(host)) return { ok: false, reason: "refused" }
  const addresses: ReadonlyArray<{ address: string; family: number }> = isIP(host) !== 0 ? [{ address: host, family: isIP(host) }] : await lookupAll(host)
  if (addresses.length === 0) return { ok: false, reason: "unresolvable" }
  if (!allow && addresses.some((a) => refusedRange(a.address) !== null)) return { ok: false, reason: "refused" }
  const first = addresses[0]!
  return { ok: true, target: { url, address: first.address, family: first.family === 6 ? 6 : 4 } }
}

/**
 * A `lookup` for node:http(s) that answers the checked address of `target` and nothing else (the request keeps the
 * URL's host name for its Host header and TLS SNI). A literal address in the URL is connected to directly by Node
 * and was checked by `resolveOutbound`.
 */
export const pinnedLookup = (target: Resolved) =>
  (_hostname: string, options: { all?: boolean }, callback: (...args: Array<unknown>) => void) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }])
    else callback(null, target.address, target.family)
  }
