/**
 * The site's pages and the watchlist and e-mail console pages in Chromium at phone width (390 px) and desktop
 * width: they render, nothing overflows sideways, no console errors; screenshots go to test-artifacts/console/.
 */
import { existsSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CHROMIUM, collectErrors, ensureClientBuilt, launchChromium, screenshot, type Browser } from "../support/browser"
import { createUser, login } from "../support/auth"
import { startApp, type TestApp } from "../support/harness"

const haveChromium = existsSync(CHROMIUM)
let app: TestApp
let browser: Browser
let staffCookie = ""

describe.skipIf(!haveChromium)(`pages in Chromium${haveChromium ? "" : " (skipped: no chromium)"}`, () => {
  beforeAll(async () => {
    await ensureClientBuilt()
    app = await startApp({ env: { DEMO_BLOCK_MS: "500", DEMO_HISTORY_BLOCKS: "60" } })
    await createUser(app, { email: "staff@example.com", admin: true })
    const session = await login(app, "staff@example.com")
    staffCookie = session.setCookies.map((c) => c.split(";")[0]).join("; ")
    const auth = { authorization: `Bearer ${session.token}` }
    const post = (path: string, body: Record<string, string>) =>
      fetch(`${app.url}${path}`, { method: "POST", headers: { ...auth, "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(body).toString() })
    await post("/email/contact", { email: "ceo@fund.example", name: "Ada Fund", company: "Ada Capital" })
    await post("/email/contact", { email: "desk@trading.example", name: "Trading Desk" })
    await post("/email/x-outreach/add", { handle: "onchainwatcher", note: "10k followers" })
    for (const token of ["ETH", "WBTC", "UNI"]) {
      await fetch(`${app.url}/api/watchlist`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ token }) })
    }
    browser = await launchChromium()
    const url = new URL(app.url)
    await browser.context.addCookies(staffCookie.split("; ").map((kv) => {
      const i = kv.indexOf("=")
      return { name: kv.slice(0, i), value: decodeURIComponent(kv.slice(i + 1)), domain: url.hostname, path: "/" }
    }))
  }, 120_000)
  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  const visit = async (path: string, width: number, name: string, ready: string) => {
    const page = await browser.context.newPage()
    const errors = collectErrors(page)
    await page.setViewportSize({ width, height: 844 })
    const res = await page.goto(`${app.url}${path}`)
    expect(res?.status(), path).toBe(200)
    await page.getByText(ready, { exact: false }).first().waitFor({ timeout: 15_000 })
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
    expect(overflow, `${path} overflows sideways at ${width}px`).toBeLessThanOrEqual(0)
    await screenshot(page, name)
    await page.close()
    expect(errors, path).toEqual([])
  }

  it("legal pages and /positioning are readable on a phone", async () => {
    for (const [path, ready] of [["/terms", "Terms of service"], ["/privacy", "What we store and why"], ["/cookie-policy", "whale_token"], ["/disclaimer", "Not financial advice"], ["/business-terms", "Business terms"]] as const) {
      await visit(path, 390, `phone${path.replace(/\//g, "-")}`, ready)
    }
    await visit("/positioning", 390, "phone-positioning", "Whale positioning")
    await visit("/positioning", 1280, "desktop-positioning", "Whale positioning")
  }, 120_000)

  it("the watchlist and the e-mail dashboard render for staff at phone and desktop width", async () => {
    await visit("/watchlist", 390, "phone-watchlist", "WBTC")
    await visit("/watchlist", 1280, "desktop-watchlist", "WBTC")
    await visit("/email", 390, "phone-email", "Ada Fund")
    await visit("/email", 1280, "desktop-email", "onchainwatcher")
  }, 120_000)
})
