/**
 * The client's address, decided once for every throttle, the access log, the WebSocket hub and the waitlist.
 * `TRUST_PROXY` says which peers may tell us who their client was through `X-Forwarded-For`:
 *  - unset, empty or `false` (the default): nobody — the socket's address, whatever the header says;
 *  - a hop count (`1`, `2`): that many proxies in front of us, whatever their addresses;
 *  - a comma-separated list of addresses, CIDRs or the names `loopback`, `linklocal`, `uniquelocal`: the proxies
 *    we run, by address.
 * The chain is walked from the socket outwards, skipping trusted hops, by `proxy-addr` (Express's rules), so a
 * client can never pick its own address by sending the header itself.
 */
import proxyaddr from "proxy-addr"

export type TrustProxy = { readonly kind: "none" } | { readonly kind: "hops"; readonly hops: number } | { readonly kind: "list"; readonly list: ReadonlyArray<string> }

/** Reads `TRUST_PROXY`; throws with the reason on a value it cannot use. */
export const parseTrustProxy = (raw: string | undefined): TrustProxy => {
  const value = (raw ?? "").trim()
  if (value === "" || value.toLowerCase() === "false") return { kind: "none" }
  if (/^\d+$/.test(value)) return Number(value) === 0 ? { kind: "none" } : { kind: "hops", hops: Number(value) }
  const list = value.split(",").map((s) => s.trim()).filter((s) => s !== "")
  proxyaddr.compile(list) // throws on an address or range it cannot read
  return { kind: "list", list }
}

/**
 * `(socket address, X-Forwarded-For) → client address` for a setting. With no proxy trusted it never reads the
 * header (`usesHeader` false), so the hot path need not copy it.
 */
export const clientAddressOf = (trust: TrustProxy) => {
  if (trust.kind === "none") return { usesHeader: false, of: (socket: string, _forwarded: string) => socket }
  const fn = trust.kind === "hops" ? (_addr: string, i: number) => i < trust.hops : proxyaddr.compile([...trust.list])
  return {
    usesHeader: true,
    of: (socket: string, forwarded: string) =>
      forwarded === ""
        ? socket
        : proxyaddr({ connection: { remoteAddress: socket }, headers: { "x-forwarded-for": forwarded } } as never, fn)
  }
}
