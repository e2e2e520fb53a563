/**
 * The console's picks and backtest pages in Chromium, on stored picks (graded with exits, PENDING, UNPRICED) and
 * daily ETH closes: the headline with n and intervals, both histograms and the day-by-day medians, recent picks with
 * their status (a fresh PENDING pick withheld from anonymous visitors, shown to alpha), a pick's exit timing, top
 * runners; the backtest page's explanation and public sample for anonymous visitors, and a run (metrics, equity
 * against ETH, trades) for an alpha user. Both widths (1280 and 390) without horizontal overflow or console errors.
 */
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createUser, DEFAULT_PASSWORD } from "../support/auth"
import { collectErrors, ensureClientBuilt, launchChromium, screenshot, type Browser } from "../support/browser"
import { startApp, type TestApp } from "../support/harness"

const DAY = 86_400_000
const HOUR = 3_600_000
const NOW = Date.now()
const SYMBOLS = ["PEPE", "LINK", "UNI", "AAVE", "MKR", "LDO", "ARB", "OP", "SHIB", "CRV", "SNX", "GRT"]
const GRADED = 60
const addressOf = (n: number) => `0x${(0xabc000 + n).toString(16).padStart(40, "0")}`
const iso = (ms: number) => new Date(ms).toISOString()

let app: TestApp
let browser: Browser

