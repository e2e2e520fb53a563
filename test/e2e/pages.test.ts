/**
 * Every console page in Chromium as a whale-tier administrator, each with its main interaction: the playbook's event
 * detail, Echo's copy and trade ticket, a backtest run, an alert created and sampled, a watchlist entry, an API key
 * created and revoked. Any error banner, console error or failed same-origin request (4xx/5xx the page did not ask
 * for on purpose) fails the page it happened on. The page list is CONSOLE_PAGES, the one the client's routes read.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { CONSOLE_PAGES } from "../../schema/http/console"
import { createUser } from "../support/auth"
import { collectErrors, ensureClientBuilt, launchChromium, screenshot, signIn, type Browser } from "../support/browser"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"

const EMAIL = "whale-admin@example.com"
let app: TestApp
let browser: Browser
let page: Page
let errors: Array<string>
let failed: Array<string>
/** Answers a page is allowed to get (the interaction asks for them on purpose), as `STATUS METHOD path-prefix`. */
let expected: Array<string> = []

beforeAll(async () => {
  await ensureClientBuilt()
  app = await startApp({ env: { DEMO_BLOCK_MS: "1500", DEMO_HISTORY_BLOCKS: "60", CONSOLE_SNAPSHOT_MS: "2000", PICKS_FREE_DELAY_HOURS: "0" } })
  await createUser(app, { email: EMAIL, tier: "whale", admin: true })
  browser = await launchChromium()
  page = await browser.context.newPage()
  errors = collectErrors(page)
  failed = []
  page.on("response", (r) => {
    const url = new URL(r.url())
    if (r.status() < 400 || url.origin !== app.url) return
    const line = `${r.status()} ${r.request().method()} ${url.pathname}`
    if (!expected.some((e) => line.startsWith(e))) failed.push(line)
  })
  page.on("dialog", (d) => void d.accept())
  // Records to look at: some of the listener's own history is stored (slower on the embedded database).
  await waitFor(async () => (await app.query<{ n: number }>("SELECT count(*)::int AS n FROM whale_tx"))[0]!.n > 20, 150_000, 250)
  await signIn(page, app.url, EMAIL)
}, 240_000)
afterAll(async () => {
  await browser?.close()
  await app?.close()
})

// What an earlier test left (a failure stops it before its own check) is not this test's.
beforeEach(() => {
  errors.length = 0
  failed.length = 0
  expected = []
})

/** No error banner on the page, nothing in the console, no failed request since the last check. */
const clean = async (name: string) => {
  const banners = await page.locator('[role="alert"], .notice-warn, .echo-notice.neg').allTextContents()
  const found = { name, banners, errors: [...errors], failed: [...failed] }
  errors.length = 0
  failed.length = 0
  expected = []
  expect(found).toEqual({ name, banners: [], errors: [], failed: [] })
}

const open = async (path: string) => {
  await page.goto(app.url + path)
  await page.locator("main").waitFor()
  // Every read the page started has answered.
  await page.waitForLoadState("networkidle", { timeout: 20_000 }).catch(() => undefined)
}

describe("every console page as a whale-tier administrator", () => {
  const plain = CONSOLE_PAGES.filter((p) => !["/login", "/register", "/tokens/{token}", "/wallets/{address}"].includes(p.path))
  for (const p of plain) {
    it(`opens ${p.path} (${p.title}) without an error`, async () => {
      await open(p.path)
      expect(await page.title()).toContain(p.title)
      await screenshot(page, `page${p.path.replaceAll("/", "-") || "-root"}`)
      await clean(p.path)
    }, 60_000)
  }

  it("opens a token's page from the top tokens", async () => {
    await open("/tokens")
    const link = page.locator('a[href^="/tokens/0x"]').first()
    await link.waitFor({ timeout: 20_000 })
    await link.click()
    await page.locator(".chart canvas").first().waitFor({ timeout: 20_000 })
    await clean("/tokens/{token}")
  }, 60_000)

  it("opens a tracked wallet's page", async () => {
    const [w] = await app.query<{ address: string }>("SELECT address FROM tracked_wallets WHERE active ORDER BY address LIMIT 1")
    expect(w, "a tracked wallet").toBeDefined()
    await open(`/wallets/${w!.address}`)
    expect(await page.title()).toContain("Wallet")
    await page.locator(".wl-head").waitFor({ timeout: 20_000 })
    await clean("/wallets/{address}")
  }, 60_000)

  it("the login and register pages (signed in, they still render)", async () => {
    for (const path of ["/login", "/register"]) await open(path)
    await clean("/login, /register")
  }, 30_000)
})

