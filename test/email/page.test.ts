/**
 * The /email dashboard in Chromium: a staff member adds a contact, sets its status, adds an X-outreach target, marks
 * it sent and deletes it — each action the url-encoded form with its CSRF token that the console posts by the
 * action's contract (schema/http/email.ts), its JSON answer parsed by that contract (the server checks it too).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUser, login } from "../support/auth"
import { collectErrors, ensureClientBuilt, launchChromium, type Browser } from "../support/browser"
import { startApp, type TestApp } from "../support/harness"

describe("the /email page", () => {
  let app: TestApp
  let browser: Browser
  let token: string

  beforeAll(async () => {
    await ensureClientBuilt()
    app = await startApp({ env: { WHALE_ROLES: "http" } })
    await createUser(app, { email: "staff@whale.test", admin: true })
    token = (await login(app, "staff@whale.test")).token
    browser = await launchChromium()
  }, 180_000)
  afterAll(async () => {
    await browser?.close()
    await app?.close()
  })

  const workspace = async () =>
    (await (await fetch(`${app.url}/api/email/workspace`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      contacts: Array<{ email: string; status: string }>; outreach: Array<{ handle: string; sent: boolean }>
    }

  it("adds a contact and sets its status, adds an outreach target, marks it sent and deletes it", async () => {
    await browser.context.addCookies([{ name: "whale_token", value: token, url: app.url }])
    const page = await browser.context.newPage()
    const errors = collectErrors(page)
    await page.goto(`${app.url}/email`)
    await page.getByLabel("Contact e-mail").waitFor({ timeout: 20_000 })

    await page.getByLabel("Contact e-mail").fill("ada@example.com")
    await page.getByLabel("Contact name").fill("Ada")
    await page.locator("form", { has: page.getByLabel("Contact e-mail") }).getByRole("button", { name: "Add" }).click()
    await page.getByRole("status").getByText("Contact added.").waitFor({ timeout: 10_000 })
    await page.getByLabel("Status of ada@example.com").selectOption("replied")
    await expect.poll(async () => (await workspace()).contacts.find((c) => c.email === "ada@example.com")?.status, { timeout: 10_000 }).toBe("replied")

    await page.getByLabel("X handle").fill("@Whale_Watcher")
    await page.locator("form", { has: page.getByLabel("X handle") }).getByRole("button", { name: "Add" }).click()
    const target = page.locator("li", { hasText: "@whale_watcher" })
    await target.waitFor({ timeout: 10_000 })
    await target.getByRole("checkbox").check()
    await expect.poll(async () => (await workspace()).outreach.find((o) => o.handle === "whale_watcher")?.sent, { timeout: 10_000 }).toBe(true)
    await target.getByRole("button", { name: "Delete" }).click()
    await target.waitFor({ state: "detached", timeout: 10_000 })
    expect((await workspace()).outreach).toEqual([])

    expect(await page.getByRole("alert").count()).toBe(0)
    expect(errors).toEqual([])
    await page.close()
  }, 120_000)
})
