/**
 * Browser tests: Debian's Chromium (/usr/bin/chromium, installed by .ci/run) driven by playwright-core, with the
 * flags this machine needs (STACK.md) and a fresh user-data-dir per launch. The console is built first when
 * client/dist is missing or older than its sources (vite's build API, the same config as `npm run build`).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { chromium, type BrowserContext, type Page } from "playwright-core"
import { DEFAULT_PASSWORD } from "./auth"

export const ROOT = fileURLToPath(new URL("../../", import.meta.url))
export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"
export const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--disable-background-networking",
  "--disable-component-update", "--disable-sync", "--no-first-run"
]
/** Screenshots of the main pages (git-ignored). */
export const ARTIFACTS = join(ROOT, "test-artifacts", "console")

const newest = (path: string): number => {
  const s = statSync(path)
  if (!s.isDirectory()) return s.mtimeMs
  return Math.max(s.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))))
}

/** Builds client/dist unless it is there and newer than client/ sources and the shared schemas. */
export const ensureClientBuilt = async () => {
  const index = join(ROOT, "client", "dist", "index.html")
  const sources = [join(ROOT, "client", "src"), join(ROOT, "client", "index.html"), join(ROOT, "client", "vite.config.ts"), join(ROOT, "schema")]
  if (existsSync(index) && statSync(index).mtimeMs >= Math.max(...sources.map(newest))) return
  const { build } = await import("vite")
  await build({ configFile: join(ROOT, "client", "vite.config.ts"), logLevel: "error" })
}

export interface Browser {
  readonly context: BrowserContext
  readonly close: () => Promise<void>
}

export const launchChromium = async (): Promise<Browser> => {
  const userDataDir = mkdtempSync(join(tmpdir(), "whale-chromium-"))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 900 }
  })
  return {
    context,
    close: async () => {
      await context.close()
      rmSync(userDataDir, { recursive: true, force: true })
    }
  }
}

/** Signs in on the console's sign-in page (`/login`) and waits for the signed-in header. */
export const signIn = async (page: Page, baseUrl: string, email: string, password = DEFAULT_PASSWORD) => {
  await page.goto(`${baseUrl}/login`)
  await page.fill('input[name="email"]', email)
  await page.fill('input[name="password"]', password)
  await page.click('button[type="submit"]')
  await page.locator(".account-name").waitFor({ timeout: 15_000 })
}

/** Console errors and uncaught page errors of a page, as they happen. */
export const collectErrors = (page: Page) => {
  const errors: Array<string> = []
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`)
  })
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`))
  return errors
}

export const screenshot = async (page: Page, name: string, fullPage = true) => {
  mkdirSync(ARTIFACTS, { recursive: true })
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage })
}
