/**
 * Every HTML answer carries a Content-Security-Policy (issue 18 §4), and the pages work under it: Chromium loads
 * the console (live WebSocket, charts), the sign-in page and the server-rendered link pages with no violation
 * reported (`securitypolicyviolation` events and console errors both watched).
 */
import { join } from "node:path"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, expect, it } from "vitest"
import { DOCS_CSP } from "../../server/domains/pages/ApiDocs"
import { CONTENT_SECURITY_POLICY } from "../../server/platform/http/Reply"
import { ARTIFACTS, collectErrors, ensureClientBuilt, launchChromium, type Browser } from "../support/browser"
import { startApp, type TestApp } from "../support/harness"

let app: TestApp
let browser: Browser

beforeAll(async () => {
  await ensureClientBuilt()
  app = await startApp({ env: { DEMO_BLOCK_MS: "2000", DEMO_HISTORY_BLOCKS: "30", CONSOLE_SNAPSHOT_MS: "1000" } })
  browser = await launchChromium()
  await browser.context.addInitScript(() => {
    const w = window as unknown as { __csp: Array<string> }
    w.__csp = []
    document.addEventListener("securitypolicyviolation", (e) => w.__csp.push(`${e.effectiveDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`))
  })
}, 180_000)
afterAll(async () => {
  await browser?.close()
  await app?.close()
})

const PAGES = ["/", "/feed", "/sentiment", "/tokens", "/picks", "/backtest", "/login", "/register", "/auth/verify-email?token=not-a-token", "/auth/magic-login?token=x", "/email/unsubscribe?token=x"]

it("sends the policy on every HTML answer and nothing on JSON", async () => {
  for (const path of PAGES) {
    const res = await fetch(app.url + path, { headers: { accept: "text/html" }, redirect: "manual" })
    await res.arrayBuffer()
    if ((res.headers.get("content-type") ?? "").startsWith("text/html")) expect(res.headers.get("content-security-policy"), path).toBe(CONTENT_SECURITY_POLICY)
  }
  const json = await fetch(`${app.url}/api/pricing`)
  expect(json.headers.get("content-security-policy")).toBeNull()
})

it("loads the console and the server-rendered pages in Chromium with no policy violation", async () => {
  const report: Record<string, Array<string>> = {}
  for (const path of PAGES) {
    const page: Page = await browser.context.newPage()
    const errors = collectErrors(page)
    await page.goto(app.url + path, { waitUntil: "load" })
    // Give the console time to open its WebSocket and draw (a violation would be reported meanwhile).
    if (!path.startsWith("/auth") && !path.startsWith("/email")) await page.waitForFunction(() => document.body.innerText.length > 40, undefined, { timeout: 15_000 })
    await page.waitForTimeout(300)
    const violations = await page.evaluate(() => (window as unknown as { __csp: Array<string> }).__csp)
    report[path] = [...violations, ...errors.filter((e) => /Content Security Policy|Refused to/i.test(e))]
    await page.close()
  }
  console.log(`[csp] ${Object.entries(report).map(([p, v]) => `${p}: ${v.length}`).join(" · ")}`)
  expect(report).toEqual(Object.fromEntries(PAGES.map((p) => [p, []])))
}, 120_000)

it("renders the API reference at /docs from this origin under its own policy, with no violation", async () => {
  const res = await fetch(`${app.url}/docs`)
  expect(res.headers.get("content-security-policy")).toBe(DOCS_CSP)
  const html = await res.text()
  expect(html).toMatch(/<script src="\/assets\/redoc-[\d.]+\.standalone\.js"><\/script>/)
  const page: Page = await browser.context.newPage()
  const errors = collectErrors(page)
  const failed: Array<string> = []
  page.on("requestfailed", (r) => failed.push(`${r.url()} ${r.failure()?.errorText}`))
  page.on("request", (r) => {
    if (!r.url().startsWith(app.url) && !r.url().startsWith("blob:") && !r.url().startsWith("data:")) failed.push(`off-origin ${r.url()}`)
  })
  await page.goto(`${app.url}/docs`, { waitUntil: "load" })
  // Redoc draws the operations of the document: the keyed endpoints among them.
  await page.getByText("/api/v1/top-tokens").first().waitFor({ timeout: 30_000 })
  await page.waitForTimeout(500)
  const violations = await page.evaluate(() => (window as unknown as { __csp: Array<string> }).__csp)
  expect({ violations, errors, failed }).toEqual({ violations: [], errors: [], failed: [] })
  await page.screenshot({ path: join(ARTIFACTS, "docs.png") })
  await page.close()
}, 90_000)
