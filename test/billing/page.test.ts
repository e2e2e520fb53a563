/**
 * The embedded default (no STRIPE_SECRET_KEY, no CRYPTO_API_KEY): the providers' stand-ins run in process, their
 * hosted pages are ours and labelled "test payments", and the same signed webhooks reach the same receivers. The
 * /billing page in Chromium: anonymous → login and back, checkout by card through the test page, cancel with a
 * reason; a crypto invoice paid on its test page. Screenshots at desktop and phone width (test-artifacts/console).
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUser, DEFAULT_PASSWORD } from "../support/auth"
import { collectErrors, ensureClientBuilt, launchChromium, screenshot, type Browser } from "../support/browser"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { signedInUser, tierOf } from "./support/billingApp"

let app: TestApp
let browser: Browser
let page: Page
let errors: Array<string>
const failed: Array<string> = []

beforeAll(async () => {
  await ensureClientBuilt()
  app = await startApp({ env: { DRIP_CHECK_MS: "200" } })
  browser = await launchChromium()
  page = await browser.context.newPage()
  errors = collectErrors(page)
  page.on("response", (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${new URL(r.url()).pathname}`)
  })
}, 180_000)
afterAll(async () => {
  await browser?.close()
  await app?.close()
})

describe("/billing on the embedded default (test payments)", () => {
  it("sends an anonymous visitor to the login page, then back", async () => {
    await createUser(app, { email: "page-buyer@example.com" })
    await page.goto(`${app.url}/billing`)
    await page.waitForURL(/\/login\?next=%2Fbilling|\/login\?next=\/billing/, { timeout: 15_000 })
    await page.fill('input[name="email"]', "page-buyer@example.com")
    await page.fill('input[name="password"]', DEFAULT_PASSWORD)
    await page.click('button[type="submit"]')
    await page.waitForURL(/\/billing$/, { timeout: 15_000 })
    await page.locator('[data-testid="tier"]', { hasText: "free" }).waitFor({ timeout: 15_000 })
    await expect(page.locator("text=Test payments").count()).resolves.toBeGreaterThan(0)
    await screenshot(page, "billing-free-desktop")
    await page.setViewportSize({ width: 390, height: 844 })
    await screenshot(page, "billing-free-phone")
    await page.setViewportSize({ width: 1280, height: 900 })
  }, 90_000)

  it("subscribes by card through the test checkout page: the signed webhook raises the tier", async () => {
    await page.locator(".plan-card", { hasText: "Pro" }).locator("button", { hasText: "Card, monthly" }).click()
    await page.waitForURL(/\/billing\/test-payments\/checkout\/cs_test_/, { timeout: 15_000 })
    await expect(page.locator("text=TEST PAYMENTS").count()).resolves.toBe(1)
    await screenshot(page, "billing-test-checkout")
    await page.click("text=Pay (test card)")
    await page.waitForURL(/\/billing\?checkout=success/, { timeout: 15_000 })
    await waitFor(async () => {
      await page.reload()
      return (await page.locator('[data-testid="tier"]').textContent({ timeout: 5_000 }).catch(() => "")) === "pro"
    }, 20_000, 300)
    await page.locator("text=Payment methods & invoices").waitFor()
    await screenshot(page, "billing-pro-desktop")
    await page.setViewportSize({ width: 390, height: 844 })
    await screenshot(page, "billing-pro-phone")
    await page.setViewportSize({ width: 1280, height: 900 })
  }, 90_000)

  it("cancels with a reason and keeps the plan until the period end", async () => {
    await page.click("text=Cancel subscription…")
    await page.locator(".card", { hasText: "Tell us why" }).locator("select").selectOption("too_expensive")
    await page.click("text=Cancel at period end")
    await page.locator("text=cancelled, ends at period end").waitFor({ timeout: 15_000 })
    await expect(page.locator('[data-testid="tier"]').textContent()).resolves.toBe("pro")
    await screenshot(page, "billing-cancelled")
    expect(errors, failed.join("; ")).toEqual([])
  }, 60_000)

  it("pays by crypto through the test invoice page: the signed IPN raises the tier", async () => {
    const user = await signedInUser(app, "page-crypto@example.com")
    const cur = await fetch(`${app.url}/api/crypto/currencies`).then((r) => r.json())
    expect(cur.test_payments).toBe(true)
    const res = await fetch(`${app.url}/api/subscribe/crypto`, { method: "POST", headers: user.headers, body: JSON.stringify({ tier: "whale", currency: "eth" }) })
    expect(res.status).toBe(200)
    const invoice = await res.json()
    expect(invoice.invoice_url).toMatch(/\/billing\/test-payments\/crypto\/\d+$/)
    const pay = await fetch(`${app.url}${invoice.invoice_url}/pay`, { method: "POST", redirect: "manual" })
    expect(pay.status).toBe(303)
    await waitFor(async () => (await tierOf(app, user.headers)) === "whale", 10_000)
  }, 60_000)
})
