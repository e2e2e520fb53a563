/**
 * Same-origin for cookie sessions, in Chromium (docs/security.md): a user signed in through the login page visits
 * a page on another port of the same host (same site, so SameSite=Lax cookies go along) that submits a form and a
 * `no-cors` fetch to the service. Both arrive with the session cookie and are refused 403 `cross_site`; the profile
 * is unchanged. From the service's own page the same request, with the same cookie, acts.
 */
import { createServer, type Server } from "node:http"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, expect, it } from "vitest"
import { bearer, createUser, login } from "../support/auth"
import { collectErrors, ensureClientBuilt, launchChromium, signIn, type Browser } from "../support/browser"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"

let app: TestApp
let browser: Browser
let evil: Server
let evilUrl: string
const EMAIL = "victim@example.com"

beforeAll(async () => {
  await ensureClientBuilt()
  app = await startApp({ env: { WHALE_ROLES: "http" } })
  await createUser(app, { email: EMAIL, tier: "whale" })
  browser = await launchChromium()
  // The attacker's page: another port of 127.0.0.1 — another origin, the same site.
  evil = createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html" })
    res.end(`<!doctype html><title>prize</title>
<form id="f" method="post" action="${app.url}/auth/profile"><input name="display_name" value="Mallory via form"></form>
<script>
  fetch(${JSON.stringify(`${app.url}/auth/profile`)}, { method: "POST", mode: "no-cors", credentials: "include",
    headers: { "content-type": "text/plain" }, body: JSON.stringify({ display_name: "Mallory via fetch" }) })
    .finally(() => { document.title = "fetched"; setTimeout(() => document.getElementById("f").submit(), 50) })
</script>`)
  })
  await new Promise<void>((resolve) => evil.listen(0, "127.0.0.1", resolve))
  evilUrl = `http://127.0.0.1:${(evil.address() as { port: number }).port}/`
}, 180_000)
afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => evil?.close(resolve))
  await app?.close()
})

const displayName = async () => {
  const session = await login(app, EMAIL)
  return (await (await fetch(`${app.url}/auth/me`, { headers: bearer(session.token) })).json()).display_name as string | null
}

it("refuses another origin's form and fetch that carry the session cookie; the service's own page still acts", async () => {
  const page: Page = await browser.context.newPage()
  const errors = collectErrors(page)
  await signIn(page, app.url, EMAIL)
  const cookies = await browser.context.cookies(app.url)
  expect(cookies.map((c) => c.name)).toContain("whale_token")
  const before = await displayName()

  // The attacker's page: its form navigates to the service's answer.
  const answer = page.waitForResponse((r) => r.url() === `${app.url}/auth/profile` && r.request().method() === "POST" && r.request().postData()?.includes("form") === true)
  const fetched = page.waitForRequest((r) => r.url() === `${app.url}/auth/profile` && r.postData()?.includes("fetch") === true)
  await page.goto(evilUrl)
  const [formAnswer, fetchRequest] = await Promise.all([answer, fetched])
  // Chromium sent the session cookie both times (same site): refused for the origin (`cross_site`; a request
  // without a session would be 401), not for a missing session.
  expect(await formAnswer.request().headerValue("cookie")).toContain("whale_token=")
  expect(formAnswer.status()).toBe(403)
  expect(await formAnswer.json()).toMatchObject({ code: "cross_site" })
  const fetchAnswer = await fetchRequest.response()
  // (An opaque answer: its body cannot be read; 403, where a request without the session cookie gets 401.)
  expect(fetchAnswer?.status()).toBe(403)
  expect(await displayName()).toBe(before)

  // The same change from the service's own page, with the same cookie, acts.
  await page.goto(`${app.url}/`)
  const own = await page.evaluate(async () => {
    const r = await fetch("/auth/profile", { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" }, body: JSON.stringify({ display_name: "Set from the console" }) })
    return r.status
  })
  expect(own).toBe(200)
  await waitFor(async () => (await displayName()) === "Set from the console", 5_000, 100)
  expect(errors.filter((e) => !/403|Failed to load resource/.test(e))).toEqual([])
  await page.close()
}, 90_000)