/** Graded picks over ~4 months with varied outcomes and exits, three PENDING and two UNPRICED picks, ETH closes. */
const seed = async () => {
  const picks: Array<Record<string, unknown>> = []
  for (let i = 0; i < GRADED; i++) {
    const flagged = NOW - (130 - 2 * i) * DAY - 3 * HOUR
    const entry = 1 + (i % 5) * 0.5
    const close = (((i * 37) % 23) / 23) * 0.9 - 0.35
    const peak = Math.max(close, 0) + (((i * 13) % 11) / 11) * 0.8 + 0.02
    const dayCloses = Array.from({ length: 7 }, (_, d) => (d === 6 ? entry * (1 + close) : entry * (1 + (close * (d + 1)) / 7 + 0.05 * (((i + d) % 3) - 1))))
    picks.push({
      symbol: SYMBOLS[i % SYMBOLS.length], token: addressOf(i % SYMBOLS.length), flagged, entry, status: "GRADED", close, peak,
      adverse: -((i * 7) % 10) / 100, dayCloses, whales: 3 + (i % 4), conviction: 30 + ((i * 11) % 60), exited: i % 3 === 0, exits: i % 3 === 0 ? 3 : 0
    })
  }
  const pending = (symbol: string, n: number, agoMs: number, peak: number | null, exits = 0) =>
    ({ symbol, token: addressOf(100 + n), flagged: NOW - agoMs, entry: 2, status: "PENDING", close: null, peak, adverse: null, dayCloses: null, whales: 3, conviction: 55, exited: null, exits })
  picks.push(pending("ZRO", 1, 2 * HOUR, null), pending("ENA", 2, 30 * HOUR, 0.12, 1), pending("ONDO", 3, 3 * DAY, 0.31))
  for (const [n, symbol] of [[4, "WIF"], [5, "BONK"]] as const) {
    picks.push({ symbol, token: addressOf(100 + n), flagged: NOW - (40 + n) * DAY, entry: null, status: "UNPRICED", close: null, peak: null, adverse: null, dayCloses: null, whales: 4, conviction: 40, exited: null, exits: 0 })
  }
  for (const p of picks) {
    const flagged = p.flagged as number
    const [row] = await app.query<{ id: number }>(`
      INSERT INTO picks (token, symbol, flagged_at, flag_record, entry_price, whales, flaggers, conviction, inputs, status, close_return,
        close_price, peak_return, max_adverse, day_closes, exited_before_close, graded_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7::text[], $8, '{}'::jsonb, $9, $10, $11, $12, $13, $14::double precision[], $15, $16) RETURNING id`, [
      p.token, p.symbol, iso(flagged), `seed:${p.symbol}:${flagged}`, p.entry, p.whales,
      `{${Array.from({ length: p.whales as number }, (_, k) => `"0x${String(k + 1).repeat(40).slice(0, 40)}"`).join(",")}}`, p.conviction, p.status,
      p.close, p.close === null ? null : (p.entry as number) * (1 + (p.close as number)), p.peak, p.adverse,
      p.dayCloses === null ? null : `{${(p.dayCloses as Array<number>).join(",")}}`, p.exited, p.status === "PENDING" ? null : iso(flagged + 7 * DAY)
    ])
    for (let k = 0; k < (p.exits as number); k++) {
      const ts = flagged + (k + 1) * 30 * HOUR
      await app.query(`INSERT INTO pick_exits (pick_id, wallet, ts, day_offset, hours, price, move, route, record) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
        row!.id, `0x${String(k + 1).repeat(40).slice(0, 40)}`, iso(ts), Math.floor(((k + 1) * 30) / 24), (k + 1) * 30, 1, 0.08 * (k + 1) - 0.05,
        k % 2 === 0 ? "dex_sell" : "exchange_deposit", `seed-exit:${row!.id}:${k}`
      ])
    }
  }
  for (let d = 140; d >= 0; d--) {
    const ts = NOW - d * DAY
    await app.query(`INSERT INTO pick_eth_daily (day, close, close_ts) VALUES (($1::timestamptz AT TIME ZONE 'UTC')::date, $2, $1) ON CONFLICT DO NOTHING`,
      [iso(ts), 3000 * (1 + 0.1 * Math.sin(d / 10))])
  }
}

beforeAll(async () => {
  await ensureClientBuilt()
  app = await startApp({ env: { DEMO_HISTORY_BLOCKS: "0", DEMO_BLOCK_MS: "3600000", PICKS_CACHE_SECONDS: "0", PICKS_MIN_N: "10" } })
  await seed()
  await createUser(app, { email: "alpha@example.com", tier: "alpha" })
  browser = await launchChromium()
}, 240_000)
afterAll(async () => {
  await browser?.close()
  await app?.close()
})

/** With PAGE_SHOTS=1: each card of the page as its own screenshot (readable at phone width), for a look. */
const cardShots = async (page: Page, name: string) => {
  if (process.env.PAGE_SHOTS !== "1") return
  const cards = page.locator("section.card")
  for (let i = 0; i < (await cards.count()); i++) await cards.nth(i).screenshot({ path: `test-artifacts/console/${name}-card${i}.png` })
}
const noOverflow = async (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)
const text = (page: Page, selector: string) => page.locator(selector).innerText()
const card = (page: Page, title: string) => page.locator(`section.card[aria-label="${title}"]`)

const checkPicks = async (page: Page, name: string) => {
  await page.goto(`${app.url}/picks`)
  await page.getByRole("heading", { name: "Whale picks" }).waitFor()
  await page.locator(".pk-counts").waitFor({ timeout: 15_000 })
  expect(await text(page, ".pk-counts")).toMatch(/Picks\s+65[\s\S]*Graded\s+60[\s\S]*Pending\s+3[\s\S]*Unpriced\s+2[\s\S]*Tokens\s+17/)
  const headline = await card(page, "Outcomes of graded picks").innerText()
  expect(headline).toContain("Closed up after 7 days")
  expect(headline).toMatch(/95 % \d+ %–\d+ % · n = 60/)
  expect(headline).toContain("Median 7-day close")
  // Two histograms of 11 bins, 60 picks each; seven day-by-day medians.
  expect(await page.locator(".pk-hist .pk-hist-col").count()).toBe(22)
  for (const title of ["Highest reading in 7 days", "7-day close"]) {
    const counts = await card(page, title).locator(".pk-hist-n").allInnerTexts()
    expect(counts.reduce((a, c) => a + (Number(c) || 0), 0)).toBe(GRADED)
  }
  expect(await page.locator(".pk-horizon-col").count()).toBe(7)
  // Exit timing: the chart is drawn for a pick with three exits, listed below it.
  const timing = card(page, "Exit timing")
  await timing.locator("canvas").first().waitFor({ timeout: 15_000 })
  expect(await timing.locator("tbody tr").count()).toBe(3)
  expect(await timing.innerText()).toMatch(/DEX sell[\s\S]*exchange deposit/)
  const runners = await card(page, "Top runners").locator("tbody tr").count()
  expect(runners).toBe(10)
  await screenshot(page, name)
  await cardShots(page, name)
  expect(await noOverflow(page)).toBe(true)
  return card(page, "Recent picks").innerText()
}

describe("picks page", () => {
  it("shows the headline, distributions, recent picks with status, exit timing and runners to anyone", async () => {
    for (const [width, height] of [[1280, 900], [390, 844]] as const) {
      const page = await browser.context.newPage()
      await page.setViewportSize({ width, height })
      const errors = collectErrors(page)
      const recent = await checkPicks(page, `picks-${width}`)
      expect(recent).toMatch(/ENA[\s\S]*PENDING/)
      expect(recent).toMatch(/ONDO[\s\S]*PENDING/)
      expect(recent).toContain("UNPRICED")
      expect(recent).toContain("graded")
      // The pick flagged two hours ago is withheld from anonymous visitors, and the page says so.
      expect(recent).not.toContain("ZRO")
      expect(recent).toContain("1 pick flagged in the last 24 h is withheld")
      // Another pick's exit timing on demand.
      await card(page, "Recent picks").getByRole("button", { name: /Exit timing of ENA/ }).click()
      await page.waitForFunction(() => document.querySelector('section[aria-label="Exit timing"] .pk-timing-head')?.textContent?.includes("ENA"))
      expect(await card(page, "Exit timing").locator("tbody tr").count()).toBe(1)
      expect(errors).toEqual([])
      await page.close()
    }
  }, 120_000)
})

describe("backtest page", () => {
  it("explains the tier to an anonymous visitor and shows the public 90-day sample", async () => {
    for (const [width, height] of [[1280, 900], [390, 844]] as const) {
      const page = await browser.context.newPage()
      await page.setViewportSize({ width, height })
      const errors = collectErrors(page)
      await page.goto(`${app.url}/backtest`)
      const gate = card(page, "Backtests are an Alpha feature")
      await gate.waitFor({ timeout: 15_000 })
      expect(await gate.innerText()).toContain("Alpha tier or higher")
      expect(await page.locator("form.bt-form").count()).toBe(0)
      const sample = card(page, "Last 90 days of graded picks")
      await sample.locator(".bt-sample-figs").waitFor({ timeout: 15_000 })
      // Flagged in the 90 days ending 7 days ago: picks 17..59.
      expect(await sample.innerText()).toMatch(/Picks\s+43/)
      await screenshot(page, `backtest-anon-${width}`)
      await cardShots(page, `backtest-anon-${width}`)
      expect(await noOverflow(page)).toBe(true)
      expect(errors).toEqual([])
      await page.close()
    }
  }, 120_000)

  it("runs a backtest for an alpha user: metrics, equity against ETH, trades; and alpha sees live PENDING picks", async () => {
    const page = await browser.context.newPage()
    const errors = collectErrors(page)
    await page.goto(`${app.url}/login?next=/backtest`)
    await page.fill('input[name="email"]', "alpha@example.com")
    await page.fill('input[name="password"]', DEFAULT_PASSWORD)
    await page.click('button[type="submit"]')
    const form = page.locator("form.bt-form")
    await form.waitFor({ timeout: 15_000 })
    await page.getByLabel("Exit rule").selectOption("hold")
    await page.getByLabel("Days", { exact: true }).fill("3")
    await page.getByRole("button", { name: "Run backtest" }).click()
    await page.locator(".bt-metrics").waitFor({ timeout: 30_000 })
    expect(await text(page, ".bt-metrics")).toMatch(/Total return[\s\S]*ETH, same days[\s\S]*Max drawdown[\s\S]*Sharpe[\s\S]*Trades\s+60/)
    const equity = card(page, "Equity against holding ETH")
    await equity.locator("canvas").first().waitFor()
    const trades = card(page, "Trades").locator("tbody tr")
    // Paged 25 at a time, saying what the total counts.
    expect(await trades.count()).toBe(25)
    expect(await card(page, "Trades").innerText()).toContain("1–25 of 60")
    expect(await trades.first().innerText()).toContain("held")
    // A bad range: the server's 422 shown beside the form.
    await page.getByLabel("From", { exact: true }).fill("2026-01-10")
    await page.getByLabel("To", { exact: true }).fill("2026-01-01")
    await page.getByRole("button", { name: "Run backtest" }).click()
    await page.locator(".bt-form [role=alert]").waitFor()
    expect(await text(page, ".bt-form [role=alert]")).toContain("must not be before")
    await screenshot(page, "backtest-alpha-1280")
    await cardShots(page, "backtest-alpha-1280")
    await page.setViewportSize({ width: 390, height: 844 })
    await screenshot(page, "backtest-alpha-390")
    await cardShots(page, "backtest-alpha-390")
    expect(await noOverflow(page)).toBe(true)

    await page.goto(`${app.url}/picks`)
    await card(page, "Recent picks").locator("tbody tr").first().waitFor()
    await page.waitForFunction(() => document.querySelector('section[aria-label="Recent picks"]')?.textContent?.includes("ZRO"))
    expect(errors.filter((e) => !/status of 422/.test(e))).toEqual([])
    await page.close()
  }, 120_000)
})
