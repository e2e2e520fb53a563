/**
 * A browser asking for a path the console does not know gets the console (status 404), which shows its not-found
 * page; an API client asking for the same path still gets the JSON error. The `chain:head` topic keeps "Latest block"
 * current: the listener publishes every block it stores.
 */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CONSOLE_PAGES } from "../../schema/http/console"
import { ChainHead, CONSOLE_STREAMS } from "../../schema/ws"
import { Bus } from "../../server/platform/infra/Bus"
import { startApp, type TestApp } from "../support/harness"
import { waitFor } from "../support/wait"

describe("console paths and head", () => {
  let app: TestApp
  beforeAll(async () => {
    app = await startApp({ env: { DEMO_HISTORY_BLOCKS: "3", DEMO_BLOCK_MS: "1000" } })
  }, 60_000)
  afterAll(async () => app?.close())

  it("answers an unknown browser path with the console page (404), an API client with JSON (404)", async () => {
    const page = await fetch(`${app.url}/no/such/page`, { headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" } })
    expect(page.status).toBe(404)
    expect(page.headers.get("content-type")).toContain("text/html")
    expect(await page.text()).toMatch(/<html|<!doctype html/i)
    const api = await fetch(`${app.url}/no/such/page`, { headers: { accept: "application/json" } })
    expect(api.status).toBe(404)
    expect(await api.json()).toMatchObject({ code: expect.any(String) })
  })

  it("answers every page of CONSOLE_PAGES as it says: the shell, a sign-in redirect, or the domain's own gate", async () => {
    const html = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" }
    for (const page of CONSOLE_PAGES) {
      const path = page.path.replace("{token}", "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2")
      const res = await fetch(`${app.url}${path}`, { headers: html, redirect: "manual" })
      if (page.served === "signed-in") {
        expect([302, 303], path).toContain(res.status)
        expect(res.headers.get("location"), path).toMatch(/^\/login\?next=/)
      } else if (page.served === "shell") {
        expect(res.status, path).toBe(200)
        expect(res.headers.get("content-type"), path).toContain("text/html")
      } else {
        // Its domain's gate: for an anonymous visitor a page (the shell, or why not) or the way to sign in.
        expect(res.status, path).toBeLessThan(400)
        if (res.status >= 300) expect(res.headers.get("location"), path).toMatch(/^\/login\?next=/)
        else expect(res.headers.get("content-type"), path).toContain("text/html")
      }
      await res.arrayBuffer()
    }
  })

  it("publishes the newest stored block for the console's Latest block", async () => {
    const heads = async () => (await app.runtime.runPromise(Effect.flatMap(Bus, (b) => b.tail(CONSOLE_STREAMS.chainHead, 5))))
      .map((e) => ChainHead.parse(e.payload))
    await waitFor(async () => (await heads()).length >= 2, 20_000, 100)
    const [a, b] = (await heads()).slice(-2)
    expect(b!.number).toBe(a!.number + 1)
    expect(Date.parse(b!.ts)).toBeGreaterThan(Date.parse(a!.ts))
  })
})
