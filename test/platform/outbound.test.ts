/**
 * The outbound-URL guard (server/platform/infra/Outbound.ts) and the webhook sender on it: a listener on this
 * machine must receive nothing from any spelling of an internal address, and the sender's answers carry no connection
 * details. The listener is proven to work by the one request that is allowed to reach it (private destinations
 * explicitly allowed).
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postWebhook, statusClass } from "../../server/domains/alerts/delivery/WebhookPost"
import { pinnedLookup, refusedRange, resolveOutbound } from "../../server/platform/infra/Outbound"

let server: Server
let port = 0
let received = 0

beforeAll(async () => {
  // Every local address (IPv4 and IPv6) on one port, so any spelling that reached this machine would be counted.
  server = createServer((req, res) => {
    received++
    res.writeHead(204).end()
  })
  await new Promise<void>((resolve) => server.listen({ port: 0, host: "::", ipv6Only: false }, resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

/** Internal destinations in every spelling (host part; the test adds the listener's port). */
const INTERNAL = [
  "127.0.0.1", "127.1", "127.0.1", "2130706433", "0x7f000001", "0x7f.0x0.0x0.0x1", "0177.0.0.1", "017700000001", "127.000.000.001",
  "127.0.0.2", "[::1]", "[0:0:0:0:0:0:0:1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "[0:0:0:0:0:ffff:7f00:1]", "[::127.0.0.1]",
  "[::7f00:1]", "[64:ff9b::127.0.0.1]", "[64:ff9b::7f00:1]", "[2002:7f00:1::]", "[::ffff:0:7f00:1]", "[2001::7f00:1]",
  "0.0.0.0", "0", "[::]", "localhost", "LOCALHOST.", "api.localhost", "printer.local", "metadata.google.internal",
  "10.0.0.1", "172.16.0.1", "192.168.0.1", "169.254.169.254", "[::ffff:169.254.169.254]", "100.64.0.1", "[fe80::1]",
  "[fc00::1]", "[fd12:3456::1]", "224.0.0.1", "255.255.255.255", "192.0.2.1", "198.18.0.1", "[2001:db8::1]", "[ff02::1]",
  "ip6-localhost"
]

describe("outbound URLs", () => {
  it(`refuses ${INTERNAL.length} spellings of internal addresses at save time and at send time; the listener gets nothing`, async () => {
    expect(INTERNAL.length).toBeGreaterThanOrEqual(30)
    for (const host of INTERNAL) {
      const url = `http://${host}:${port}/hook`
      const outbound = await resolveOutbound(url)
      expect(outbound.ok, url).toBe(false)
      const sent = await postWebhook(url, {}, "{}", 2_000, false)
      expect(sent, url).toEqual({ error: expect.stringMatching(/^(refused: not a public destination|failed: the host name does not resolve)$/) })
    }
    expect(received).toBe(0)
    // The same listener, with private destinations allowed: it is reachable, so the zero above means refused.
    expect(await postWebhook(`http://127.0.0.1:${port}/hook`, {}, "{}", 2_000, true)).toEqual({ status: 204 })
    expect(received).toBe(1)
  })

  it("lets public unicast through and names each refused range", () => {
    for (const ip of ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "2a00:1450:4001::200e"]) expect(refusedRange(ip), ip).toBeNull()
    expect(refusedRange("127.0.0.1")).toBe("loopback")
    expect(refusedRange("::ffff:10.0.0.1")).toBe("private")
    expect(refusedRange("::a00:1")).toBe("reserved")
    expect(refusedRange("64:ff9b::a00:1")).toBe("rfc6052")
    expect(refusedRange("not an address")).toBe("invalid")
  })

  it("refuses what is not http(s), and connects only to the address it checked", async () => {
    expect(await resolveOutbound("ftp://example.com/x")).toEqual({ ok: false, reason: "invalid" })
    expect(await resolveOutbound("not a url")).toEqual({ ok: false, reason: "invalid" })
    const checked = await resolveOutbound("http://93.184.215.14:8443/x")
    expect(checked).toMatchObject({ ok: true, target: { address: "93.184.215.14", family: 4 } })
    // Whatever name the connection asks for later (a rebinding DNS answer), the lookup gives the checked address.
    const lookup = pinnedLookup({ url: new URL("http://hooks.example.com/"), address: "93.184.215.14", family: 4 })
    const one = await new Promise((resolve) => lookup("hooks.example.com", {}, (...args) => resolve(args)))
    const all = await new Promise((resolve) => lookup("hooks.example.com", { all: true }, (...args) => resolve(args)))
    expect(one).toEqual([null, "93.184.215.14", 4])
    expect(all).toEqual([null, [{ address: "93.184.215.14", family: 4 }]])
  })

  it("reports a failed delivery by its status class only", () => {
    expect(statusClass(404)).toBe("HTTP 4xx")
    expect(statusClass(503)).toBe("HTTP 5xx")
  })
})