describe("the history replay note", () => {
  it("shows 'History replaying: N %' on the pages whose figures still move, and not once it is done", async () => {
    // This app has no generated history (it is done at once): the answer of a first start is put in its place.
    await page.route("**/api/console/history", (r) => r.fulfill({ json: { replaying: true, percent: 42, step: "storing", days: 120 } }))
    for (const path of ["/picks", "/backtest"]) {
      await open(path)
      await expect(page.locator(".replay-note").textContent()).resolves.toContain("History replaying: 42 %")
    }
    await open("/account")
    expect(await page.locator(".replay-note").count()).toBe(0)
    await page.unroute("**/api/console/history")
    await open("/picks")
    await expect(page.evaluate(async () => (await (await fetch("/api/console/history")).json()) as unknown)).resolves.toEqual({ replaying: false, percent: 100, step: "none", days: 0 })
    expect(await page.locator(".replay-note").count()).toBe(0)
    await clean("history replay note")
  }, 60_000)
})

describe("each page's main interaction", () => {
  it("playbook: opens a past event's detail", async () => {
    await open("/playbook")
    const item = page.locator(".pb-past-item").first()
    await item.waitFor({ timeout: 20_000 })
    await item.click()
    await page.locator(".pb-spans, .span-2 .empty:has-text('window has not opened')").first().waitFor({ timeout: 20_000 })
    await clean("playbook detail")
  }, 60_000)

  it("echo: copies a whale trade and trades by ticket", async () => {
    await open("/echo")
    const copy = page.locator(".echo-feed li button.echo-copy:not([disabled])").first()
    await copy.waitFor({ timeout: 30_000 })
    await copy.click()
    await page.locator(".echo-notice", { hasText: "Copied" }).waitFor({ timeout: 15_000 })
    await page.locator(".echo-table tbody tr").first().waitFor()
    // The ticket takes a symbol, offered from the tracked tokens as one types.
    const option = page.locator("#echo-token-list option").first()
    await option.waitFor({ state: "attached" })
    const symbol = (await option.getAttribute("value"))!
    await page.fill('input[aria-label="Token"]', symbol.toLowerCase())
    await page.click('.echo-form button[type="submit"]')
    await page.locator(".echo-notice", { hasText: `BUY ${symbol}` }).waitFor({ timeout: 15_000 })
    // A SELL row of a token not held cannot be copied, and says why.
    const sells = page.locator(".echo-feed li", { hasText: "Nothing to sell" })
    if (await sells.count() > 0) expect(await sells.first().locator("button.echo-copy").isDisabled()).toBe(true)
    await screenshot(page, "echo-after-trades")
    await clean("echo copy and ticket")
  }, 90_000)

  it("backtest: runs with the default form", async () => {
    await open("/backtest")
    await page.click('button[type="submit"]:has-text("Run backtest")')
    await page.locator(".bt-metrics").waitFor({ timeout: 30_000 })
    await clean("backtest run")
  }, 60_000)

  it("alerts: creates an alert and sends its sample", async () => {
    await open("/alerts")
    await page.click('button:has-text("Create alert")')
    const sample = page.locator('button:has-text("Sample")').first()
    await sample.waitFor({ timeout: 15_000 })
    await sample.click()
    await page.waitForLoadState("networkidle", { timeout: 10_000 }).catch(() => undefined)
    await clean("alert create and sample")
  }, 60_000)

  it("watchlist: adds a token by symbol", async () => {
    await open("/watchlist")
    await page.fill('input[aria-label="Token symbol or address"]', "LINK")
    await page.click('.inline-form button[type="submit"]')
    await page.locator('button[aria-label="Remove LINK"]').waitFor({ timeout: 15_000 })
    await clean("watchlist add")
  }, 60_000)

  it("account: creates and revokes an API key", async () => {
    await open("/account")
    await page.fill('input[aria-label="Key name"]', "suite key")
    await page.click("text=Create key")
    await page.locator('input[aria-label="New API key"]').waitFor({ timeout: 15_000 })
    await page.click('button[aria-label="Revoke suite key"]')
    await page.locator("text=Key revoked.").waitFor({ timeout: 15_000 })
    await clean("account key create and revoke")
  }, 60_000)
})
