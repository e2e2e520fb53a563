/**
 * The /alerts page in Chromium: a signed-in whale-tier user creates an alert through the form, sees it listed,
 * receives a matching record live (over `user:<id>`) and in the history with its latency; screenshots at desktop
 * and phone width land in test-artifacts/console/.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUser, login } from "../support/auth"
import { collectErrors, ensureClientBuilt, launchChromium, screenshot, type Browser } from "../support/browser"
import { startApp, type TestApp } from "../support/harness"
import { call, internalHeaders, newToken, record } from "./support"

describe("the /alerts page", () => {
  let app: TestApp
  let browser: Browser
  let token: string

  beforeAll(async () => {
    await ensureClientBuilt()
    app = await startApp({ env: { INTERNAL_SECRET: "test-internal-secret-value", DEMO_HISTORY_BLOCKS: "0", DEMO_BLOCK_MS: "600000", WS_ANON_DELAY_MS: "600000" } })
    await createUser(app, { email: "page@example.com", tier: "whale" })
    token = (await login(app, "page@example.com")).token
    browser = await launchChromium()
  }, 180_000)
  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  it("creates an alert from the form and shows a matching record live and in the history", async () => {
    const t = newToken()
    await browser.context.addCookies([{ name: "whale_token", value: token, url: app.url }])
    const page = await browser.context.newPage()
    const errors = collectErrors(page)
    await page.goto(`${app.url}/alerts`)
    await page.getByRole("button", { name: "Create alert" }).waitFor({ timeout: 20_000 })
    await page.locator("input[name=token]").fill(t.symbol)
    await page.locator("select[name=side]").selectOption("buy")
    await page.locator("input[name=min_usd]").fill("100000")
    await page.getByRole("button", { name: "Create alert" }).click()
    await page.getByText("Alert created").waitFor({ timeout: 10_000 })
    const list = await call(app, "GET", "/api/alerts", { token })
    expect(list.body.alerts).toHaveLength(1)
    expect(list.body.alerts[0]).toMatchObject({ type: "whale_trade", params: { token: t.symbol, side: "buy", min_usd: 100000 }, channels: ["console"] })

    await call(app, "POST", "/api/alerts/process-tx", { body: record({ ...t, usd: 420_000 }), headers: internalHeaders(app) })
    await page.locator(".live-list").getByText(`Whale buy: $420K of ${t.symbol}`).waitFor({ timeout: 15_000 })
    await page.locator(".history-table").getByText(/console: sent · \d/).waitFor({ timeout: 15_000 })
    await screenshot(page, "alerts-desktop")
    await page.setViewportSize({ width: 390, height: 844 })
    await screenshot(page, "alerts-phone")
    expect(errors).toEqual([])
    await page.close()
  }, 120_000)
})
