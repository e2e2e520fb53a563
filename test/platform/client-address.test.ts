/**
 * The client address (server/platform/http/ClientAddress.ts), decided once from TRUST_PROXY: with no proxy trusted
 * (the default) a client cannot pick its address with X-Forwarded-For — the login throttle, keyed by it, stops a
 * spoofing client as it stops any other; with a hop count or a list of proxies, the chain is walked from the socket.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { clientAddressOf, parseTrustProxy } from "../../server/platform/http/ClientAddress"
import { startApp, type TestApp } from "../support/harness"

describe("TRUST_PROXY modes", () => {
  it("trusts nobody by default: the socket's address, whatever the header says", () => {
    for (const raw of [undefined, "", "false", "0"]) {
      const c = clientAddressOf(parseTrustProxy(raw))
      expect(c.usesHeader).toBe(false)
      expect(c.of("198.51.100.7", "203.0.113.9")).toBe("198.51.100.7")
    }
  })

  it("with a hop count, takes the address that many hops out (a client's own entries further out are ignored)", () => {
    const one = clientAddressOf(parseTrustProxy("1"))
    expect(one.of("10.0.0.2", "203.0.113.9")).toBe("203.0.113.9")
    expect(one.of("10.0.0.2", "6.6.6.6, 203.0.113.9")).toBe("203.0.113.9")
    expect(one.of("10.0.0.2", "")).toBe("10.0.0.2")
    const two = clientAddressOf(parseTrustProxy("2"))
    expect(two.of("10.0.0.2", "6.6.6.6, 203.0.113.9, 10.0.0.3")).toBe("203.0.113.9")
  })

  it("with a list of proxies, skips only hops on it", () => {
    const ours = clientAddressOf(parseTrustProxy("loopback, 10.0.0.0/8"))
    expect(ours.of("127.0.0.1", "6.6.6.6, 203.0.113.9, 10.1.2.3")).toBe("203.0.113.9")
    // A peer that is not our proxy is the client, whatever it claims.
    expect(ours.of("198.51.100.7", "203.0.113.9")).toBe("198.51.100.7")
    expect(() => parseTrustProxy("10.0.0.0/99")).toThrow()
  })
})

describe("a spoofed X-Forwarded-For with no proxy configured", () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp({ env: { WHALE_ROLES: "http", LOGIN_MAX_PER_IP: "4" } })
  })
  afterAll(async () => {
    await app?.close()
  })

  it("does not get a client past the login throttle", async () => {
    const codes: Array<number> = []
    for (let i = 0; i < 7; i++) {
      const res = await fetch(`${app.url}/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": `203.0.113.${i + 1}` },
        body: JSON.stringify({ email: `spoof${i}@example.com`, password: "wrong password 123" })
      })
      codes.push(res.status)
    }
    expect(codes.slice(0, 4)).toEqual([401, 401, 401, 401])
    expect(codes.slice(4)).toEqual([429, 429, 429])
  })
})
