/**
 * The /playbook page in Chromium: an admin (whale tier) browses past events, their metrics and the patterns, moves
 * an upcoming event LIVE from the page and sees whale flow arrive on the live panel over the WebSocket;
 * screenshots at desktop (1280) and phone (390) width land in test-artifacts/console/.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { STREAMS } from "../../schema/streams"
import { bearer, createUser, login } from "../support/auth"
import { collectErrors, ensureClientBuilt, launchChromium, screenshot, signIn, type Browser } from "../support/browser"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"
import { insertTx, QUIET_CHAIN, trackTestWallets, W } from "../support/whales"
import { chainTx, publish } from "../support/ws"
import { shippedPastEvents } from "./support"

let app: TestApp
let browser: Browser
let page: Page
let errors: Array<string>

beforeAll(async () => {
  await ensureClientBuilt()
  app = await startApp({ env: { ...QUIET_CHAIN, PLAYBOOK_LIVE_PUBLISH_MS: "200" } })
  await trackTestWallets(app)
  await createUser(app, { email: "desk@playbook.test", tier: "whale", admin: true })
  await waitFor(async () => Number((await app.query<{ n: string }>("SELECT count(*) AS n FROM playbook_events"))[0]!.n) >= 54, 20_000, 100)
  browser = await launchChromium()
  page = await browser.context.newPage()
  errors = collectErrors(page)
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await app?.close()
})

describe("the playbook page", () => {
  it("shows past reactions, patterns and a live event as it happens", async () => {
    await signIn(page, app.url, "desk@playbook.test")
    await page.goto(`${app.url}/playbook`)
    await page.locator(".pb-past-item").first().waitFor({ timeout: 20_000 })
    await page.locator(".pb-metrics").first().waitFor({ timeout: 20_000 })
    await expect(page.locator(".pb table tbody tr", { hasText: "CPI" }).first().textContent()).resolves.toMatch(new RegExp(`CPI\\s*${shippedPastEvents("cpi")}(?!\\d)`))
    await page.locator(".pb-upcoming", { hasText: "FOMC rate decision (December 2026)" }).waitFor({ timeout: 10_000 })

    // An event half an hour ahead: its window (24 h before to 48 h after) is open now.
    const res = await fetch(`${app.url}/api/playbook/events`, {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer((await login(app, "desk@playbook.test")).token) },
      body: JSON.stringify({ title: "Treasury refunding announcement", category: "other", timestamp: new Date(Date.now() + 30 * 60_000).toISOString(), severity: 4, tokens: ["ETH"] })
    })
    expect(res.status).toBe(200)
    await page.reload()
    await page.locator(".pb-upcoming", { hasText: "Treasury refunding" }).locator("button", { hasText: "Go live" }).click()
    await page.locator(".pill-live", { hasText: "LIVE" }).waitFor({ timeout: 10_000 })
    const ts = new Date().toISOString()
    const [id] = await insertTx(app, [{ wallet: W.W1, token: "WETH", category: "dex_buy", usd: 123_456, at: Date.parse(ts) }])
    const [row] = await app.query<{ tx_hash: string }>("SELECT tx_hash FROM whale_tx WHERE id = $1", [id])
    await publish(app, STREAMS.chainTx, [chainTx(1, { id: id!, tx_hash: row!.tx_hash, ts, wallet: W.W1, usd: 123_456, wallet_label: "Alpha Whale" })])
    await page.locator(".pb-totals", { hasText: "$123" }).waitFor({ timeout: 10_000 })
    await screenshot(page, "playbook-desktop")
    await page.setViewportSize({ width: 390, height: 844 })
    await page.locator(".pb-totals").waitFor()
    await screenshot(page, "playbook-phone")
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.locator("button", { hasText: "Complete event" }).click()
    await page.locator(".card", { hasText: "No event is live" }).waitFor({ timeout: 10_000 })
    expect(errors).toEqual([])
  })
})
