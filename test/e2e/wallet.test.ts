/**
 * The wallet page in Chromium (issue 28 part 6): a wallet's page at 1440 and 390 px (identity with its source, flows,
 * trades; nothing wider than the phone's screen), the not-found and not-an-address pages, the wallet search, a
 * wallet name in the live feed leading to its page, and "alert on this wallet" opening a prefilled alert. Screenshots
 * go to test-artifacts/console/.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUser } from "../support/auth"
import { collectErrors, ensureClientBuilt, launchChromium, screenshot, signIn, type Browser } from "../support/browser"
import { startApp, type TestApp } from "../support/harness"
import { insertTx, QUIET_CHAIN, trackTestWallets, W, windowDataset } from "../support/whales"
import { chainTx, publishTrades } from "../support/ws"

let app: TestApp
let browser: Browser
let page: Page
let errors: Array<string>

beforeAll(async () => {
  await ensureClientBuilt()
  app = await startApp({ env: { ...QUIET_CHAIN } })
  await trackTestWallets(app)
  await insertTx(app, windowDataset(Date.now()))
  await createUser(app, { email: "viewer@example.com", tier: "whale" })
  // W1's size as whale discovery measured it, a class change by a rule and one by an operator.
  await app.query(`INSERT INTO whale_candidates (address, status, move_verb, move_usd, move_symbol, move_block, move_tx, holdings_usd, holdings, cohort, reason, measured_at, last_active_at, last_block)
    VALUES ($1, 'joined', 'bought', 2400000, 'PEPE', 20000000, '0x${"ab".repeat(32)}', 31250000, $2::jsonb, 'mega', 'bought $2.4M PEPE in block 20000000', now(), now(), 20000000)`,
  [W.W1, JSON.stringify([{ symbol: "USDC", units: 16_900_000, usd: 16_900_000 }, { symbol: "ETH", units: 4_100, usd: 14_350_000 }])])
  await app.query(`INSERT INTO wallet_identity_history (address, class, previous_class, source, confidence, reason, block, changed_at) VALUES
    ($1, 'trader', NULL, 'rule', 0.6, 'own swaps in block 19999000 (tx 0x5f1c…e1a2)', 19999000, now() - interval '3 days')`, [W.W1])
  await app.query(`INSERT INTO wallet_identity_corrections (address, action, field, value, exchange, reason, operator)
    VALUES ($1, 'set', 'label', 'Alpha Whale', NULL, 'confirmed by its owner on a call', 'ops@example.com')`, [W.W1])
  browser = await launchChromium()
  page = await browser.context.newPage()
  errors = collectErrors(page)
}, 240_000)
afterAll(async () => {
  await browser?.close()
  await app?.close()
})

/** Nothing on the page is wider than the window (tables scroll inside their own box). */
const fitsWidth = (p: Page) => p.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)

