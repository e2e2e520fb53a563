/**
 * The account page in Chromium, as a whale-tier user: profile and plan, sessions (this browser marked), a data API
 * key created (shown once, with a curl example that works), listed by prefix with today's requests, and revoked;
 * no error banner, console error or failed request; screenshots at 1440 px and 390 px.
 */
import { join } from "node:path"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, expect, it } from "vitest"
import { createUser, DEFAULT_PASSWORD } from "../support/auth"
import { ARTIFACTS, collectErrors, ensureClientBuilt, launchChromium, type Browser } from "../support/browser"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"

let app: TestApp
let browser: Browser
const EMAIL = "keys@example.com"

beforeAll(async () => {
  await ensureClientBuilt()
  app = await startApp({ env: { WHALE_ROLES: "http" } })
  await createUser(app, { email: EMAIL, tier: "whale" })
  browser = await launchChromium()
}, 180_000)
afterAll(async () => {
  await browser?.close()
  await app?.close()
})

it("shows the account, creates a key once with a working curl example, lists it with its usage and revokes it", async () => {
  const page: Page = await browser.context.newPage()
  const errors = collectErrors(page)
  const failed: Array<string> = []
  page.on("response", (r) => { if (r.status() >= 400 && r.url().startsWith(app.url)) failed.push(`${r.status()} ${r.url()}`) })
  page.on("dialog", (d) => void d.accept())
  await page.goto(`${app.url}/login?next=/account`)
  await page.fill('input[name="email"]', EMAIL)
  await page.fill('input[name="password"]', DEFAULT_PASSWORD)
  await page.click('button[type="submit"]')
  await page.locator(".account-name").click()
  await page.locator(".account-page").waitFor({ timeout: 15_000 })
  await expect(page.locator(".facts").textContent()).resolves.toContain(EMAIL)
  await expect(page.locator(".facts").textContent()).resolves.toContain("Whale")
  await page.locator(".row", { hasText: "this browser" }).waitFor()

  await page.fill('input[aria-label="Key name"]', "trading bot")
  await page.click("text=Create key")
  const keyInput = page.locator('input[aria-label="New API key"]')
  await keyInput.waitFor()
  const key = await keyInput.inputValue()
  expect(key).toMatch(/^whk_live_[0-9A-Za-z]{32}$/)
  const curl = await page.locator(".new-key pre").textContent()
  expect(curl).toBe(`curl -H "X-API-Key: ${key}" ${app.url}/api/v1/whale-index`)
  // The example works, and its request shows in the page's usage once reloaded.
  expect((await fetch(`${app.url}/api/v1/whale-index`, { headers: { "x-api-key": key } })).status).toBe(200)
  await page.screenshot({ path: join(ARTIFACTS, "account-1440.png"), fullPage: true })
  await page.reload()
  await page.locator("td.mono", { hasText: key.slice(0, 12) }).waitFor()
  expect(await page.locator('input[aria-label="New API key"]').count()).toBe(0) // shown once
  await waitFor(async () => (await page.locator("tr", { hasText: "trading bot" }).locator("td.num").textContent()) === "1", 10_000, 200)
  await page.setViewportSize({ width: 390, height: 844 })
  await page.screenshot({ path: join(ARTIFACTS, "account-390.png"), fullPage: true })
  await page.setViewportSize({ width: 1440, height: 900 })

  await page.click('button[aria-label="Revoke trading bot"]')
  await page.locator("text=Key revoked.").waitFor()
  expect(await page.locator("td.mono", { hasText: key.slice(0, 12) }).count()).toBe(0)
  expect((await fetch(`${app.url}/api/v1/whale-index`, { headers: { "x-api-key": key } })).status).toBe(401)
  expect(await page.locator(".notice-warn").count()).toBe(0)
  expect({ errors, failed }).toEqual({ errors: [], failed: [] })
  await page.close()
}, 120_000)
