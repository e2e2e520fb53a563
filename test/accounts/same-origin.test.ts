/**
 * Same-origin for cookie sessions (server/platform/http/SameOrigin.ts): a state-changing request that the session
 * cookie authenticates acts only when it comes from this site — another origin, another port of the same host, a
 * `Sec-Fetch-Site` other than same-origin, or neither header is refused 403 `cross_site`, and nothing changes.
 * Bearer tokens, API keys and reads are unaffected.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bearer, cookieHeader, cookiesOf, createUser, login, type LoggedIn } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"

let app: TestApp
let session: LoggedIn
let cookies: Record<string, string>

beforeAll(async () => {
  app = await startApp({ env: { WHALE_ROLES: "http" } })
  await createUser(app, { email: "so@example.com", tier: "whale" })
  session = await login(app, "so@example.com")
  cookies = cookiesOf(session.setCookies)
})
afterAll(async () => {
  await app?.close()
})

const send = (method: string, path: string, headers: Record<string, string>, body: unknown = {}) =>
  fetch(`${app.url}${path}`, { method, headers: { "content-type": "application/json", ...headers }, body: method === "GET" ? undefined : JSON.stringify(body) })
    .then(async (r) => ({ status: r.status, body: (await r.json().catch(() => null)) as any }))
const withCookie = (extra: Record<string, string> = {}) => ({ ...cookieHeader({ whale_token: cookies.whale_token! }), ...extra })
const displayName = async () => (await send("GET", "/auth/me", bearer(session.token))).body.display_name

describe("cookie sessions act only from this site", () => {
  it("refuses another origin, another port, cross-site fetch metadata and a request with neither header", async () => {
    const refused: ReadonlyArray<Record<string, string>> = [
      { origin: "http://evil.example" },
      { origin: `http://127.0.0.1:${app.port + 1}` },
      { origin: "null" },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      {}
    ]
    for (const headers of refused) {
      for (const [path, body] of [["/auth/profile", { display_name: "Mallory was here" }], ["/api/alerts/mute", { hours: 24 }], ["/api/keys/create", { name: "stolen" }]] as const) {
        const r = await send("POST", path, withCookie(headers), body)
        expect(r.status, `${path} ${JSON.stringify(headers)}`).toBe(403)
        expect(r.body.code).toBe("cross_site")
      }
    }
    expect(await displayName()).not.toBe("Mallory was here")
    expect((await send("GET", "/api/keys", bearer(session.token))).body.keys).toEqual([])
    // The refresh cookie does not renew a session for another site either.
    const refresh = await send("POST", "/auth/refresh", { ...cookieHeader({ whale_refresh: cookies.whale_refresh! }), origin: "http://evil.example" })
    expect(refresh).toMatchObject({ status: 403, body: { code: "cross_site" } })
  })

  it("accepts this site's own origin (PUBLIC_BASE_URL's or the one it was addressed as) and same-origin fetch metadata", async () => {
    expect((await send("POST", "/auth/profile", withCookie({ origin: app.url }), { display_name: "Own origin" })).status).toBe(200)
    expect(await displayName()).toBe("Own origin")
    expect((await send("POST", "/auth/profile", withCookie({ "sec-fetch-site": "same-origin" }), { display_name: "Fetch metadata" })).status).toBe(200)
    expect(await displayName()).toBe("Fetch metadata")
    const own = new URL(app.env.PUBLIC_BASE_URL ?? app.url).origin
    expect((await send("POST", "/auth/profile", withCookie({ origin: own }), { display_name: "Base URL" })).status).toBe(200)
  })

  it("leaves bearer tokens and reads alone", async () => {
    expect((await send("POST", "/auth/profile", { ...bearer(session.token), origin: "http://evil.example" }, { display_name: "Bearer" })).status).toBe(200)
    expect((await send("GET", "/auth/me", withCookie({ origin: "http://evil.example" }))).status).toBe(200)
  })
})