describe("a wallet's page", () => {
  it("shows who it is and why, its flows and trades, at 1440 and 390 px", async () => {
    await page.setViewportSize({ width: 1440, height: 900 })
    await page.goto(`${app.url}/wallets/${W.W1}`)
    await page.locator(".wl-page").waitFor({ timeout: 20_000 })
    await expect(page.locator(".wl-head h1").textContent()).resolves.toBe("Alpha Whale")
    const identity = await page.locator(".wl-identity").textContent()
    expect(identity).toContain("Whale")
    expect(identity).toContain("from seed data")
    expect(identity).toContain('tracked wallet "Alpha Whale"')
    const size = await page.locator(".card", { hasText: "Size and cohort" }).textContent()
    expect(size).toContain("$31.25M")
    expect(await page.locator(".wl-holdings tbody tr").allTextContents()).toEqual([expect.stringContaining("USDC"), expect.stringContaining("ETH")])
    const history = page.locator(".wl-history tbody tr")
    expect(await history.count()).toBe(2)
    await expect(history.nth(0).textContent()).resolves.toContain("confirmed by its owner on a call")
    expect(await page.locator(".wl-history tr.wl-correction").count()).toBe(1)
    await expect(history.nth(1).textContent()).resolves.toContain("behaviour rule")
    await page.locator(".wl-page .trade[data-tx]").first().waitFor({ timeout: 10_000 })
    expect(await page.locator(".wl-page .card", { hasText: "Trades" }).locator(".trade[data-tx]").count()).toBe(3)
    await expect(page.locator("a.btn", { hasText: "Copy in Echo" }).getAttribute("href")).resolves.toBe(`/echo?wallet=${W.W1}`)
    expect(await fitsWidth(page)).toBe(true)
    await screenshot(page, "wallet-desktop")
    await page.setViewportSize({ width: 390, height: 844 })
    await page.waitForTimeout(300)
    expect(await fitsWidth(page)).toBe(true)
    await screenshot(page, "wallet-phone")
    expect(errors).toEqual([])
  }, 60_000)

  it("says so for an address nothing is known of and for one that is not an address", async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`${app.url}/wallets/0x9999999999999999999999999999999999999999`)
    await page.locator(".card", { hasText: "Wallet not found" }).waitFor({ timeout: 20_000 })
    expect(await fitsWidth(page)).toBe(true)
    await page.goto(`${app.url}/wallets/0x12`)
    await page.locator(".card", { hasText: "Not a wallet address" }).waitFor({ timeout: 20_000 })
    // The browser logs the 404 and the 422 it was answered.
    errors.length = 0
  }, 30_000)

  it("the search finds a tracked wallet by label and leads to its page", async () => {
    await page.setViewportSize({ width: 1440, height: 900 })
    await page.goto(`${app.url}/wallets`)
    await page.fill('input[aria-label="Search wallets by label or address"]', "gamma")
    const hit = page.locator(".wl-search a.wallet-link", { hasText: "Gamma Trader" })
    await hit.waitFor({ timeout: 10_000 })
    // The first answer lists every wallet (Gamma Trader among them): wait for the search's own.
    await expect.poll(() => page.locator(".wl-search a.wallet-link").count(), { timeout: 10_000 }).toBe(1)
    await hit.click()
    await page.waitForURL(`${app.url}/wallets/${W.W3}`)
    await expect(page.locator(".wl-head h1").textContent()).resolves.toBe("Gamma Trader")
    expect(errors).toEqual([])
  }, 30_000)
})

describe("signed in", () => {
  it("a wallet name in the live feed leads to its page; 'alert on this wallet' opens a prefilled alert", async () => {
    await signIn(page, app.url, "viewer@example.com")
    await page.goto(`${app.url}/feed`)
    await page.locator('.conn[data-status="live"]').waitFor({ timeout: 15_000 })
    const trade = chainTx(7_001, { wallet: W.W2, wallet_label: "Beta Fund" })
    await publishTrades(app, [trade])
    const link = page.locator(`.trade[data-tx="${trade.tx_hash}"] a.wallet-link`)
    await link.waitFor({ timeout: 10_000 })
    await link.click()
    await page.waitForURL(`${app.url}/wallets/${W.W2}`)
    await page.locator(".wl-page").waitFor({ timeout: 20_000 })
    await expect(page.locator(".wl-head h1").textContent()).resolves.toBe("Beta Fund")
    await page.locator("a.btn", { hasText: "Alert on this wallet" }).click()
    await page.waitForURL(`${app.url}/alerts?type=wallet_activity&wallet=${W.W2}`)
    await page.locator('.alert-editor input[name="wallet"]').waitFor({ timeout: 20_000 })
    await expect(page.locator(".alert-editor select").first().inputValue()).resolves.toBe("wallet_activity")
    await expect(page.locator('.alert-editor input[name="wallet"]').inputValue()).resolves.toBe(W.W2)
    expect(errors).toEqual([])
  }, 90_000)
})
